/**
 * A faithful local DMARC Records API (spec: /work/shared/spec/dmarc-records-api.md), for the
 * tests, the benchmark and manual runs (`npm run api-server`). Node's own `http`; never shipped.
 *
 *   GET {url}/api/public/dmarc-records?organizationId=…&startDate=…&endDate=…
 *   Authorization: Bearer <key>
 *
 * - keys map to organizations; a missing/wrong key or an organization the key does not hold → 403;
 * - missing/invalid organizationId/startDate/endDate, or endDate before startDate → 400 `{message}`;
 * - any other path → 404; success → 200 envelope, rows filtered by `date`, both bounds inclusive;
 * - rows come from data.ts: deterministic per (organization, UTC day), ~13 months before `now`;
 * - with `story` (off by default; on in `npm run demo`), story.ts tells a week-over-week story in
 *   the days before `now`: acme gets a new failing sender (Brevo, the last 5 days), globex's
 *   Amazon SES pass rate falls from 100% to under 15% (a broken DKIM key rotation, the last 7 days),
 *   initech's volume is 4× on the last 2 days, and soylent's reports stop (no rows, last 4 days);
 * - the body is streamed in chunks with backpressure, never built as one string;
 * - faults (see `Faults`) are set per server (`setFaults`, `faults` option), per request with a
 *   `faults=` query parameter, or per base URL with a `/_faults/<spec>` path prefix — the last
 *   lets the real extension be pointed at a misbehaving server.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DAY_MS, DEFAULT_KEYS, HISTORY_DAYS, generateDay, organizationFor, type Organization, type WireRow } from './data';
import { Rng, hashSeed } from './rng';
import { BAD_REQUEST_MESSAGE, HOSTILE_STRINGS, fires, parseFaults, type Faults } from './faults';
import { applyRowFaults } from './rowFaults';
import { storyDay } from './story';
import { bodySink, chooseEncoding, type WireFaults } from './wireVariants';

export { BAD_REQUEST_MESSAGE, HOSTILE_STRINGS, organizationFor, parseFaults };
export type { Faults, Schedule } from './faults';

export interface ApiServerOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** API key → organization ids it may read. Default DEFAULT_KEYS. Unknown org ids get generated data too. */
  keys?: Record<string, string[]>;
  /** Rows per organization per day; default varies by organization and weekday (~6–80). */
  rowsPerDay?: number;
  seed?: number;
  faults?: Faults;
  /** The server's "today": history ends here. Default: when the server starts. */
  now?: Date;
  /**
   * Tell the demo's week-over-week story (story.ts) in the days before `now`: a new failing sender,
   * a source whose pass rate drops, a volume spike, reports that stop. Default false: data.ts alone.
   */
  story?: boolean;
  /** A path prefix the API lives under, e.g. `/dmarc` (default none). */
  basePath?: string;
  /**
   * Serve these rows (organization id → rows sorted by date) instead of generated ones: the
   * `--reports DIR` mode (reportFolder.ts). An organization without rows gets an empty list.
   */
  reportRows?: ReadonlyMap<string, WireRow[]>;
  /**
   * Keep the last this-many complete 200 bodies served with no fault at all, and send an identical
   * request (organization, bounds) the same bytes again without rendering them (default 0: none).
   * For bench:panel: a hosted API renders its bodies on its own machine, not on the user's cores,
   * where this server's ~10 s of CPU for a million rows competed with the extension host.
   */
  cacheBodies?: number;
  /** Where the server says what it does beyond its request log (the CLI: stdout). */
  log?: (line: string) => void;
}

export interface RequestLogEntry {
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  /** 0 when the connection was reset without a response. */
  status: number;
  /** Epoch ms when the request arrived. */
  at: number;
  headers: http.IncomingHttpHeaders;
  /** The Content-Encoding of a 200 body, when it was compressed. */
  contentEncoding?: string;
  /** The 200 body was a kept one, sent again (ApiServerOptions.cacheBodies). */
  kept?: boolean;
}

export interface ApiServer {
  /** e.g. http://127.0.0.1:PORT (no trailing slash; includes basePath). */
  url: string;
  port: number;
  host: string;
  keys: Record<string, string[]>;
  now: Date;
  requests: RequestLogEntry[];
  resetRequests(): void;
  /** Replaces the server's faults and restarts their request counters. */
  setFaults(f: Faults): void;
  close(): Promise<void>;
}

