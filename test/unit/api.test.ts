// The API client over real HTTP on loopback against the local API server (no mocked fetch).
import { strict as assert } from 'node:assert';
import { USER_AGENT, fetchDmarcRecords, parseRetryAfter, utcDayRange, requestLine, type RequestSummary } from '../../src/api';
import { parseRecordsBody } from '../../src/api/body';
import { assertRecordsMatch } from './recordMapping';
import { DAY_MS, generateDay } from '../server/data';
import { BAD_REQUEST_MESSAGE, HOSTILE_STRINGS, startApiServer } from '../server/server';
import { ACME, DAY, DAY_INDEX, expectApiError, FAST, KEY, miniServer, NOW, useApiServer } from './apiHelpers';
import { rawOf } from '../../src/api/rawRow';

describe('api client over HTTP', () => {
  const fx = useApiServer();
  const { query, apiRequests } = fx;

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
        assert.equal(rawOf(r).from, w.from, 'the extra `from` field is kept in raw');
        assert.deepEqual(rawOf(r), JSON.parse(JSON.stringify(w)));
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
        assert.deepEqual(res.records.map((r) => rawOf(r)), JSON.parse(JSON.stringify(rows)));
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
        const plain = (await fetchDmarcRecords(query({ baseUrl: `${fx.server.url}/` }), FAST)).records.length;
        assert.equal(plain, counts[0]);
      } finally {
        await prefixed.close();
      }
    });

    it('tolerates the shape variants of §2.5: bare array, `from` without visibleFrom, rdns as a string', async () => {
      const normal = await fetchDmarcRecords(query(), FAST);
      fx.server.setFaults({ bareArray: true, fromOnly: 1, rdnsString: 1 });
      const odd = await fetchDmarcRecords(query(), FAST);
      assert.equal(odd.records.length, normal.records.length);
      assert.deepEqual(odd.rejected, { count: 0, samples: [] });
      for (const [i, r] of odd.records.entries()) {
        const n = normal.records[i]!;
        assert.equal(r.visibleFrom, n.visibleFrom, 'visibleFrom taken from `from`');
        assert.equal('visibleFrom' in rawOf(r), false);
        assert.deepEqual(r.rdns, n.rdns.slice(0, 1), 'a lone string becomes a one-element list, "" an empty one');
        assert.equal(typeof rawOf(r).rdns, 'string');
      }
      // The day has rows with no PTR record and rows with one, so both string forms were sent.
      assert.ok(odd.records.some((r) => rawOf(r).rdns === '' && r.rdns.length === 0));
      assert.ok(odd.records.some((r) => rawOf(r).rdns !== '' && r.rdns.length === 1));
    });

    it('keeps rows with values outside the enums and reports one warning per field and value', async () => {
      const normal = await fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-10') }), FAST);
      fx.server.setFaults({ unknownEnums: 0.3 });
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
      const changed = res.records.filter((r, i) => JSON.stringify(rawOf(r)) !== JSON.stringify(rawOf(normal.records[i]!))).length;
      assert.equal(counted, changed);
    });

    it('leaves out malformed rows, keeps every valid one and summarises the rejects', async () => {
      const normal = await fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-05') }), FAST);
      fx.server.setFaults({ badRows: 0.2 });
      const res = await fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-05') }), FAST);
      assert.ok(res.rejected.count > 5);
      assert.equal(res.records.length + res.rejected.count, normal.records.length);
      assert.equal(res.rejected.samples.length, 5);
      const kept = new Set(res.records.map((r) => JSON.stringify(rawOf(r))));
      assert.equal(normal.records.filter((r) => kept.has(JSON.stringify(rawOf(r)))).length, res.records.length, 'kept rows are untouched');
      let last = -1;
      for (const s of res.rejected.samples) {
        assert.ok(s.index > last, 'samples in row order');
        last = s.index;
        assert.match(s.reason, /missing|should be|not an object|not an ISO 8601 date/);
      }
    });

    it('keeps hostile strings byte for byte (they are data, escaping is the renderer’s job)', async () => {
      fx.server.setFaults({ hostileStrings: true });
      const res = await fetchDmarcRecords(query(), FAST);
      assert.equal(res.records.length, generateDay(ACME, DAY_INDEX, 1).length);
      assert.ok(res.records.every((r) => HOSTILE_STRINGS.some((h) => r.source.startsWith(h))));
      assert.ok(res.records.some((r) => r.reporter.startsWith('<img src=x onerror=alert(1)>')));
      assert.ok(res.records.some((r) => r.visibleFrom.startsWith('</script>')));
    });
  });

  describe('HTTP errors', () => {
    it('400 → bad-request with the server’s own message, not retried', async () => {
      fx.server.setFaults({ error400: true });
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
      const e = await expectApiError(fetchDmarcRecords(query({ baseUrl: `${fx.server.url}/wrong/prefix` }), FAST), 'not-found');
      assert.match(e.message, /base URL/);
      assert.equal(e.status, 404);
      assert.equal(fx.server.requests.length, 1);
    });

    it('a missing key or one with a line break fails before any request', async () => {
      await expectApiError(fetchDmarcRecords(query({ apiKey: '  ' }), FAST), 'forbidden');
      await expectApiError(fetchDmarcRecords(query({ apiKey: 'abc\ndef-123' }), FAST), 'forbidden');
      assert.equal(fx.server.requests.length, 0);
    });

    it('bad dates fail before any request', async () => {
      await expectApiError(fetchDmarcRecords(query({ startDate: 'yesterday' }), FAST), 'bad-request');
      await expectApiError(fetchDmarcRecords(query({ startDate: new Date(NaN) }), FAST), 'bad-request');
      await expectApiError(fetchDmarcRecords(query({ startDate: '2025-06-11', endDate: '2025-06-10' }), FAST), 'bad-request');
      assert.equal(fx.server.requests.length, 0);
    });
  });

  describe('the one log line per request', () => {
    it('says organization, range, status, rows, bytes, duration and retries; never the key', async () => {
      fx.server.setFaults({ error500: { first: 1 } });
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
      fx.server.setFaults({ error500: { first: 2 } });
      const retries: { attempt: number; delayMs: number; reason: string }[] = [];
      const res = await fetchDmarcRecords(query(), { ...FAST, onRetry: (r) => retries.push(r) });
      assert.ok(res.records.length > 0);
      assert.equal(apiRequests().length, 3);
      assert.deepEqual(retries.map((r) => r.attempt), [1, 2]);
      assert.match(retries[0]!.reason, /500/);
    });

    it('5xx: bounded (default 2 retries), then `server`; retries: 0 tries once', async () => {
      fx.server.setFaults({ error500: true });
      const e = await expectApiError(fetchDmarcRecords(query(), FAST), 'server');
      assert.equal(e.status, 500);
      assert.equal(apiRequests().length, 3);
      fx.server.resetRequests();
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, retries: 0 }), 'server');
      assert.equal(apiRequests().length, 1);
    });

    it('backoff is exponential with jitter', async () => {
      fx.server.setFaults({ error500: true });
      const delays: number[] = [];
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, retries: 3, retryBaseMs: 40, onRetry: (r) => delays.push(r.delayMs) }), 'server');
      assert.equal(delays.length, 3);
      delays.forEach((d, i) => assert.ok(d >= 20 * 2 ** i && d <= 40 * 2 ** i, `delay ${i}: ${d}`));
    });

    it('429: waits as long as Retry-After (seconds) says, then succeeds', async () => {
      fx.server.setFaults({ rateLimit: { first: 1 }, retryAfter: '1' });
      const retries: number[] = [];
      const t0 = Date.now();
      await fetchDmarcRecords(query(), { ...FAST, onRetry: (r) => retries.push(r.delayMs) });
      assert.deepEqual(retries, [1000]);
      assert.ok(Date.now() - t0 >= 950);
      assert.equal(apiRequests().length, 2);
    });

    it('429: Retry-After as an HTTP date', async () => {
      fx.server.setFaults({ rateLimit: { first: 1 }, retryAfter: new Date(Date.now() + 1000).toUTCString() });
      const retries: number[] = [];
      await fetchDmarcRecords(query(), { ...FAST, onRetry: (r) => retries.push(r.delayMs) });
      assert.equal(retries.length, 1);
      assert.ok(retries[0]! >= 0 && retries[0]! <= 1000, String(retries[0]));
      assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('2015-10-21T07:27:00Z')), 60_000);
      assert.equal(parseRetryAfter('120'), 120_000);
      assert.equal(parseRetryAfter('soon'), undefined);
    });

    it('429: a Retry-After beyond the cap fails at once with rate-limited and the wait', async () => {
      fx.server.setFaults({ rateLimit: true, retryAfter: '3600' });
      const t0 = Date.now();
      const e = await expectApiError(fetchDmarcRecords(query(), FAST), 'rate-limited');
      assert.ok(Date.now() - t0 < 1000);
      assert.equal(e.retryAfterMs, 3_600_000);
      assert.equal(e.status, 429);
      assert.match(e.message, /1 h/);
      assert.equal(apiRequests().length, 1);
    });

    it('429 every time: rate-limited after the bounded retries', async () => {
      fx.server.setFaults({ rateLimit: true, retryAfter: '0' });
      await expectApiError(fetchDmarcRecords(query(), FAST), 'rate-limited');
      assert.equal(apiRequests().length, 3);
    });

    it('connection reset: retried; every time → network', async () => {
      fx.server.setFaults({ reset: { first: 1 } });
      const res = await fetchDmarcRecords(query(), FAST);
      assert.ok(res.records.length > 0);
      assert.equal(apiRequests().length, 2);
      fx.server.setFaults({ reset: true });
      fx.server.resetRequests();
      const e = await expectApiError(fetchDmarcRecords(query(), FAST), 'network');
      assert.match(e.message, /closed unexpectedly/);
      assert.equal(apiRequests().length, 3);
    });

    it('connection lost in the middle of the body → network', async () => {
      fx.server.setFaults({ resetMidBody: true });
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
});
