// The API client over real HTTP on loopback against the local API server (no mocked fetch).
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import {
  ApiError,
  USER_AGENT,
  checkBaseUrl,
  fetchDmarcRecords,
  isLoopbackHost,
  parseRetryAfter,
  utcDayRange,
  requestLine,
  type ApiErrorKind,
  type ClientOptions,
  type RequestSummary,
  type RecordsQuery,
} from '../../src/api';
import { parseRecordsBody } from '../../src/api/body';
import { assertRecordsMatch } from './recordMapping';
import { DAY_MS, ORGANIZATIONS, generateDay } from '../server/data';
import { BAD_REQUEST_MESSAGE, HOSTILE_STRINGS, startApiServer, type ApiServer } from '../server/server';

const NOW = new Date('2025-06-15T12:00:00Z');
const DAY = '2025-06-10';
const DAY_INDEX = Date.parse(DAY) / DAY_MS;
const KEY = 'demo-key-5f2c8e7a91d4b036';
const ACME = ORGANIZATIONS.find((o) => o.id === 'acme')!;
/** Small retry delays keep the suite fast. */
const FAST: ClientOptions = { retryBaseMs: 5, timeoutMs: 5000 };

async function expectApiError(p: Promise<unknown>, kind: ApiErrorKind): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${inspect(e)}`);
    assert.equal(e.kind, kind, `kind ${e.kind}: ${e.message}`);
    assert.ok(e.message.length > 0 && e.message.length < 400, 'a short message');
    return e;
  }
  assert.fail(`expected an ApiError of kind ${kind}`);
}

/** A tiny HTTP server for the few cases the API server has no reason to produce (redirects). */
async function miniServer(handler: http.RequestListener): Promise<{ url: string; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const s = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((r) => { s.close(() => r()); s.closeAllConnections(); }),
  };
}

describe('api client over HTTP', () => {
  let server: ApiServer;
  const query = (over: Partial<RecordsQuery> = {}): RecordsQuery => ({
    baseUrl: server.url,
    apiKey: KEY,
    organizationId: 'acme',
    ...utcDayRange(DAY),
    ...over,
  });
  const apiRequests = () => server.requests.filter((r) => r.path.endsWith('/api/public/dmarc-records'));

  before(async () => {
    server = await startApiServer({ now: NOW });
  });
  after(() => server.close());
  beforeEach(() => {
    server.setFaults({});
    server.resetRequests();
  });

  describe('success', () => {
    it('fetches one UTC day: every row of the day, normalised, raw kept as sent', async () => {
      const expected = generateDay(ACME, DAY_INDEX, 1);
      const res = await fetchDmarcRecords(query(), FAST);
      assert.equal(res.records.length, expected.length);
      assert.ok(expected.length > 10);
      assert.deepEqual(res.warnings, []);
      assert.deepEqual(res.rejected, { count: 0, samples: [] });
      const start = Date.parse(`${DAY}T00:00:00.000Z`);
      for (const [i, r] of res.records.entries()) {
        const w = expected[i]!;
        assert.ok(r.dateMs >= start && r.dateMs < start + DAY_MS);
        assert.equal(r.dateMs, Date.parse(r.date));
        assert.equal(r.source, w.source);
        assert.equal(r.visibleFrom, w.visibleFrom);
        assert.deepEqual(r.rdns, w.rdns);
        assert.deepEqual(r.dkims, w.dkims);
        assert.equal(r.to, w.to);
        assert.equal(r.reportId, w.reportId);
        assert.equal(r.raw.from, w.from, 'the extra `from` field is kept in raw');
        assert.deepEqual(r.raw, JSON.parse(JSON.stringify(w)));
      }
    });

    it('maps every field of every row exactly as the contract says, on both normalising paths', async () => {
      const wire = JSON.parse(JSON.stringify(generateDay(ACME, DAY_INDEX, 1))) as Record<string, unknown>[];
      // Over HTTP (ordinary rows: the fast path).
      assertRecordsMatch((await fetchDmarcRecords(query(), FAST)).records, wire);
      // The same rows with rDNS sent as a lone string, which only the schema path accepts.
      const odd = wire.map((w) => ({ ...w, rdns: (w.rdns as string[])[0] ?? '' }));
      const viaSchema = await parseRecordsBody(JSON.stringify({ dmarcRecords: odd }), 'application/json');
      assertRecordsMatch(viaSchema.records, odd);
      // The rows differ where a copy between fields would hide: Return-Path and Header From, To and both.
      assert.ok(wire.some((w) => w.returnPath !== w.visibleFrom) && wire.some((w) => w.to !== undefined && w.to !== w.visibleFrom));
    });

    it('decodes the body as it arrives: a byte order mark is dropped, characters cut between chunks come out whole', async () => {
      const rows = generateDay(ACME, DAY_INDEX, 1).slice(0, 5).map((r, i) => ({ ...r, reporter: `Récepteur ✉ ${i} 😀 Ωmega`, source: `源-${i}` }));
      const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ status: 'success', dmarcRecords: rows }), 'utf8')]);
      // Cut inside the BOM, inside the first emoji (4 bytes) and inside a 3-byte character.
      const emoji = bytes.indexOf(Buffer.from('😀'));
      const cjk = bytes.indexOf(Buffer.from('源'));
      const cuts = [0, 2, emoji + 1, emoji + 3, cjk + 2, bytes.length].sort((a, b) => a - b);
      const mini = await miniServer(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 1; i < cuts.length; i++) {
          res.write(bytes.subarray(cuts[i - 1], cuts[i]));
          await new Promise((r) => setTimeout(r, 15)); // separate chunks on the client's side
        }
        res.end();
      });
      try {
        const res = await fetchDmarcRecords(query({ baseUrl: mini.url }), FAST);
        assert.deepEqual(res.records.map((r) => r.raw), JSON.parse(JSON.stringify(rows)));
        assert.equal(res.records[0]!.reporter, 'Récepteur ✉ 0 😀 Ωmega');
        assert.equal(res.records[4]!.source, '源-4');
      } finally {
        await mini.close();
      }
    });

    it('sends GET /api/public/dmarc-records with the documented query and headers', async () => {
      await fetchDmarcRecords(query(), FAST);
      const [req] = apiRequests();
      assert.ok(req);
      assert.equal(req.method, 'GET');
      assert.equal(req.path, '/api/public/dmarc-records');
      assert.deepEqual(req.query, { organizationId: 'acme', startDate: `${DAY}T00:00:00.000Z`, endDate: `${DAY}T23:59:59.999Z` });
      assert.equal(req.headers.authorization, `Bearer ${KEY}`);
      assert.equal(req.headers.accept, 'application/json');
      assert.equal(req.headers['accept-encoding'], 'gzip, deflate, br');
      assert.equal(req.headers['user-agent'], USER_AGENT);
      assert.match(USER_AGENT, /^dmarc-explorer\/\d+\.\d+\.\d+/);
    });

    it('sends Date and ISO string bounds as ISO 8601 UTC', async () => {
      await fetchDmarcRecords(query({ startDate: '2025-06-10T02:30:00+02:00', endDate: new Date(Date.UTC(2025, 5, 10, 6)) }), FAST);
      const [req] = apiRequests();
      assert.equal(req!.query.startDate, '2025-06-10T00:30:00.000Z');
      assert.equal(req!.query.endDate, '2025-06-10T06:00:00.000Z');
    });

    it('treats both bounds as inclusive (rows exactly at the start and at the end)', async () => {
      const first = `${DAY}T00:00:00.000Z`;
      const rows = generateDay(ACME, DAY_INDEX, 1);
      const atStart = rows.filter((r) => r.date === first).length;
      assert.ok(atStart > 0, 'the test data has rows at the first instant of the day');
      const res = await fetchDmarcRecords(query({ startDate: first, endDate: first }), FAST);
      assert.equal(res.records.length, atStart);
      // A range ending at 00:00:00.000Z of the next day includes that instant too.
      const next = rows.length && generateDay(ACME, DAY_INDEX + 1, 1).filter((r) => r.date === `2025-06-11T00:00:00.000Z`).length;
      const both = await fetchDmarcRecords(query({ startDate: first, endDate: '2025-06-11T00:00:00.000Z' }), FAST);
      assert.equal(both.records.length, rows.length + next);
    });

    it('accepts a base URL with or without a trailing slash, with a path prefix, or the full endpoint', async () => {
      const prefixed = await startApiServer({ now: NOW, basePath: '/dmarc/v1' });
      try {
        const counts: number[] = [];
        for (const baseUrl of [prefixed.url, `${prefixed.url}/`, `${prefixed.url}//`, `${prefixed.url}/api/public/dmarc-records`]) {
          counts.push((await fetchDmarcRecords(query({ baseUrl }), FAST)).records.length);
        }
        assert.equal(new Set(counts).size, 1);
        assert.ok(counts[0]! > 0);
        assert.ok(prefixed.requests.every((r) => r.path === '/dmarc/v1/api/public/dmarc-records' && r.status === 200));
        const plain = (await fetchDmarcRecords(query({ baseUrl: `${server.url}/` }), FAST)).records.length;
        assert.equal(plain, counts[0]);
      } finally {
        await prefixed.close();
      }
    });

    it('tolerates the shape variants of §2.5: bare array, `from` without visibleFrom, rdns as a string', async () => {
      const normal = await fetchDmarcRecords(query(), FAST);
      server.setFaults({ bareArray: true, fromOnly: 1, rdnsString: 1 });
      const odd = await fetchDmarcRecords(query(), FAST);
      assert.equal(odd.records.length, normal.records.length);
      assert.deepEqual(odd.rejected, { count: 0, samples: [] });
      for (const [i, r] of odd.records.entries()) {
        const n = normal.records[i]!;
        assert.equal(r.visibleFrom, n.visibleFrom, 'visibleFrom taken from `from`');
        assert.equal('visibleFrom' in r.raw, false);
        assert.deepEqual(r.rdns, n.rdns.slice(0, 1), 'a lone string becomes a one-element list, "" an empty one');
        assert.equal(typeof r.raw.rdns, 'string');
      }
      // The day has rows with no PTR record and rows with one, so both string forms were sent.
      assert.ok(odd.records.some((r) => r.raw.rdns === '' && r.rdns.length === 0));
      assert.ok(odd.records.some((r) => r.raw.rdns !== '' && r.rdns.length === 1));
    });

    it('keeps rows with values outside the enums and reports one warning per field and value', async () => {
      const normal = await fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-10') }), FAST);
      server.setFaults({ unknownEnums: 0.3 });
      const res = await fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-10') }), FAST);
      assert.equal(res.records.length, normal.records.length, 'no row dropped');
      assert.ok(res.warnings.length >= 5);
      const keys = new Set(res.warnings.map((w) => `${w.field}=${w.value}`));
      assert.equal(keys.size, res.warnings.length, 'aggregated: one entry per field+value');
      assert.ok(res.warnings.some((w) => w.field === 'dkims[].result'));
      for (const w of res.warnings) {
        assert.ok(w.message.includes(w.field) && w.message.includes(`"${w.value}"`), w.message);
        const rec = res.records[w.firstIndex]!;
        const actual = w.field === 'dkims[].result' ? rec.dkims.map((d) => d.result) : [(rec as unknown as Record<string, string>)[w.field]];
        assert.ok(actual.includes(w.value), 'firstIndex points at a row carrying the value');
      }
      const counted = res.warnings.reduce((n, w) => n + w.count, 0);
      const changed = res.records.filter((r, i) => JSON.stringify(r.raw) !== JSON.stringify(normal.records[i]!.raw)).length;
      assert.equal(counted, changed);
    });

    it('leaves out malformed rows, keeps every valid one and summarises the rejects', async () => {
      const normal = await fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-05') }), FAST);
      server.setFaults({ badRows: 0.2 });
      const res = await fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-05') }), FAST);
      assert.ok(res.rejected.count > 5);
      assert.equal(res.records.length + res.rejected.count, normal.records.length);
      assert.equal(res.rejected.samples.length, 5);
      const kept = new Set(res.records.map((r) => JSON.stringify(r.raw)));
      assert.equal(normal.records.filter((r) => kept.has(JSON.stringify(r.raw))).length, res.records.length, 'kept rows are untouched');
      let last = -1;
      for (const s of res.rejected.samples) {
        assert.ok(s.index > last, 'samples in row order');
        last = s.index;
        assert.match(s.reason, /missing|should be|not an object|not an ISO 8601 date/);
      }
    });

    it('keeps hostile strings byte for byte (they are data, escaping is the renderer’s job)', async () => {
      server.setFaults({ hostileStrings: true });
      const res = await fetchDmarcRecords(query(), FAST);
      assert.equal(res.records.length, generateDay(ACME, DAY_INDEX, 1).length);
      assert.ok(res.records.every((r) => HOSTILE_STRINGS.some((h) => r.source.startsWith(h))));
      assert.ok(res.records.some((r) => r.reporter.startsWith('<img src=x onerror=alert(1)>')));
      assert.ok(res.records.some((r) => r.visibleFrom.startsWith('</script>')));
    });
  });

  describe('HTTP errors', () => {
    it('400 → bad-request with the server’s own message, not retried', async () => {
      server.setFaults({ error400: true });
      const e = await expectApiError(fetchDmarcRecords(query(), FAST), 'bad-request');
      assert.equal(e.message, BAD_REQUEST_MESSAGE);
      assert.equal(e.status, 400);
      assert.equal(apiRequests().length, 1);
    });

    it('403 → forbidden for a wrong key and for an organization the key does not hold, not retried', async () => {
      const wrong = await expectApiError(fetchDmarcRecords(query({ apiKey: 'not-a-valid-key-123' }), FAST), 'forbidden');
      assert.equal(wrong.status, 403);
      const notHeld = await expectApiError(fetchDmarcRecords(query({ organizationId: 'hooli' }), FAST), 'forbidden');
      assert.match(notHeld.message, /hooli/);
      assert.match(notHeld.message, /key/i);
      assert.equal(apiRequests().length, 2);
    });

    it('404 → not-found pointing at the base URL, not retried', async () => {
      const e = await expectApiError(fetchDmarcRecords(query({ baseUrl: `${server.url}/wrong/prefix` }), FAST), 'not-found');
      assert.match(e.message, /base URL/);
      assert.equal(e.status, 404);
      assert.equal(server.requests.length, 1);
    });

    it('a missing key or one with a line break fails before any request', async () => {
      await expectApiError(fetchDmarcRecords(query({ apiKey: '  ' }), FAST), 'forbidden');
      await expectApiError(fetchDmarcRecords(query({ apiKey: 'abc\ndef-123' }), FAST), 'forbidden');
      assert.equal(server.requests.length, 0);
    });

    it('bad dates fail before any request', async () => {
      await expectApiError(fetchDmarcRecords(query({ startDate: 'yesterday' }), FAST), 'bad-request');
      await expectApiError(fetchDmarcRecords(query({ startDate: new Date(NaN) }), FAST), 'bad-request');
      await expectApiError(fetchDmarcRecords(query({ startDate: '2025-06-11', endDate: '2025-06-10' }), FAST), 'bad-request');
      assert.equal(server.requests.length, 0);
    });
  });

  describe('the one log line per request', () => {
    it('says organization, range, status, rows, bytes, duration and retries; never the key', async () => {
      server.setFaults({ error500: { first: 1 } });
      const seen: RequestSummary[] = [];
      const res = await fetchDmarcRecords(query(), { ...FAST, onDone: (s) => seen.push(s) });
      assert.equal(seen.length, 1, 'once per fetch');
      const s = seen[0]!;
      assert.deepEqual(
        { org: s.organizationId, start: s.start, end: s.end, ok: s.ok, status: s.status, rows: s.rows, retries: s.retries },
        { org: 'acme', start: `${DAY}T00:00:00.000Z`, end: `${DAY}T23:59:59.999Z`, ok: true, status: 200, rows: res.records.length, retries: 1 },
      );
      assert.ok(s.bytes! > 1000 && s.ms >= 0);
      const line = requestLine(s);
      assert.match(line, new RegExp(`^GET acme ${DAY}…${DAY}: 200, ${res.records.length.toLocaleString('en')} rows, [\\d.]+ KB, [\\d,]+ ms, 1 retry$`));
      assert.ok(!line.includes(KEY));
    });

    it('a refused request: failed, with its kind and status', async () => {
      const seen: RequestSummary[] = [];
      await expectApiError(fetchDmarcRecords(query({ organizationId: 'hooli' }), { ...FAST, onDone: (s) => seen.push(s) }), 'forbidden');
      assert.equal(seen.length, 1);
      assert.deepEqual([seen[0]!.ok, seen[0]!.status, seen[0]!.error, seen[0]!.rows], [false, 403, 'forbidden', undefined]);
      assert.match(requestLine(seen[0]!), /^GET hooli 2025-06-10…2025-06-10: failed \(forbidden, HTTP 403\), [\d,]+ ms$/);
      // Refused before any request: no status, and a key typed into the organization field is not repeated.
      await expectApiError(fetchDmarcRecords(query({ startDate: 'yesterday', organizationId: KEY }), { ...FAST, onDone: (s) => seen.push(s) }), 'bad-request');
      assert.equal(seen[1]!.status, undefined);
      assert.ok(!requestLine(seen[1]!).includes(KEY), requestLine(seen[1]!));
    });
  });

  describe('retries', () => {
    it('5xx: retried with backoff, then succeeds', async () => {
      server.setFaults({ error500: { first: 2 } });
      const retries: { attempt: number; delayMs: number; reason: string }[] = [];
      const res = await fetchDmarcRecords(query(), { ...FAST, onRetry: (r) => retries.push(r) });
      assert.ok(res.records.length > 0);
      assert.equal(apiRequests().length, 3);
      assert.deepEqual(retries.map((r) => r.attempt), [1, 2]);
      assert.match(retries[0]!.reason, /500/);
    });

    it('5xx: bounded (default 2 retries), then `server`; retries: 0 tries once', async () => {
      server.setFaults({ error500: true });
      const e = await expectApiError(fetchDmarcRecords(query(), FAST), 'server');
      assert.equal(e.status, 500);
      assert.equal(apiRequests().length, 3);
      server.resetRequests();
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, retries: 0 }), 'server');
      assert.equal(apiRequests().length, 1);
    });

    it('backoff is exponential with jitter', async () => {
      server.setFaults({ error500: true });
      const delays: number[] = [];
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, retries: 3, retryBaseMs: 40, onRetry: (r) => delays.push(r.delayMs) }), 'server');
      assert.equal(delays.length, 3);
      delays.forEach((d, i) => assert.ok(d >= 20 * 2 ** i && d <= 40 * 2 ** i, `delay ${i}: ${d}`));
    });

    it('429: waits as long as Retry-After (seconds) says, then succeeds', async () => {
      server.setFaults({ rateLimit: { first: 1 }, retryAfter: '1' });
      const retries: number[] = [];
      const t0 = Date.now();
      await fetchDmarcRecords(query(), { ...FAST, onRetry: (r) => retries.push(r.delayMs) });
      assert.deepEqual(retries, [1000]);
      assert.ok(Date.now() - t0 >= 950);
      assert.equal(apiRequests().length, 2);
    });

    it('429: Retry-After as an HTTP date', async () => {
      server.setFaults({ rateLimit: { first: 1 }, retryAfter: new Date(Date.now() + 1000).toUTCString() });
      const retries: number[] = [];
      await fetchDmarcRecords(query(), { ...FAST, onRetry: (r) => retries.push(r.delayMs) });
      assert.equal(retries.length, 1);
      assert.ok(retries[0]! >= 0 && retries[0]! <= 1000, String(retries[0]));
      assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('2015-10-21T07:27:00Z')), 60_000);
      assert.equal(parseRetryAfter('120'), 120_000);
      assert.equal(parseRetryAfter('soon'), undefined);
    });

    it('429: a Retry-After beyond the cap fails at once with rate-limited and the wait', async () => {
      server.setFaults({ rateLimit: true, retryAfter: '3600' });
      const t0 = Date.now();
      const e = await expectApiError(fetchDmarcRecords(query(), FAST), 'rate-limited');
      assert.ok(Date.now() - t0 < 1000);
      assert.equal(e.retryAfterMs, 3_600_000);
      assert.equal(e.status, 429);
      assert.match(e.message, /1 h/);
      assert.equal(apiRequests().length, 1);
    });

    it('429 every time: rate-limited after the bounded retries', async () => {
      server.setFaults({ rateLimit: true, retryAfter: '0' });
      await expectApiError(fetchDmarcRecords(query(), FAST), 'rate-limited');
      assert.equal(apiRequests().length, 3);
    });

    it('connection reset: retried; every time → network', async () => {
      server.setFaults({ reset: { first: 1 } });
      const res = await fetchDmarcRecords(query(), FAST);
      assert.ok(res.records.length > 0);
      assert.equal(apiRequests().length, 2);
      server.setFaults({ reset: true });
      server.resetRequests();
      const e = await expectApiError(fetchDmarcRecords(query(), FAST), 'network');
      assert.match(e.message, /closed unexpectedly/);
      assert.equal(apiRequests().length, 3);
    });

    it('connection lost in the middle of the body → network', async () => {
      server.setFaults({ resetMidBody: true });
      await expectApiError(fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-10') }), { ...FAST, retries: 0 }), 'network');
    });

    it('connection refused → network', async () => {
      const gone = await startApiServer();
      const url = gone.url;
      await gone.close();
      const e = await expectApiError(fetchDmarcRecords(query({ baseUrl: url }), { ...FAST, retries: 1 }), 'network');
      assert.match(e.message, /refused/);
    });
  });

  describe('timeout and cancellation', () => {
    it('timeout before the headers → timeout, not retried', async () => {
      server.setFaults({ latencyMs: 600 });
      const t0 = Date.now();
      const e = await expectApiError(fetchDmarcRecords(query(), { ...FAST, timeoutMs: 100 }), 'timeout');
      assert.ok(Date.now() - t0 < 500);
      assert.match(e.message, /shorter range/);
      assert.equal(apiRequests().length, 1);
    });

    it('timeout while the body is still arriving → timeout', async () => {
      server.setFaults({ bodyStallMs: 600 });
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, timeoutMs: 150 }), 'timeout');
    });

    it('an aborted signal cancels a request in flight at once', async () => {
      server.setFaults({ latencyMs: 2000 });
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 50);
      const t0 = Date.now();
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, signal: ac.signal }), 'cancelled');
      assert.ok(Date.now() - t0 < 500);
    });

    it('cancels during a retry wait', async () => {
      server.setFaults({ error500: true });
      const ac = new AbortController();
      const t0 = Date.now();
      const p = fetchDmarcRecords(query(), { ...FAST, retryBaseMs: 20_000, signal: ac.signal, onRetry: () => setTimeout(() => ac.abort(), 20) });
      await expectApiError(p, 'cancelled');
      assert.ok(Date.now() - t0 < 1000);
      assert.equal(apiRequests().length, 1);
    });

    it('an already aborted signal sends nothing', async () => {
      const ac = new AbortController();
      ac.abort();
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, signal: ac.signal }), 'cancelled');
      assert.equal(server.requests.length, 0);
    });
  });

  describe('invalid responses', () => {
    it('an HTML page with status 200 → invalid-response naming the type and quoting the start', async () => {
      server.setFaults({ htmlError: true });
      const e = await expectApiError(fetchDmarcRecords(query(), FAST), 'invalid-response');
      assert.match(e.message, /text\/html/);
      assert.ok(e.message.includes('"<!DOCTYPE html><html><head><title>Unavailable'), e.message);
      assert.doesNotMatch(e.message, /JSON\.parse|Unexpected token|SyntaxError|at position|\n\s+at /);
      assert.equal(apiRequests().length, 1, 'not retried');
    });

    it('a truncated JSON body → invalid-response', async () => {
      server.setFaults({ truncate: true });
      const e = await expectApiError(fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-10') }), FAST), 'invalid-response');
      assert.match(e.message, /application\/json/);
      assert.match(e.message, /cut off/);
      assert.ok(e.message.includes('starts with "{\\"status\\"') || e.message.includes('starts with "{"status"'), e.message);
      assert.doesNotMatch(e.message, /JSON\.parse|Unexpected|SyntaxError/);
    });
  });

  describe('base URL safety', () => {
    it('plain http to a non-loopback host → insecure-url before any byte leaves', async () => {
      // ::ffff:127.0.0.1 reaches this machine but is not one of the loopback names we allow, so
      // if the check were missing the request would land on our server.
      const mapped = `http://[::ffff:127.0.0.1]:${server.port}`;
      await expectApiError(fetchDmarcRecords(query({ baseUrl: mapped }), FAST), 'insecure-url');
      await expectApiError(fetchDmarcRecords(query({ baseUrl: 'http://api.example.com' }), FAST), 'insecure-url');
      await expectApiError(fetchDmarcRecords(query({ baseUrl: `http://user:pw@127.0.0.1:${server.port}` }), FAST), 'insecure-url');
      assert.equal(server.requests.length, 0);
      await fetchDmarcRecords(query({ baseUrl: `http://localhost:${server.port}` }), FAST);
      assert.equal(server.requests.length, 1, 'localhost is fine');
    });

    it('checkBaseUrl explains what is wrong, or returns undefined', () => {
      for (const ok of ['https://api.example.com', 'https://api.example.com/prefix/', 'http://localhost:8787', 'http://127.0.0.1:8787/', 'http://127.8.9.10', 'http://[::1]:8787']) {
        assert.equal(checkBaseUrl(ok), undefined, ok);
      }
      const cases: [string, RegExp][] = [
        ['', /Enter the base URL/],
        ['api.example.com', /not a valid URL/],
        ['ftp://api.example.com', /https:\/\//],
        ['http://api.example.com', /unencrypted.*api\.example\.com/],
        ['http://192.168.1.10:8787', /unencrypted/],
        ['http://localhost.evil.com', /unencrypted/],
        ['http://127.0.0.1.nip.io', /unencrypted/],
        ['https://user:secret@api.example.com', /user name or password/],
        ['https://api.example.com/?x=1', /"\?" or "#"/],
      ];
      for (const [url, re] of cases) assert.match(checkBaseUrl(url) ?? 'accepted', re, url);
    });

    it('isLoopbackHost knows localhost, 127.0.0.0/8 and ::1 in their usual spellings', () => {
      for (const h of ['localhost', 'LOCALHOST', 'localhost.', '127.0.0.1', '127.1', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1']) assert.ok(isLoopbackHost(h), h);
      for (const h of ['example.com', '128.0.0.1', '10.0.0.1', '::2', '::ffff:7f00:1', 'localhost.example', '127.0.0.1.nip.io', '']) assert.ok(!isLoopbackHost(h), h);
    });

    it('follows a redirect on the same host and port, refuses one to another host or port without sending the key there', async () => {
      const same = await miniServer(async (req, res) => {
        if (!req.url!.startsWith('/moved/')) return void res.writeHead(301, { location: `/moved${req.url}` }).end();
        // The moved path answers with what the API server answers (the key passed on as it came).
        const r = await fetch(`${server.url}${req.url!.slice('/moved'.length)}`, { headers: { authorization: String(req.headers.authorization) } });
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? '' }).end(Buffer.from(await r.arrayBuffer()));
      });
      try {
        const res = await fetchDmarcRecords(query({ baseUrl: same.url }), FAST);
        assert.ok(res.records.length > 0);
        assert.equal(apiRequests().length, 1);
      } finally {
        await same.close();
      }
      server.resetRequests();
      // Another port of the same machine is another server, maybe anyone's (issue 14).
      const port = await miniServer((req, res) => void res.writeHead(307, { location: `${server.url}${req.url}` }).end());
      try {
        const e = await expectApiError(fetchDmarcRecords(query({ baseUrl: port.url }), FAST), 'not-found');
        assert.match(e.message, new RegExp(`redirected to 127\\.0\\.0\\.1:${server.port}`));
        assert.equal(server.requests.length, 0, 'the key never reached the other port');
      } finally {
        await port.close();
      }
      const other = await miniServer((req, res) => {
        res.writeHead(302, { location: `http://localhost:${server.port}${req.url}` }).end();
      });
      try {
        const e = await expectApiError(fetchDmarcRecords(query({ baseUrl: other.url }), FAST), 'not-found');
        assert.match(e.message, /redirected to localhost/);
        assert.equal(server.requests.length, 0, 'the key never reached the other host');
      } finally {
        await other.close();
      }
      const insecure = await miniServer((_req, res) => void res.writeHead(302, { location: 'http://api.example.com/x' }).end());
      try {
        await expectApiError(fetchDmarcRecords(query({ baseUrl: insecure.url }), FAST), 'insecure-url');
      } finally {
        await insecure.close();
      }
    });
  });

  describe('the API key stays secret', () => {
    const SECRET = 'sk_live_7Qx9Vb2Lm4Np8Rt6Zw3Yc1Kd';
    let echo: ApiServer;
    before(async () => {
      // This server quotes the Authorization header in its error bodies and HTML page.
      echo = await startApiServer({ now: NOW, keys: { [SECRET]: ['acme'] }, faults: { echoKey: true } });
    });
    after(() => echo.close());

    it('no error message, stack, inspected error or log line contains the key (or a piece of it)', async () => {
      const lines: string[] = [];
      const errors: ApiError[] = [];
      const opts = (o: ClientOptions = {}): ClientOptions => ({ ...FAST, log: (l) => lines.push(l), onRetry: (r) => lines.push(r.reason), ...o });
      const q = (over: Partial<RecordsQuery> = {}) => query({ baseUrl: echo.url, apiKey: SECRET, ...over });
      const scenarios: [ApiErrorKind, () => Promise<unknown>][] = [
        ['forbidden', () => fetchDmarcRecords(q({ organizationId: 'globex' }), opts())],
        ['bad-request', () => { echo.setFaults({ echoKey: true, error400: true }); return fetchDmarcRecords(q(), opts()); }],
        ['server', () => { echo.setFaults({ echoKey: true, error500: true }); return fetchDmarcRecords(q(), opts()); }],
        ['rate-limited', () => { echo.setFaults({ echoKey: true, rateLimit: true, retryAfter: '0' }); return fetchDmarcRecords(q(), opts()); }],
        ['network', () => { echo.setFaults({ echoKey: true, reset: true }); return fetchDmarcRecords(q(), opts()); }],
        ['timeout', () => { echo.setFaults({ echoKey: true, latencyMs: 300 }); return fetchDmarcRecords(q(), opts({ timeoutMs: 50 })); }],
        ['invalid-response', () => { echo.setFaults({ echoKey: true, htmlError: true }); return fetchDmarcRecords(q(), opts()); }],
        ['invalid-response', () => { echo.setFaults({ echoKey: true, truncate: true }); return fetchDmarcRecords(q(), opts()); }],
        ['insecure-url', () => fetchDmarcRecords(q({ baseUrl: 'http://api.example.com' }), opts())],
        ['forbidden', () => fetchDmarcRecords(q({ apiKey: `${SECRET}\nX-Evil: 1` }), opts())],
        ['cancelled', () => { const ac = new AbortController(); ac.abort(); return fetchDmarcRecords(q(), opts({ signal: ac.signal })); }],
      ];
      for (const [kind, run] of scenarios) errors.push(await expectApiError(run(), kind));
      // The echo really happened: the server's own bodies did contain the key.
      echo.setFaults({ echoKey: true, error400: true });
      const raw = await (await fetch(`${echo.url}/api/public/dmarc-records`, { headers: { authorization: `Bearer ${SECRET}` } })).text();
      assert.ok(raw.includes(SECRET));
      assert.ok(errors.some((e) => e.message.includes('[redacted]')), 'an echoed key was replaced');
      assert.ok(lines.length > 10);
      const pieces = [SECRET, SECRET.slice(0, 14), SECRET.slice(-14)];
      for (const e of errors) {
        for (const text of [e.message, String(e), e.stack ?? '', inspect(e, { depth: 5 }), JSON.stringify(e)]) {
          for (const p of pieces) assert.ok(!text.includes(p), `${e.kind} leaks the key: ${text}`);
        }
        assert.equal((e as { cause?: unknown }).cause, undefined);
      }
      for (const l of lines) for (const p of pieces) assert.ok(!l.includes(p), `log line leaks the key: ${l}`);
    });
  });
});
