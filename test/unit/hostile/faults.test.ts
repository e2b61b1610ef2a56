// Hostile network faults (issue 14): the real client against a raw TCP loopback server
// (test/hostile/faultServer.ts) that resets, stalls, lies about lengths, breaks chunking and
// gzip, redirects in loops and to other hosts, storms with 1xx and 500s, and goes away. Each
// fault ends in the rows or an ApiError of the right kind, never past its timeout; cancellation
// always wins; the key never reaches another host nor any message or log line.
import { strict as assert } from 'node:assert';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { ApiError, fetchDmarcRecords, type FetchResult } from '../../../src/api';
import type { ClientOptions } from '../../../src/api/client';
import { head, ok, startFaultServer, type FaultServer } from '../../hostile/faultServer';
import { leaksIn, lost, tried } from '../../hostile/figures';

const KEY = 'fault-key-4f9a/+=%20Zz';
const ROW = { source: 's', reporter: 'r', visibleFrom: 'v.example', returnPath: 'rp', ipAddress: '192.0.2.1', rdns: [], emails: 3, category: 'authorized', date: '2025-06-10T10:00:00Z', dmarc: 'none', alignedSpf: 'pass', alignedDkim: 'pass', spf: 'pass', dkims: [] };
const BODY = JSON.stringify({ status: 'success', dmarcRecords: [ROW, { ...ROW, emails: 4 }, { ...ROW, emails: 5 }] });
const said: string[] = [];

interface Outcome {
  result?: FetchResult;
  error?: ApiError;
  ms: number;
}

/** One fetch against `server`; fails the test (and counts a crash) if it throws a non-ApiError or outlives `limitMs`. */
async function get(server: FaultServer, options: ClientOptions = {}, limitMs = 5000): Promise<Outcome> {
  const t0 = Date.now();
  const run = fetchDmarcRecords(
    { baseUrl: server.url, apiKey: KEY, organizationId: 'org-f', startDate: '2025-06-01', endDate: '2025-06-30' },
    { retries: 0, timeoutMs: 2000, retryBaseMs: 5, log: (l) => said.push(l), ...options },
  ).then(
    (result) => ({ result, ms: Date.now() - t0 }),
    (e: unknown) => {
      if (!(e instanceof ApiError)) {
        lost('crashes', `fault: threw ${String(e)}`);
        throw e;
      }
      said.push(e.message);
      return { error: e, ms: Date.now() - t0 };
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      lost('crashes', `fault: still running after ${limitMs} ms`);
      reject(new Error(`still running after ${limitMs} ms`));
    }, limitMs);
  });
  try {
    return await Promise.race([run, hang]);
  } finally {
    clearTimeout(timer);
  }
}

function failsAs(o: Outcome, ...kinds: string[]): void {
  if (o.result) lost('lostRows', `fault: gave ${o.result.records.length} rows for a broken answer`);
  assert.ok(o.error, `expected an ApiError, got ${o.result?.records.length} rows`);
  assert.ok(kinds.includes(o.error.kind), `${o.error.kind}: ${o.error.message}`);
}

function rows(o: Outcome, n = 3): void {
  if (!o.result || o.result.records.length !== n) lost('lostRows', `fault: ${o.error?.message ?? `${o.result?.records.length} rows`}`);
  assert.equal(o.result?.records.length, n, o.error?.message);
}

