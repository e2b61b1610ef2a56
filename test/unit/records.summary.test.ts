import { strict as assert } from 'node:assert';
import type { DmarcRecord, Result } from '../../src/api/types';
import { bySource, health, HEALTH_THRESHOLDS, passes, summarize } from '../../src/records/summary';

/** Small deterministic PRNG (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RESULTS: Result[] = ['pass', 'fail', 'none', 'softfail', 'neutral', ''];
const SOURCES = ['Google', 'Microsoft', 'Mailchimp', 'Unknown', 'SendGrid', 'Amazon SES'];
const CATEGORIES = ['authorized', 'rejected', 'quarantined', 'partially-authorized', 'something-new', '__proto__'];
const DISPOSITIONS = ['none', 'quarantine', 'reject'];

/** Records as src/api produces them: the wire row in `raw`, normalised fields beside it. */
function makeRecords(n: number, seed = 1): DmarcRecord[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: DmarcRecord[] = [];
  for (let i = 0; i < n; i++) {
    const dateMs = Date.UTC(2026, 9, 1) + Math.floor(r() * 30 * 86_400_000);
    const source = pick(SOURCES);
    const ipAddress = `192.0.2.${Math.floor(r() * 40)}`;
    const rdnsCount = r() < 0.1 ? 0 : r() < 0.05 ? 2 : 1;
    const rdns = Array.from({ length: rdnsCount }, (_, k) => `mx${k}-${ipAddress.split('.')[3]}.${pick(['a.example', 'b.example'])}`);
    const ipCountryCode = r() < 0.2 ? undefined : pick(['US', 'DE', 'FR']);
    const wire: Record<string, unknown> = {
      source,
      reporter: pick(['google.com', 'outlook.com']),
      visibleFrom: 'example.com',
      returnPath: 'bounce.example.com',
      ipAddress,
      rdns,
      emails: 1 + Math.floor(r() * (r() < 0.05 ? 5000 : 20)),
      category: pick(CATEGORIES),
      date: new Date(dateMs).toISOString(),
      dmarc: pick(DISPOSITIONS),
      alignedSpf: pick(RESULTS),
      alignedDkim: pick(RESULTS),
      spf: pick(RESULTS),
      dkims: [{ selector: 's1', domain: 'example.com', result: pick(RESULTS) }],
      from: 'example.com',
    };
    if (ipCountryCode) wire.ipCountryCode = ipCountryCode;
    // One object literal, optional field added after, as a normaliser would build it (spreads
    // would give every record its own hidden class and make any loop over them look slow).
    const rec: DmarcRecord = {
      source,
      reporter: wire.reporter as string,
      visibleFrom: 'example.com',
      returnPath: 'bounce.example.com',
      ipAddress,
      rdns,
      emails: wire.emails as number,
      category: wire.category as string,
      date: wire.date as string,
      dateMs,
      dmarc: wire.dmarc as string,
      alignedSpf: wire.alignedSpf as Result,
      alignedDkim: wire.alignedDkim as Result,
      spf: wire.spf as Result,
      dkims: wire.dkims as DmarcRecord['dkims'],
      raw: wire,
    };
    if (ipCountryCode) rec.ipCountryCode = ipCountryCode;
    out.push(rec);
  }
  return out;
}

/** Plain objects for comparing the prototype-less tallies. */
const plain = (o: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(o));

/** The obvious, slow computation the fast one must agree with. */
function naiveTally(records: DmarcRecord[], key: (r: DmarcRecord) => string): Record<string, number> {
  const out: Record<string, number> = {};
  const keys = [...new Set(records.map(key))];
  for (const k of keys) Object.defineProperty(out, k, { value: records.filter((r) => key(r) === k).reduce((a, r) => a + r.emails, 0), enumerable: true, writable: true, configurable: true });
  return out;
}