export const API_PATH = '/api/public/dmarc-records';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Start of the server-side date check: strict enough to answer 400 for junk. */
function parseQueryDate(s: string): number {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(s)) return NaN;
  // A date-time without a zone is read as UTC, like a date-only value.
  return Date.parse(/T.*(Z|[+-]\d{2}:?\d{2})$/.test(s) || !s.includes('T') ? s : `${s}Z`);
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const keys = opts.keys ?? DEFAULT_KEYS;
  const seed = opts.seed ?? 1;
  const now = opts.now ?? new Date();
  const basePath = (opts.basePath ?? '').replace(/\/+$/, '');
  const requests: RequestLogEntry[] = [];
  let faults: Faults = opts.faults ?? {};
  // Request counters for fault schedules: one for the server's faults, one per ad-hoc spec.
  let serverCount = 0;
  /** Bodies kept (cacheBodies), oldest first. */
  const bodies = new Map<string, Buffer[]>();
  const specCounts = new Map<string, number>();

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"message":"Internal error in the test server"}');
      } else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://localhost');
    const entry: RequestLogEntry = {
      method: req.method ?? 'GET',
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      status: 0,
      at: Date.now(),
      headers: req.headers,
    };
    requests.push(entry);
    const send = (status: number, headers: http.OutgoingHttpHeaders, body: string) => {
      entry.status = status;
      res.writeHead(status, { 'content-length': Buffer.byteLength(body), ...headers });
      res.end(body);
    };
    const sendJson = (status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) =>
      send(status, { 'content-type': 'application/json; charset=utf-8', ...headers }, JSON.stringify(body));
    const auth = req.headers.authorization ?? '';
    const echo = (f: Faults) => (f.echoKey ? ` (Authorization: ${auth})` : '');

    // Path: [basePath] [/_faults/<spec>] /api/public/dmarc-records
    let path = u.pathname;
    if (basePath) {
      if (path !== basePath && !path.startsWith(basePath + '/')) return sendJson(404, { message: `Not found: ${u.pathname}` });
      path = path.slice(basePath.length);
    }
    let adHoc = '';
    const m = /^\/_faults\/([^/]*)(\/.*)$/.exec(path);
    if (m) {
      adHoc = decodeURIComponent(m[1]!);
      path = m[2]!;
    }
    if (path.replace(/\/+$/, '') !== API_PATH) return sendJson(404, { message: `Not found: ${u.pathname}` });
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(405, { message: 'Only GET is supported' }, { allow: 'GET' });

    // Faults of this request and its number under their schedule.
    const q = u.searchParams.get('faults');
    if (q) adHoc = adHoc ? `${adHoc},${q}` : q;
    let f: Faults;
    let n: number;
    if (adHoc) {
      try {
        f = { ...faults, ...parseFaults(adHoc) };
      } catch (e) {
        return sendJson(400, { message: `Bad faults spec: ${(e as Error).message}` });
      }
      n = (specCounts.get(adHoc) ?? 0) + 1;
      specCounts.set(adHoc, n);
    } else {
      f = faults;
      n = ++serverCount;
    }

    if (f.latencyMs) await sleep(f.latencyMs);
    if (fires(f.reset, n)) {
      // An RST rather than a FIN where the platform allows it.
      const s = req.socket as { resetAndDestroy?: () => void } & typeof req.socket;
      if (typeof s.resetAndDestroy === 'function') s.resetAndDestroy();
      else s.destroy();
      return;
    }
    if (fires(f.rateLimit, n)) {
      return sendJson(429, { message: `Rate limit reached${echo(f)}` }, { 'retry-after': f.retryAfter ?? '1' });
    }
    if (fires(f.error500, n)) return sendJson(500, { message: `Internal server error${echo(f)}` });
    if (fires(f.error400, n)) return sendJson(400, { message: `${BAD_REQUEST_MESSAGE}${echo(f)}` });
    if (fires(f.htmlError, n)) {
      return send(
        200,
        { 'content-type': 'text/html; charset=utf-8' },
        `<!DOCTYPE html><html><head><title>Unavailable${echo(f)}</title></head><body><h1>We'll be back soon</h1><p>Maintenance in progress.</p></body></html>`,
      );
    }

    // Authentication, then parameters, then access to the organization.
    const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    const held = bearer !== undefined ? keys[bearer] : undefined;
    if (!held) return sendJson(403, { message: `Forbidden: missing or invalid API key${echo(f)}` });
    const orgId = u.searchParams.get('organizationId') ?? '';
    if (!orgId.trim()) return sendJson(400, { message: `organizationId is required${echo(f)}` });
    const bounds: number[] = [];
    for (const name of ['startDate', 'endDate']) {
      const v = u.searchParams.get(name);
      if (v === null || v === '') return sendJson(400, { message: `${name} is required${echo(f)}` });
      const ms = parseQueryDate(v);
      if (!Number.isFinite(ms)) return sendJson(400, { message: `${name} is not a valid ISO 8601 date: "${v}"${echo(f)}` });
      bounds.push(ms);
    }
    const [start, end] = bounds as [number, number];
    if (end < start) return sendJson(400, { message: `endDate must not be before startDate${echo(f)}` });
    if (!held.includes(orgId)) return sendJson(403, { message: `Forbidden: no access to organization ${orgId}${echo(f)}` });

    entry.status = 200;
    const encoding = chooseEncoding(f.contentEncoding, req.headers['accept-encoding']);
    entry.contentEncoding = encoding;
    await streamRecords(req, res, entry, organizationFor(orgId), start, end, f, n, encoding);
  }

  /** Writes the 200 body row by row in ~64 KB chunks, waiting for 'drain' when the socket is full. */
  async function streamRecords(req: http.IncomingMessage, res: http.ServerResponse, entry: RequestLogEntry, org: Organization, start: number, end: number, f: Faults, n: number, encoding: WireFaults['contentEncoding']) {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', vary: 'accept-encoding', ...(encoding ? { 'content-encoding': encoding } : {}) });
    if (req.method === 'HEAD') return void res.end();
    let closed = false;
    res.on('close', () => (closed = true));
    const { out, flush: flushEncoder } = bodySink(res, encoding);
    // A body kept from before (see ApiServerOptions.cacheBodies): the same bytes, in the same pieces.
    const cacheKey = (opts.cacheBodies ?? 0) > 0 && !encoding && Object.values(f).every((v) => v === undefined) ? `${org.id}|${start}|${end}` : undefined;
    const kept = cacheKey !== undefined ? bodies.get(cacheKey) : undefined;
    const keeping: Buffer[] | undefined = cacheKey !== undefined && !kept ? [] : undefined;
    const write = async (s: string | Buffer): Promise<void> => {
      if (closed || out.write(s)) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          out.off('drain', done);
          res.off('close', done);
          resolve();
        };
        out.on('drain', done);
        res.on('close', done);
      });
    };

    const truncate = fires(f.truncate, n);
    const resetMid = fires(f.resetMidBody, n);
    let written = 0;
    let chunk = f.bareArray ? '[' : '{"status":"success","dmarcRecords":[';
    let first = true;
    let chunks = 0;
    const flush = async () => {
      if (truncate) {
        // A truncated body must be cut mid-JSON: send only the first half of the first chunk.
        written += chunk.length;
        out.end(chunk.slice(0, Math.max(1, Math.floor(chunk.length / 2))));
        closed = true;
        return;
      }
      await write(chunk);
      keeping?.push(Buffer.from(chunk, 'utf8'));
      written += chunk.length;
      chunk = '';
      if (++chunks === 1) {
        await flushEncoder();
        if (resetMid) {
          await sleep(20);
          req.socket.destroy();
          closed = true;
          return;
        }
        if (f.bodyStallMs) await sleep(f.bodyStallMs);
      }
    };

    if (kept) {
      entry.kept = true;
      opts.log?.(`kept body sent: ${cacheKey}`);
      for (const piece of kept) {
        await write(piece);
        if (closed) return;
      }
      return void out.end();
    }

    const nowMs = now.getTime();
    const nowDay = Math.floor(nowMs / DAY_MS);
    const fromReports = opts.reportRows !== undefined;
    // Report files carry their own dates: all of them are served, whatever `now` is.
    const firstDay = fromReports ? 0 : Math.max(Math.floor(start / DAY_MS), nowDay - HISTORY_DAYS);
    const lastDay = fromReports ? 0 : Math.min(Math.floor(end / DAY_MS), nowDay);
    const hi = fromReports ? end : Math.min(end, nowMs);
    for (let day = firstDay; day <= lastDay && !closed; day++) {
      const rows = fromReports
        ? (opts.reportRows!.get(org.id) ?? [])
        : opts.story
          ? storyDay(org, day, nowDay, seed, opts.rowsPerDay)
          : generateDay(org, day, seed, opts.rowsPerDay);
      const fr = new Rng(hashSeed(seed, org.id, day, 'faults'));
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        const ms = Date.parse(row.date);
        if (ms < start || ms > hi) continue;
        chunk += (first ? '' : ',') + JSON.stringify(applyRowFaults(row, f, fr, i));
        first = false;
        if (chunk.length >= 65_536) {
          await flush();
          if (closed) return;
        }
      }
    }
    chunk += f.bareArray ? ']' : ']}';
    await flush();
    if (closed) return;
    out.end();
    if (keeping && cacheKey !== undefined) {
      bodies.set(cacheKey, keeping);
      for (const k of bodies.keys()) if (bodies.size > opts.cacheBodies!) bodies.delete(k);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const hostForUrl = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;

  return {
    url: `http://${hostForUrl}:${addr.port}${basePath}`,
    port: addr.port,
    host: addr.address,
    keys,
    now,
    requests,
    resetRequests: () => void requests.splice(0),
    setFaults: (next: Faults) => {
      faults = next;
      serverCount = 0;
      specCounts.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
