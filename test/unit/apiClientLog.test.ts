// The client's account of each fetch, exactly (its log lines, its callbacks and its summary) and
// its edges: what it refuses before sending anything, redirects by status and target, the wait
// between retries, cancellation at each point, and the listeners and timers it leaves behind.
// Over real HTTP on loopback, against small servers each test sets up for itself.
import { strict as assert } from 'node:assert';
import { getEventListeners } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, fetchDmarcRecords, type ClientOptions, type RecordsQuery } from '../../src/api';
import type { RequestSummary } from '../../src/api/requestLog';
import { generateDay, ORGANIZATIONS } from '../server/data';

const KEY = 'k3y-Log-5f2c8e7a91d4b036';
const ROWS = generateDay(ORGANIZATIONS[0]!, Date.UTC(2026, 10, 16) / 86_400_000, 1).slice(0, 3);
const BODY = JSON.stringify({ status: 'success', dmarcRecords: ROWS });

type Step = (req: http.IncomingMessage, res: http.ServerResponse, url: string) => void;

/** A server answering request n with steps[n] (the last step repeats). */
async function serve(steps: Step[]): Promise<{ url: string; host: string; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const s = http.createServer((req, res) => {
    hits.push(`${req.headers.authorization} ${req.url}`);
    steps[Math.min(hits.length, steps.length) - 1]!(req, res, url);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const host = `127.0.0.1:${(s.address() as AddressInfo).port}`;
  const url = `http://${host}`;
  return { url, host, hits, close: () => new Promise<void>((r) => { s.close(() => r()); s.closeAllConnections(); }) };
}

/** 200 with the three rows, in three writes a little apart (several reads of the body). */
const ok: Step = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const third = Math.ceil(BODY.length / 3);
  res.write(BODY.slice(0, third));
  setTimeout(() => res.write(BODY.slice(third, 2 * third)), 30);
  setTimeout(() => res.end(BODY.slice(2 * third)), 60);
};
const status = (code: number, headers: Record<string, string> = {}, body = ''): Step => (_req, res) => void res.writeHead(code, headers).end(body);

const query = (baseUrl: string, extra: Partial<RecordsQuery> = {}): RecordsQuery => ({
  baseUrl, apiKey: KEY, organizationId: 'acme', startDate: '2026-11-16', endDate: '2026-11-16T23:59:59.999Z', ...extra,
});

/** Runs a fetch with every callback recorded; log lines with their times replaced by N (each checked plausible first). */
async function recorded(q: RecordsQuery, options: ClientOptions = {}) {
  const lines: string[] = [];
  const events: unknown[] = [];
  const done: RequestSummary[] = [];
  const ms = (n: number) => assert.ok(Number.isInteger(n) && n >= 0 && n < 60_000, `${n} ms`);
  const opts: ClientOptions = {
    retryBaseMs: 1, timeoutMs: 20_000, ...options,
    log: (l) => lines.push(l.replace(/(\d+) ms/g, (_, n: string) => (ms(Number(n)), 'N ms'))),
    onFirstByte: (i) => (ms(i.ms), events.push(['first byte', i.status])),
    onResponse: (i) => (ms(i.ms), events.push(['response', i.status, i.bytes]), options.onResponse?.(i)),
    onRetry: (i) => (events.push(['retry', i.attempt, i.delayMs, i.reason]), options.onRetry?.(i)),
    onDone: (s) => (ms(s.ms), done.push({ ...s, ms: 0 })),
  };
  let result: Awaited<ReturnType<typeof fetchDmarcRecords>> | undefined;
  let error: ApiError | undefined;
  try {
    result = await fetchDmarcRecords(q, opts);
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    error = e;
  }
  return { result, error, lines, events, done };
}

const summary = (extra: Partial<RequestSummary>): RequestSummary => ({
  organizationId: 'acme', start: '2026-11-16T00:00:00.000Z', end: '2026-11-16T23:59:59.999Z', ok: true, status: 200, rows: 3, rejected: 0,
  bytes: Buffer.byteLength(BODY), ms: 0, retries: 0, error: undefined, ...extra,
});

describe('api client: what it says about each fetch', () => {
  it('a success: the request, the body’s size, the check; first byte once, the response, the summary', async () => {
    const s = await serve([ok]);
    try {
      const r = await recorded(query(s.url, { apiKey: `  ${KEY} `, organizationId: ' acme ' }));
      assert.equal(r.result?.records.length, 3);
      const url = `${s.url}/api/public/dmarc-records?organizationId=acme&startDate=2026-11-16T00%3A00%3A00.000Z&endDate=2026-11-16T23%3A59%3A59.999Z`;
      assert.deepEqual(s.hits, [`Bearer ${KEY} ${url.slice(s.url.length)}`], 'key and organization sent trimmed');
      const kb = `${(Buffer.byteLength(BODY) / 1024).toFixed(1)} KB`;
      assert.deepEqual(r.lines, [`GET ${url}`, `200 application/json, ${kb} in N ms`, '3 records, 0 rejected, 0 warnings; checked in N ms']);
      assert.deepEqual(r.events, [['first byte', 200], ['response', 200, Buffer.byteLength(BODY)]]);
      assert.deepEqual(r.done, [summary({})]);
    } finally {
      await s.close();
    }
  });

  it('a body without a content type says so', async () => {
    const s = await serve([(_req, res) => void res.end(BODY)]);
    try {
      const r = await recorded(query(s.url));
      assert.equal(r.result?.records.length, 3);
      assert.match(r.lines[1]!, /^200 no content type, /);
    } finally {
      await s.close();
    }
  });

  it('a failure, retried: each answer, each retry with its wait and reason, then the result; the summary counts the retries', async () => {
    const s = await serve([status(503, { 'retry-after': '0' }), status(500), ok]);
    const random = Math.random;
    Math.random = () => 0.9999;
    try {
      const r = await recorded(query(s.url), { retryBaseMs: 20, maxRetryAfterMs: 0 });
      assert.equal(r.result?.records.length, 3);
      const said = (c: number) => `The server had a problem (HTTP ${c}). Try again later.`;
      assert.deepEqual(r.lines.filter((l) => !l.startsWith('GET ')), [
        `503 from ${s.host} after N ms`, `retry 1 of 2 in N ms: ${said(503)}`,
        `500 from ${s.host} after N ms`, `retry 2 of 2 in N ms: ${said(500)}`,
        r.lines.at(-2), '3 records, 0 rejected, 0 warnings; checked in N ms',
      ]);
      // Retry-After 0 is waited for (not over the cap of 0); then backoff 20 · 2¹ ms, half fixed, half random.
      assert.deepEqual(r.events.slice(0, 2), [['retry', 1, 0, said(503)], ['retry', 2, 40, said(500)]]);
      assert.deepEqual(r.done, [summary({ retries: 2 })]);
    } finally {
      Math.random = random;
      await s.close();
    }
  });

  it('a refusal: the answer, then the failure; the summary has the status and the kind, no rows', async () => {
    const s = await serve([status(403)]);
    try {
      const r = await recorded(query(s.url));
      assert.equal(r.error?.kind, 'forbidden');
      assert.deepEqual(r.lines.slice(1), [`403 from ${s.host} after N ms`, `failed (forbidden): ${r.error!.message}`]);
      assert.deepEqual(r.done, [summary({ ok: false, status: 403, rows: undefined, rejected: undefined, bytes: undefined, error: 'forbidden' })]);
    } finally {
      await s.close();
    }
  });

  it('refused before any byte leaves, each with its sentence; the summary shows what was given, cut and without the key', async () => {
    const s = await serve([ok]);
    try {
      const cases: [Partial<RecordsQuery>, string, string][] = [
        [{ baseUrl: undefined as unknown as string }, 'not-found', 'Enter the base URL of the API, for example https://api.example.com.'],
        [{ apiKey: undefined as unknown as string }, 'forbidden', 'No API key is set. Enter the key you got from the provider.'],
        [{ organizationId: undefined as unknown as string }, 'bad-request', 'No organization ID is set.'],
        [{ organizationId: '   ' }, 'bad-request', 'No organization ID is set.'],
        [{ startDate: 'soon' }, 'bad-request', 'The start date is not a valid date.'],
        [{ endDate: 'later' }, 'bad-request', 'The end date is not a valid date.'],
      ];
      for (const [change, kind, message] of cases) {
        const r = await recorded({ ...query(s.url), ...change });
        assert.deepEqual([r.error?.kind, r.error?.message], [kind, message], JSON.stringify(change));
        assert.deepEqual(r.lines, [`failed (${kind}): ${message}`]);
        assert.equal(r.done[0]!.organizationId, change.organizationId === undefined && 'organizationId' in change ? '' : String(change.organizationId ?? 'acme').trim());
      }
      const long = `x${KEY}${'y'.repeat(200)}`;
      const r = await recorded(query(s.url, { organizationId: ` ${'o'.repeat(120)} `, startDate: long, endDate: new Date(NaN) }));
      assert.equal(r.error?.message, 'The start date is not a valid date.');
      assert.deepEqual(r.done, [summary({ organizationId: 'o'.repeat(100), start: `x[redacted]${'y'.repeat(15)}`, end: 'Invalid Date', ok: false, status: undefined, rows: undefined, rejected: undefined, bytes: undefined, error: 'bad-request' })]);
      // Not even a string: whatever breaks is an unexpected error, still an ApiError.
      const odd = await recorded(query(42 as unknown as string));
      assert.equal(odd.error?.kind, 'network');
      assert.match(odd.error!.message, /^Unexpected error: \S/);
      assert.deepEqual(s.hits, []);
    } finally {
      await s.close();
    }
  });

  it('the last line of defence: an ApiError carrying the key leaves without it, its kind, status and wait kept', async () => {
    const s = await serve([ok]);
    try {
      const r = await recorded(query(s.url), {
        retries: 0,
        onResponse: () => {
          throw new ApiError('server', `echo of Bearer ${KEY}`, { status: 502, retryAfterMs: 7 });
        },
      });
      assert.deepEqual([r.error?.kind, r.error?.message, r.error?.status, r.error?.retryAfterMs], ['server', 'echo of Bearer [redacted]', 502, 7]);
      assert.ok(!r.lines.join('\n').includes(KEY));
    } finally {
      await s.close();
    }
  });

  it('a consumer of streamed rows that throws is logged, and the fetch goes on', async () => {
    const s = await serve([ok]);
    try {
      const r = await recorded(query(s.url), { onRows: () => { throw new Error('boom'); } });
      assert.equal(r.result?.records.length, 3);
      assert.ok(r.lines.includes('a consumer of streamed rows failed: boom'), r.lines.join('\n'));
    } finally {
      await s.close();
    }
  });

  it('cancelled before it starts: nothing sent, nothing logged but the failure; cancelled while waiting to retry: no second request', async () => {
    const s = await serve([status(500), ok]);
    try {
      const before = new AbortController();
      before.abort();
      const r = await recorded(query(s.url), { signal: before.signal });
      assert.equal(r.error?.kind, 'cancelled');
      assert.deepEqual(r.lines, [`failed (cancelled): ${r.error!.message}`]);
      assert.deepEqual(s.hits, []);
      const during = new AbortController();
      const r2 = await recorded(query(s.url), { signal: during.signal, retryBaseMs: 60_000, onRetry: () => during.abort() });
      assert.equal(r2.error?.kind, 'cancelled');
      assert.equal(s.hits.length, 1);
      assert.equal(r2.lines.filter((l) => l.startsWith('GET ')).length, 1);
      assert.equal(getEventListeners(during.signal, 'abort').length, 0, 'no listener left on the caller’s signal');
    } finally {
      await s.close();
    }
  });

  it('leaves no listener on the caller’s signal, after a success, a failure or a retry', async () => {
    const s = await serve([ok, status(404), status(500), ok]);
    try {
      for (const want of [undefined, 'not-found', undefined]) {
        const ac = new AbortController();
        const r = await recorded(query(s.url), { signal: ac.signal });
        assert.equal(r.error?.kind, want);
        assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
      }
      assert.equal(s.hits.length, 4, 'the last one after a retry (its wait is over, its listener gone too)');
    } finally {
      await s.close();
    }
  });

  it('redirects: followed only from a 3xx with a Location, to the same host; refused with a sentence and the status otherwise', async () => {
    const to = (location: string, code = 302): Step => (_req, res) => void res.writeHead(code, { location }).end();
    const cases: [string, Step[], string | undefined, string | undefined, number | undefined, number][] = [
      ['200 with a Location', [(_q, res) => void res.writeHead(200, { location: '/elsewhere', 'content-type': 'application/json' }).end(BODY)], undefined, undefined, undefined, 1],
      ['300 with a Location', [to('/moved', 300), ok], undefined, undefined, undefined, 2],
      ['300 without one', [status(300)], 'invalid-response', 'Unexpected answer from the server (HTTP 300).', 300, 1],
      ['400 with a Location', [(_q, res) => void res.writeHead(400, { location: '/x' }).end('no')], 'bad-request', 'no', 400, 1],
      ['404 with a Location', [status(404, { location: '/x' })], 'not-found', undefined, 404, 1],
      ['to another https host', [to('https://other.example/api', 301)], 'not-found', 'The server redirected to other.example. The API key is only sent to HOST; if the API moved, change the base URL.', 301, 1],
      ['to plain http elsewhere', [to('http://other.example/api', 307)], 'insecure-url', 'The server redirected to plain http:// (other.example); the API key is not sent unencrypted. Use an https:// base URL.', 307, 1],
      ['to ftp', [to('ftp://127.0.0.1/x', 308)], 'invalid-response', 'The server redirected to an unsupported address. Check the base URL.', 308, 1],
      ['in a loop', [(req, res) => void res.writeHead(302, { location: `${req.url}x` }).end()], 'invalid-response', 'Too many redirects from HOST. Check the base URL.', 302, 4],
    ];
    for (const [name, steps, kind, message, code, hits] of cases) {
      const s = await serve(steps);
      try {
        const r = await recorded(query(s.url), { retries: 0 });
        assert.deepEqual([r.error?.kind, r.error?.status, s.hits.length], [kind, code, hits], name);
        if (message) assert.equal(r.error?.message, message.replace('HOST', s.host), name);
        if (!kind) assert.equal(r.result?.records.length, 3, name);
      } finally {
        await s.close();
      }
    }
    const s = await serve([to('/moved/here?x=1'), ok]);
    try {
      const r = await recorded(query(s.url));
      assert.deepEqual(r.lines.slice(0, 3).map((l) => l.replace(s.url, '')), [r.lines[0]!.replace(s.url, ''), 'redirected (302) to /moved/here?x=1', 'GET /moved/here?x=1']);
    } finally {
      await s.close();
    }
  });
});