describe('records: summaries', () => {
  const records = makeRecords(5000);

  it('summarize agrees with a straightforward computation', () => {
    const s = summarize(records);
    const emails = records.reduce((a, r) => a + r.emails, 0);
    const passing = records.filter((r) => r.alignedSpf === 'pass' || r.alignedDkim === 'pass');
    const passEmails = passing.reduce((a, r) => a + r.emails, 0);
    assert.equal(s.rows, 5000);
    assert.equal(s.emails, emails);
    assert.equal(s.passEmails, passEmails);
    assert.equal(s.passRate, passEmails / emails);
    assert.deepEqual(plain(s.emailsByCategory), naiveTally(records, (r) => r.category));
    assert.deepEqual(plain(s.emailsByDisposition), naiveTally(records, (r) => r.dmarc));
    // An odd category named like a prototype key is counted, not swallowed.
    assert.ok(Object.hasOwn(s.emailsByCategory, '__proto__'));
    assert.ok(s.emailsByCategory['__proto__']! > 0);
    assert.equal(Object.values(s.emailsByCategory).reduce((a, b) => a + b, 0), emails);
  });

  it('pass means aligned SPF or aligned DKIM passed (raw SPF alone does not count)', () => {
    const [base] = makeRecords(1);
    const with_ = (o: Partial<DmarcRecord>): DmarcRecord => ({ ...base!, ...o });
    assert.equal(passes(with_({ alignedSpf: 'pass', alignedDkim: 'fail' })), true);
    assert.equal(passes(with_({ alignedSpf: 'fail', alignedDkim: 'pass' })), true);
    assert.equal(passes(with_({ alignedSpf: 'softfail', alignedDkim: '', spf: 'pass' })), false);
    const s = summarize([with_({ emails: 3, alignedSpf: 'pass' }), with_({ emails: 1, alignedSpf: 'fail', alignedDkim: 'none' })]);
    assert.equal(s.passRate, 0.75);
  });

  it('no emails: passRate undefined, health undefined', () => {
    const s = summarize([]);
    assert.deepEqual([s.rows, s.emails, s.passEmails, s.passRate], [0, 0, 0, undefined]);
    assert.deepEqual(plain(s.emailsByCategory), {});
    assert.equal(health(s.passRate), undefined);
    assert.equal(health(NaN), undefined);
    assert.deepEqual(bySource([]), []);
  });

  it('health thresholds', () => {
    assert.equal(health(1), 'good');
    assert.equal(health(HEALTH_THRESHOLDS.good), 'good');
    assert.equal(health(0.9499), 'warn');
    assert.equal(health(HEALTH_THRESHOLDS.warn), 'warn');
    assert.equal(health(0.7999), 'bad');
    assert.equal(health(0), 'bad');
  });

  it('bySource agrees with a straightforward computation, sorted by emails', () => {
    const got = bySource(records);
    const sources = [...new Set(records.map((r) => r.source))];
    const expected = sources.map((source) => {
      const rows = records.filter((r) => r.source === source);
      const emails = rows.reduce((a, r) => a + r.emails, 0);
      const passEmails = rows.filter(passes).reduce((a, r) => a + r.emails, 0);
      const ips = [...new Set(rows.map((r) => r.ipAddress))].map((ipAddress) => {
        const ipRows = rows.filter((r) => r.ipAddress === ipAddress);
        const cc = ipRows.find((r) => r.ipCountryCode !== undefined)?.ipCountryCode;
        const ipEmails = ipRows.reduce((a, r) => a + r.emails, 0);
        const ipPass = ipRows.filter(passes).reduce((a, r) => a + r.emails, 0);
        return {
          ipAddress,
          rdns: [...new Set(ipRows.flatMap((r) => r.rdns))],
          ...(cc !== undefined ? { ipCountryCode: cc } : {}),
          emails: ipEmails,
          rows: ipRows.length,
          passEmails: ipPass,
          passRate: ipEmails > 0 ? ipPass / ipEmails : undefined,
        };
      }).sort((a, b) => b.emails - a.emails || (a.ipAddress < b.ipAddress ? -1 : 1));
      return { source, emails, rows: rows.length, passEmails, passRate: passEmails / emails, byCategory: naiveTally(rows, (r) => r.category), ips };
    }).sort((a, b) => b.emails - a.emails || (a.source < b.source ? -1 : 1));

    assert.deepEqual(got.map((s) => ({ ...s, byCategory: plain(s.byCategory) })), expected);
    for (let i = 0; i + 1 < got.length; i++) assert.ok(got[i]!.emails >= got[i + 1]!.emails);
    assert.equal(got.reduce((a, s) => a + s.emails, 0), summarize(records).emails);
  });

  it('ties in emails are ordered by name (sources) and by address (IPs); an IP keeps the first country it was seen with', () => {
    const [base] = makeRecords(1);
    const row = (source: string, ipAddress: string, emails: number, ipCountryCode?: string): DmarcRecord => ({ ...base!, source, ipAddress, emails, ipCountryCode });
    const got = bySource([
      row('Zeta', '192.0.2.9', 5), row('Alpha', '192.0.2.7', 2), row('Alpha', '192.0.2.1', 2, 'DE'), row('Mid', '192.0.2.3', 5),
      row('Alpha', '192.0.2.7', 1, 'US'), row('Alpha', '192.0.2.7', 1, 'FR'), row('Alpha', '192.0.2.7', 0), row('Beta', '192.0.2.2', 4),
    ]);
    assert.deepEqual(got.map((s) => [s.source, s.emails]), [['Alpha', 6], ['Mid', 5], ['Zeta', 5], ['Beta', 4]]);
    assert.deepEqual(got[0]!.ips.map((ip) => [ip.ipAddress, ip.emails, ip.ipCountryCode]), [['192.0.2.7', 4, 'US'], ['192.0.2.1', 2, 'DE']]);
    const tied = bySource([row('S', '192.0.2.20', 3), row('S', '192.0.2.10', 3), row('S', '192.0.2.30', 3)]);
    assert.deepEqual(tied[0]!.ips.map((ip) => ip.ipAddress), ['192.0.2.10', '192.0.2.20', '192.0.2.30']);
    // Already in order and in reverse: a comparator that always answers "before", "after" or
    // "same" keeps one of the two out of order.
    const names = ['A', 'B', 'C', 'D', 'E'];
    for (const order of [names, [...names].reverse()]) {
      const got = bySource(order.map((n, i) => row(n, `192.0.2.${i + 1}`, 1)));
      assert.deepEqual(got.map((x) => x.source), names, order.join(''));
      const ips = bySource(order.map((n) => row('S', `192.0.2.${n.charCodeAt(0)}`, 1)))[0]!.ips.map((x) => x.ipAddress);
      assert.deepEqual(ips, names.map((n) => `192.0.2.${n.charCodeAt(0)}`), order.join(''));
    }
  });

  it('an IP with many rDNS names lists each once, in first-seen order', () => {
    const [base] = makeRecords(1);
    const rows: DmarcRecord[] = [];
    for (let i = 0; i < 60; i++) rows.push({ ...base!, source: 'S', ipAddress: '203.0.113.9', rdns: [`h${i % 20}.example`, `h${(i * 7) % 20}.example`] });
    const expected = [...new Set(rows.flatMap((r) => r.rdns))];
    assert.equal(expected.length, 20);
    const [src] = bySource(rows);
    assert.deepEqual(src!.ips.map((x) => x.rdns), [expected]);
    assert.equal(src!.ips[0]!.rows, 60);
  });

  it('summarize + bySource over 100k rows in a few tens of ms', function () {
    this.timeout(20_000);
    const big = makeRecords(100_000, 7);
    summarize(big);
    bySource(big);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      summarize(big);
      bySource(big);
      times.push(performance.now() - t0);
    }
    const best = Math.min(...times);
    console.log(`      summarize + bySource, 100k rows: best ${best.toFixed(1)} ms of 5`);
    // Generous bound for a loaded CI machine; typically well under 30 ms.
    assert.ok(best < 150, `took ${best.toFixed(1)} ms`);
  });
});