describe('hostile: network faults', function () {
  this.timeout(60_000);
  let server: FaultServer;
  before(async () => {
    server = await startFaultServer();
  });
  after(async () => {
    await server?.close();
  });
  beforeEach(() => {
    tried('faults');
  });
  afterEach(() => {
    assert.equal(leaksIn(KEY, said.splice(0), 'faults'), 0, 'the key is in a message or log line');
  });

  it('a reset at random byte offsets of the answer (seeded) fails as a network or invalid response, never as fewer rows', async () => {
    const whole = ok(BODY);
    const offsets = fc.sample(fc.integer({ min: 0, max: whole.length - 1 }), { seed: 14, numRuns: 12 });
    for (const at of offsets) {
      server.handle((s) => s.write(whole.subarray(0, at), () => s.resetAndDestroy()));
      failsAs(await get(server), 'network', 'invalid-response');
    }
    tried('faults', offsets.length - 1);
  });

  it('a stall before the headers ends at the timeout', async () => {
    server.handle(() => {});
    const o = await get(server, { timeoutMs: 300 });
    failsAs(o, 'timeout');
    assert.ok(o.ms < 1500, `${o.ms} ms`);
  });

  it('a slowloris body (a byte every 50 ms, forever) ends at the timeout, which covers the whole body', async () => {
    server.handle((s) => {
      s.write(head(200, { 'Content-Type': 'application/json', 'Content-Length': BODY.length }));
      let i = 0;
      const t = setInterval(() => (s.destroyed ? clearInterval(t) : s.write(BODY[i++ % 10]!)), 50);
    });
    const o = await get(server, { timeoutMs: 400 });
    failsAs(o, 'timeout');
    assert.ok(o.ms < 1500, `${o.ms} ms`);
  });

  it('a stall mid-body ends at the timeout', async () => {
    server.handle((s) => s.write(ok(BODY).subarray(0, 200)));
    const o = await get(server, { timeoutMs: 300 });
    failsAs(o, 'timeout');
  });

  it('Content-Length longer than the body, then close: not the rows', async () => {
    server.handle((s) => s.end(Buffer.concat([Buffer.from(head(200, { 'Content-Type': 'application/json', 'Content-Length': BODY.length + 50 })), Buffer.from(BODY)])));
    failsAs(await get(server), 'network', 'invalid-response');
  });

  it('Content-Length shorter than the body: the cut body is refused', async () => {
    server.handle((s) => s.end(Buffer.concat([Buffer.from(head(200, { 'Content-Type': 'application/json', 'Content-Length': BODY.length - 7 })), Buffer.from(BODY)])));
    failsAs(await get(server), 'network', 'invalid-response');
  });

  it('two different Content-Lengths: refused', async () => {
    server.handle((s) => s.end(`HTTP/1.1 200 OK\r\nContent-Length: ${BODY.length}\r\nContent-Length: 5\r\nConnection: close\r\n\r\n${BODY}`));
    failsAs(await get(server), 'network', 'invalid-response');
  });

  it('broken chunked encoding (a chunk size that is not hex, a chunk cut short; no last chunk): refused', async () => {
    server.handle((s) => s.end(`${head(200, { 'Transfer-Encoding': 'chunked', 'Content-Type': 'application/json' })}zz\r\n${BODY}\r\n0\r\n\r\n`));
    failsAs(await get(server), 'network', 'invalid-response');
    // A chunk cut short, then close.
    server.handle((s) => s.end(`${head(200, { 'Transfer-Encoding': 'chunked', 'Content-Type': 'application/json' })}${BODY.length.toString(16)}\r\n${BODY.slice(0, 100)}`));
    failsAs(await get(server), 'network', 'invalid-response');
    // Whole chunks, no last chunk, then close: the JSON is whole, so its rows or an error are both fair.
    server.handle((s) => s.end(`${head(200, { 'Transfer-Encoding': 'chunked', 'Content-Type': 'application/json' })}${BODY.length.toString(16)}\r\n${BODY}\r\n`));
    const o = await get(server);
    if (o.result) rows(o);
    else failsAs(o, 'network');
    tried('faults');
  });

  it('corrupt gzip, and gzip cut short: refused', async () => {
    const gz = zlib.gzipSync(BODY);
    const corrupt = Buffer.from(gz);
    for (let i = 12; i < corrupt.length - 8; i += 5) corrupt[i] ^= 0x5a;
    for (const bytes of [corrupt, gz.subarray(0, gz.length - 20)]) {
      server.handle((s) => s.end(Buffer.concat([Buffer.from(head(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': bytes.length })), bytes])));
      failsAs(await get(server), 'network', 'invalid-response');
    }
    // Gzip whole and sound reads, as a control.
    server.handle((s) => s.end(Buffer.concat([Buffer.from(head(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': gz.length })), gz])));
    rows(await get(server));
    tried('faults');
  });

  it('a redirect loop stops after a few hops', async () => {
    server.handle((s, req) => s.end(head(302, { Location: req.target, 'Content-Length': 0 })));
    const before = server.requests.length;
    failsAs(await get(server), 'invalid-response');
    assert.ok(server.requests.length - before <= 4, `${server.requests.length - before} requests`);
  });

  it('redirects to another host or another port: the key never reaches it', async () => {
    const other = await startFaultServer('127.0.0.2');
    const port = await startFaultServer('127.0.0.1');
    try {
      other.handle((s) => s.end(ok(BODY)));
      port.handle((s) => s.end(ok(BODY)));
      for (const to of [`${other.url}/steal`, `${port.url}/steal`, `http://localhost:${server.port}/x`, `//127.0.0.2:${other.port}/x`, 'file:///etc/passwd', 'javascript:alert(1)']) {
        server.handle((s) => s.end(head(307, { Location: to, 'Content-Length': 0 })));
        const o = await get(server);
        failsAs(o, 'not-found', 'invalid-response', 'insecure-url');
      }
      const reached = [...other.requests, ...port.requests].filter((r) => r.authorization !== undefined || r.head.includes(KEY));
      assert.equal(reached.length, 0, `the key reached ${reached.map((r) => r.target).join(', ')}`);
      if (reached.length) lost('leaks', 'the key reached another host');
      tried('faults', 5);
    } finally {
      await other.close();
      await port.close();
    }
  });

  it('3xx without Location is an unexpected answer', async () => {
    for (const status of [301, 302, 303, 307, 308, 399]) {
      server.handle((s) => s.end(head(status, { 'Content-Length': 0 })));
      failsAs(await get(server), 'invalid-response');
    }
  });

  it('a storm of 1xx answers before the real one', async () => {
    server.handle((s) => {
      for (let i = 0; i < 500; i++) s.write(i % 2 ? 'HTTP/1.1 102 Processing\r\n\r\n' : 'HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n');
      s.end(ok(BODY));
    });
    const o = await get(server);
    if (o.result) rows(o);
    else failsAs(o, 'network', 'invalid-response');
  });

  it('Retry-After in the past retries at once; garbage falls back to backoff; far future fails at once', async () => {
    const after = async (value: string): Promise<Outcome> => {
      server.handle((s, _r, i) => s.end(i % 2 === 0 ? head(429, { 'Retry-After': value, 'Content-Length': 0 }) : ok(BODY)));
      server.requests.length = 0;
      return get(server, { retries: 1, retryBaseMs: 20 });
    };
    rows(await after(new Date(Date.now() - 86_400_000).toUTCString()));
    rows(await after('soon, maybe'));
    rows(await after('-5'));
    const far = await after('99999999');
    failsAs(far, 'rate-limited');
    assert.ok(far.ms < 1000, `${far.ms} ms`);
    failsAs(await after(new Date(Date.now() + 3 * 86_400_000).toUTCString()), 'rate-limited');
    tried('faults', 4);
  });

  it('a 500 storm under 24 concurrent fetches: each ends in its rows or a server error, none hangs', async () => {
    const pick = fc.sample(fc.boolean(), { seed: 14, numRuns: 400 });
    let n = 0;
    server.handle((s) => s.end(pick[n++ % pick.length] ? head(500, { 'Content-Length': 0 }) : ok(BODY)));
    const all = await Promise.all(Array.from({ length: 24 }, () => get(server, { retries: 3, retryBaseMs: 5 }, 10_000)));
    for (const o of all) {
      if (o.result) rows(o);
      else failsAs(o, 'server');
    }
    assert.ok(all.some((o) => o.result), 'some got through');
  });

  it('the server going away while ten loads are under way: all ten fail at once, none hangs', async () => {
    server.handle((s) => s.write(ok(BODY).subarray(0, 150)));
    const loads = Array.from({ length: 10 }, () => get(server, { timeoutMs: 30_000 }));
    await new Promise((r) => setTimeout(r, 150));
    const t0 = Date.now();
    server.dropAll();
    for (const o of await Promise.all(loads)) failsAs(o, 'network', 'invalid-response');
    assert.ok(Date.now() - t0 < 2000);
  });

  it('cancellation wins: before the start, while stalled, mid-body, and during a retry wait', async () => {
    const cancelAfter = async (ms: number, options: ClientOptions = {}): Promise<Outcome> => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), ms);
      const o = await get(server, { signal: ac.signal, timeoutMs: 30_000, ...options });
      failsAs(o, 'cancelled');
      assert.ok(o.ms < ms + 500, `${o.ms} ms`);
      return o;
    };
    server.handle(() => {});
    await cancelAfter(0);
    await cancelAfter(100);
    server.handle((s) => s.write(ok(BODY).subarray(0, 200)));
    await cancelAfter(100);
    server.handle((s) => s.end(head(503, { 'Content-Length': 0 })));
    await cancelAfter(100, { retries: 5, retryBaseMs: 10_000 });
    tried('faults', 3);
  });

  it('not HTTP at all, a 100 KB header, and a refused connection: network errors', async () => {
    server.handle((s) => s.end(`SSH-2.0-OpenSSH\r\n\r\n${KEY}`));
    failsAs(await get(server), 'network', 'invalid-response');
    server.handle((s) => s.end(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`));
    failsAs(await get(server), 'network', 'invalid-response');
    const gone = await startFaultServer();
    const url = gone.url;
    await gone.close();
    failsAs(await get({ ...gone, url }), 'network');
    tried('faults', 2);
  });

  it('a 400, 403 or 500 whose body echoes the key says so without the key', async () => {
    const echo = `${KEY} ${Buffer.from(KEY).toString('base64')} ${encodeURIComponent(KEY)}`;
    for (const status of [400, 403, 418, 500]) {
      const b = JSON.stringify({ message: `bad key ${echo}` });
      server.handle((s) => s.end(`${head(status, { 'Content-Type': 'application/json', 'Content-Length': b.length })}${b}`));
      failsAs(await get(server), 'bad-request', 'forbidden', 'server');
    }
  });
});
