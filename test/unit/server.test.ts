// The local API server itself: contract, data, faults, CLI. Raw HTTP (global fetch), no client.
import { strict as assert } from 'node:assert';
import { RESULT_VALUES } from '../../src/api';
import { DEFAULT_KEYS, ORGANIZATIONS, generateDay, type WireRow } from '../server/data';
import { HOSTILE_STRINGS, parseFaults, startApiServer, type ApiServer } from '../server/server';
import { KEY, NOW, apiUrl, get, range } from './serverHelpers';


describe('local API server', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer({ now: NOW });
  });
  after(() => server.close());
  beforeEach(() => {
    server.setFaults({});
    server.resetRequests();
  });

  const url = (params: Record<string, string | undefined>, path?: string, base = server.url) => apiUrl(base, params, path);
  async function rows(org: string, start: string, end: string, key = KEY): Promise<WireRow[]> {
    const r = await get(url(range(org, start, end)), key);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, 'success');
    return r.body.dmarcRecords;
  }

  describe('contract', () => {
    it('200: the envelope, rows of the organization within the inclusive range', async () => {
      const r = await get(url(range('acme', '2025-06-10T00:00:00.000Z', '2025-06-10T23:59:59.999Z')));
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type')!, /^application\/json/);
      assert.deepEqual(Object.keys(r.body), ['status', 'dmarcRecords']);
      assert.equal(r.body.dmarcRecords.length, generateDay(ORGANIZATIONS[0]!, Date.parse('2025-06-10') / 86_400_000, 1).length);
      const domains = ORGANIZATIONS[0]!.domains;
      assert.ok(r.body.dmarcRecords.every((x: WireRow) => x.date.startsWith('2025-06-10') && domains.includes(x.visibleFrom)));
    });

    it('403 for a missing or wrong key, or an organization the key does not hold', async () => {
      const q = url(range('acme', '2025-06-10', '2025-06-10'));
      for (const key of [null, '', 'wrong-key']) {
        const r = await get(q, key);
        assert.equal(r.status, 403);
        assert.equal(typeof r.body.message, 'string');
      }
      assert.equal((await get(url(range('hooli', '2025-06-10', '2025-06-10')))).status, 403);
      assert.equal((await get(url(range('hooli', '2025-06-10', '2025-06-10')), 'second-key-0b9d4e61a7c3f258')).status, 200);
      assert.equal((await get(url(range('acme', '2025-06-10', '2025-06-10')), 'second-key-0b9d4e61a7c3f258')).status, 403);
    });

    it('400 with a JSON message for missing or invalid parameters and an inverted range', async () => {
      const cases: [Record<string, string | undefined>, RegExp][] = [
        [{ startDate: '2025-06-10', endDate: '2025-06-10' }, /organizationId is required/],
        [{ organizationId: 'acme', endDate: '2025-06-10' }, /startDate is required/],
        [{ organizationId: 'acme', startDate: '2025-06-10' }, /endDate is required/],
        [{ organizationId: 'acme', startDate: 'yesterday', endDate: '2025-06-10' }, /startDate is not a valid ISO 8601 date/],
        [{ organizationId: 'acme', startDate: '2025-06-10', endDate: '10/06/2025' }, /endDate is not a valid/],
        [{ organizationId: 'acme', startDate: '2025-06-11', endDate: '2025-06-10' }, /endDate must not be before startDate/],
      ];
      for (const [params, re] of cases) {
        const r = await get(url(params));
        assert.equal(r.status, 400, JSON.stringify(params));
        assert.match(r.headers.get('content-type')!, /application\/json/);
        assert.match(r.body.message, re);
      }
    });

    it('404 for any other path, 405 for other methods', async () => {
      for (const p of ['/', '/api/public', '/api/public/dmarc-record', '/api/public/dmarc-records/extra', '/v1/api/public/dmarc-records']) {
        assert.equal((await get(url({}, p))).status, 404, p);
      }
      const post = await fetch(url(range('acme', '2025-06-10', '2025-06-10')), { method: 'POST', headers: { authorization: `Bearer ${KEY}` } });
      assert.equal(post.status, 405);
    });

    it('logs every request with method, path, query, status and time', async () => {
      const t0 = Date.now();
      await get(url(range('acme', '2025-06-10', '2025-06-10')));
      await get(url(range('acme', '2025-06-10', '2025-06-10')), 'wrong');
      await get(url({}, '/nope'));
      assert.deepEqual(server.requests.map((r) => [r.method, r.path, r.status]), [
        ['GET', '/api/public/dmarc-records', 200],
        ['GET', '/api/public/dmarc-records', 403],
        ['GET', '/nope', 404],
      ]);
      assert.deepEqual(server.requests[0]!.query, { organizationId: 'acme', startDate: '2025-06-10', endDate: '2025-06-10' });
      assert.ok(server.requests.every((r) => r.at >= t0 && r.at <= Date.now()));
      server.resetRequests();
      assert.equal(server.requests.length, 0);
    });

    it('keys can map to any organization ids; one key may hold several', async () => {
      const s = await startApiServer({ now: NOW, keys: { k1: ['org-a', 'org-b'], k2: ['org-c'] }, rowsPerDay: 7 });
      try {
        for (const [key, org, status] of [['k1', 'org-a', 200], ['k1', 'org-b', 200], ['k1', 'org-c', 403], ['k2', 'org-c', 200]] as const) {
          const r = await get(url(range(org, '2025-06-10', '2025-06-10T23:59:59.999Z'), undefined, s.url), key);
          assert.equal(r.status, status, `${key} ${org}`);
          if (status === 200) assert.equal(r.body.dmarcRecords.length, 7);
        }
      } finally {
        await s.close();
      }
    });
  });

  describe('data', () => {
    it('is deterministic: any range agrees with its days, on every request', async () => {
      const a = await rows('globex', '2025-05-01T00:00:00.000Z', '2025-05-03T23:59:59.999Z');
      const b = await rows('globex', '2025-05-01T00:00:00.000Z', '2025-05-03T23:59:59.999Z');
      assert.deepEqual(a, b);
      const days = [
        ...(await rows('globex', '2025-05-01T00:00:00.000Z', '2025-05-01T23:59:59.999Z')),
        ...(await rows('globex', '2025-05-02T00:00:00.000Z', '2025-05-02T23:59:59.999Z')),
        ...(await rows('globex', '2025-05-03T00:00:00.000Z', '2025-05-03T23:59:59.999Z')),
      ];
      assert.deepEqual(a, days);
      const other = await startApiServer({ now: NOW, seed: 2 });
      try {
        const c = (await get(url(range('globex', '2025-05-01T00:00:00.000Z', '2025-05-03T23:59:59.999Z'), undefined, other.url))).body.dmarcRecords;
        assert.notDeepEqual(c, a, 'another seed, other data');
      } finally {
        await other.close();
      }
    });

    it('filters on the row date with both bounds inclusive, to the millisecond', async () => {
      const day = await rows('acme', '2025-06-09T00:00:00.000Z', '2025-06-09T23:59:59.999Z');
      const lastMs = day.filter((r) => r.date === '2025-06-09T23:59:59.999Z');
      const firstMs = day.filter((r) => r.date === '2025-06-09T00:00:00.000Z');
      assert.ok(firstMs.length > 0);
      assert.deepEqual(await rows('acme', '2025-06-09T00:00:00.000Z', '2025-06-09T00:00:00.000Z'), firstMs);
      assert.deepEqual(await rows('acme', '2025-06-09T23:59:59.999Z', '2025-06-09T23:59:59.999Z'), lastMs);
      const inner = await rows('acme', '2025-06-09T00:00:00.001Z', '2025-06-09T23:59:59.998Z');
      assert.equal(inner.length, day.length - firstMs.length - lastMs.length);
      // Some day has a row at its very last millisecond.
      const month = await rows('acme', '2025-05-01T00:00:00.000Z', '2025-05-31T23:59:59.999Z');
      assert.ok(month.some((r) => r.date.endsWith('T23:59:59.999Z')));
    });

    it('holds about 13 months of history before now, nothing before or after', async () => {
      assert.equal((await rows('acme', '2024-01-01', '2024-04-30T23:59:59.999Z')).length, 0);
      assert.ok((await rows('acme', '2024-05-20', '2024-05-31T23:59:59.999Z')).length > 0);
      const today = await rows('acme', '2025-06-15', '2025-06-30T23:59:59.999Z');
      assert.ok(today.length > 0);
      assert.ok(today.every((r) => Date.parse(r.date) <= NOW.getTime()), 'no row after now');
    });

    it('looks like real DMARC data, consistently', async () => {
      const all: WireRow[] = [];
      for (const org of ['acme', 'globex', 'stark', 'initech', 'vandelay']) all.push(...(await rows(org, '2025-04-01', '2025-05-31T23:59:59.999Z')));
      assert.ok(all.length > 3000, String(all.length));
      const results = new Set(all.flatMap((r) => [r.spf, r.alignedSpf, r.alignedDkim, ...r.dkims.map((d) => d.result)]));
      for (const v of RESULT_VALUES) assert.ok(results.has(v), `Result "${v}" appears`);
      for (const r of all) {
        const pass = r.alignedSpf === 'pass' || r.alignedDkim === 'pass';
        if (r.category === 'authorized') assert.ok(pass && r.dmarc === 'none');
        if (r.category === 'rejected') assert.ok(!pass && r.dmarc === 'reject');
        if (r.category === 'quarantined') assert.ok(!pass && r.dmarc === 'quarantine');
        if (r.category === 'partially-authorized') assert.ok(!pass && r.dmarc === 'none');
        if (r.alignedSpf === 'pass') assert.equal(r.spf, 'pass');
        assert.equal(r.from, r.visibleFrom);
        assert.ok(Number.isInteger(r.emails) && r.emails >= 1);
        assert.ok(r.dkims.length <= 3);
      }
      const count = (f: (r: WireRow) => boolean) => all.filter(f).length;
      assert.deepEqual(new Set(all.map((r) => r.category)), new Set(['authorized', 'rejected', 'quarantined', 'partially-authorized']));
      const sources = new Set(all.map((r) => r.source));
      for (const s of ['Google Workspace', 'Microsoft 365', 'Amazon SES', 'SendGrid', 'Mailchimp', 'Forwarder', 'Unknown', 'Self-hosted']) assert.ok(sources.has(s), s);
      const reporters = new Set(all.map((r) => r.reporter));
      for (const s of ['google.com', 'Yahoo', 'Outlook.com', 'Mail.ru']) assert.ok(reporters.has(s), s);
      assert.ok(count((r) => r.ipAddress.includes(':')) > 100, 'IPv6');
      assert.ok(count((r) => /^\d+\.\d+\.\d+\.\d+$/.test(r.ipAddress)) > 1000, 'IPv4');
      assert.ok(count((r) => r.rdns.length === 0) > 50, 'no rdns');
      assert.ok(count((r) => r.rdns.length === 1) > 1000, 'one rdns');
      assert.ok(count((r) => r.rdns.length > 1) > 0, 'several rdns');
      assert.ok(count((r) => r.rdns.length > 1) < all.length / 50, 'several rdns is rare');
      for (const n of [0, 1, 2, 3]) assert.ok(count((r) => r.dkims.length === n) > 0, `${n} DKIM signatures`);
      assert.ok(count((r) => r.ipCountryCode === undefined) > 0 && count((r) => r.ipCountryCode !== undefined) > all.length * 0.9);
      const outlook = all.filter((r) => r.reporter === 'Outlook.com');
      const others = all.filter((r) => r.reporter !== 'Outlook.com' && r.reporter !== 'Enterprise Outlook');
      assert.ok(outlook.filter((r) => r.to).length > outlook.length * 0.85, '`to` mostly with Outlook.com');
      assert.ok(others.filter((r) => r.to).length < others.length * 0.05);
      // Dates are spread over the day, many at its first instant.
      const times = new Set(all.map((r) => r.date.slice(11)));
      assert.ok(times.size > 1000);
      assert.ok(count((r) => r.date.endsWith('T00:00:00.000Z')) > all.length * 0.15);
    });

    it('has a dozen organizations, all readable with the default keys', async () => {
      assert.ok(ORGANIZATIONS.length >= 12);
      const held = Object.values(DEFAULT_KEYS).flat();
      assert.deepEqual(new Set(held), new Set(ORGANIZATIONS.map((o) => o.id)));
      assert.ok(Object.values(DEFAULT_KEYS).some((orgs) => orgs.length > 1));
      assert.ok(ORGANIZATIONS.every((o) => o.domains.length >= 1));
    });

    it('streams a 40k-row answer in many chunks', async () => {
      const big = await startApiServer({ now: NOW, rowsPerDay: 20_000 });
      try {
        const res = await fetch(url(range('acme', '2025-06-01T00:00:00.000Z', '2025-06-02T23:59:59.999Z'), undefined, big.url), { headers: { authorization: `Bearer ${KEY}` } });
        assert.equal(res.headers.get('content-length'), null, 'no length known upfront: streamed');
        assert.equal(res.headers.get('transfer-encoding'), 'chunked');
        const reader = res.body!.getReader();
        const parts: Uint8Array[] = [];
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parts.push(value);
        }
        assert.ok(parts.length > 20, `${parts.length} reads`);
        const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
        assert.equal(body.dmarcRecords.length, 40_000);
      } finally {
        await big.close();
      }
    });
  });

  describe('faults', () => {
    const day = () => url(range('acme', '2025-06-10T00:00:00.000Z', '2025-06-10T23:59:59.999Z'));

    it('bare array, `from` without visibleFrom, rdns as a string', async () => {
      server.setFaults({ bareArray: true, fromOnly: true, rdnsString: true });
      const r = await get(day());
      assert.ok(Array.isArray(r.body));
      assert.ok(r.body.length > 0);
      for (const x of r.body) {
        assert.equal('visibleFrom' in x, false);
        assert.equal(typeof x.from, 'string');
        assert.equal(typeof x.rdns, 'string');
      }
    });

    it('shares of rows: unknown enum values, malformed rows', async () => {
      server.setFaults({ unknownEnums: 0.5, badRows: 0.2 });
      const body = (await get(url(range('acme', '2025-06-01', '2025-06-10T23:59:59.999Z')))).body.dmarcRecords as unknown[];
      const bad = body.filter((x) => x === null || typeof x !== 'object' || !('source' in x) || typeof (x as WireRow).emails !== 'number' || (x as WireRow).date === 'yesterday' || !Array.isArray((x as WireRow).dkims) || !('from' in x));
      assert.ok(bad.length > body.length * 0.1 && bad.length < body.length * 0.3, `${bad.length} of ${body.length}`);
      const good = body.filter((x) => !bad.includes(x)) as WireRow[];
      const known = new Set<string>(RESULT_VALUES);
      const odd = good.filter((x) => !['authorized', 'rejected', 'quarantined', 'partially-authorized'].includes(x.category) || !['none', 'quarantine', 'reject'].includes(x.dmarc) || ![x.spf, x.alignedSpf, x.alignedDkim, ...x.dkims.map((d) => d.result)].every((v) => known.has(v)));
      assert.ok(odd.length > good.length * 0.35 && odd.length < good.length * 0.65, `${odd.length} of ${good.length}`);
    });

    it('hostile strings in every string field but the date', async () => {
      server.setFaults({ hostileStrings: true });
      const body = (await get(day())).body.dmarcRecords as WireRow[];
      const starts = (s: string) => HOSTILE_STRINGS.some((h) => s.startsWith(h));
      for (const x of body) {
        for (const k of ['source', 'reporter', 'visibleFrom', 'returnPath', 'ipAddress', 'category', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'from'] as const) assert.ok(starts(x[k]), k);
        assert.ok(x.rdns.every(starts));
        assert.ok(x.dkims.every((d) => starts(d.selector) && starts(d.domain) && starts(d.result)));
        assert.ok(!Number.isNaN(Date.parse(x.date)));
      }
      const all = JSON.stringify(body);
      assert.ok(all.includes('<img src=x onerror=alert(1)>') && all.includes('</script>'));
      server.setFaults({ hostileStrings: ['PAYLOAD1'] });
      assert.ok(((await get(day())).body.dmarcRecords as WireRow[]).every((x) => x.source.startsWith('PAYLOAD1')));
    });

    it('500s on a schedule: first N, every Nth; setFaults restarts the count', async () => {
      server.setFaults({ error500: { first: 2 } });
      const a = [];
      for (let i = 0; i < 4; i++) a.push((await get(day())).status);
      assert.deepEqual(a, [500, 500, 200, 200]);
      server.setFaults({ error500: { every: 3 } });
      const b = [];
      for (let i = 0; i < 6; i++) b.push((await get(day())).status);
      assert.deepEqual(b, [200, 200, 500, 200, 200, 500]);
    });

    it('429 with Retry-After; HTML page with 200; truncated body; latency', async () => {
      server.setFaults({ rateLimit: true, retryAfter: '7' });
      const r = await get(day());
      assert.equal(r.status, 429);
      assert.equal(r.headers.get('retry-after'), '7');
      server.setFaults({ htmlError: true });
      const h = await get(day());
      assert.equal(h.status, 200);
      assert.match(h.headers.get('content-type')!, /text\/html/);
      assert.match(h.body, /^<!DOCTYPE html>/);
      server.setFaults({ truncate: true });
      const t = await get(day());
      assert.equal(t.status, 200);
      assert.equal(typeof t.body, 'string', 'not parseable JSON');
      assert.ok(t.body.startsWith('{"status":"success","dmarcRecords":['));
      server.setFaults({ latencyMs: 150 });
      const t0 = Date.now();
      await get(day());
      assert.ok(Date.now() - t0 >= 140);
    });

    it('connection reset', async () => {
      server.setFaults({ reset: true });
      await assert.rejects(fetch(day(), { headers: { authorization: `Bearer ${KEY}` } }), /fetch failed/);
      assert.equal(server.requests.at(-1)!.status, 0);
    });

    it('per request via ?faults= and per base URL via /_faults/<spec>', async () => {
      const q = new URL(day());
      q.searchParams.set('faults', 'bareArray');
      assert.ok(Array.isArray((await get(q.href)).body));
      const viaPath = await get(url(range('acme', '2025-06-10', '2025-06-10T23:59:59.999Z'), '/_faults/error500=first:1,bareArray/api/public/dmarc-records'));
      assert.equal(viaPath.status, 500);
      const again = await get(url(range('acme', '2025-06-10', '2025-06-10T23:59:59.999Z'), '/_faults/error500=first:1,bareArray/api/public/dmarc-records'));
      assert.equal(again.status, 200);
      assert.ok(Array.isArray(again.body));
      // The server's own faults are untouched.
      assert.equal((await get(day())).body.status, 'success');
      const bad = await get(url({}, '/_faults/noSuchFault/api/public/dmarc-records'));
      assert.equal(bad.status, 400);
      assert.match(bad.body.message, /unknown fault "noSuchFault"/);
    });

    it('parseFaults reads the CLI / URL syntax', () => {
      assert.deepEqual(parseFaults('bareArray, rdnsString=0.5,error500=every:3,rateLimit=first:2,retryAfter=5,latencyMs=300,echoKey=false'), {
        bareArray: true,
        rdnsString: 0.5,
        error500: { every: 3 },
        rateLimit: { first: 2 },
        retryAfter: '5',
        latencyMs: 300,
        echoKey: false,
      });
      assert.throws(() => parseFaults('latencyMs=soon'), /cannot read value/);
    });
  });
});
