// Period comparison (src/advice/compare.ts) and the watch's findings (src/advice/findings.ts) over
// seeded generated rows, each against a second, naive computation written from the rule texts;
// thresholds at their edges; the previous period's bounds.
import { strict as assert } from 'node:assert';
import { biggestDropFirst, compareSums, compareTotals, DAY_MS, previousPeriod, sumsBy, verdictMoved, type Change } from '../../src/advice/compare';
import { rng } from '../fixtures/webview-dev/generateRows';
import { DEFAULT_WATCH, findingId, findingsOf, watchWindow, type WatchRow, type WatchThresholds } from '../../src/advice/findings';

const SOURCES = ['Google', 'Mailchimp', 'SendGrid', 'Unknown', 'Forwarder', 'Brevo'];
const results = ['pass', 'fail', 'none', 'temperror', ''];

function rows(seed: number, n: number, fromMs: number, days: number, sources = SOURCES): WatchRow[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => ({
    source: sources[Math.floor(r() * sources.length)]!,
    emails: r() < 0.1 ? 0 : Math.floor(r() * 500) + 1,
    alignedSpf: results[Math.floor(r() * results.length)]!,
    alignedDkim: results[Math.floor(r() * results.length)]!,
    dateMs: fromMs + Math.floor(r() * days * DAY_MS),
  }));
}

/** Naive: the pass rate of a source's rows, or undefined. */
function naiveRate(rs: WatchRow[], source?: string): number | undefined {
  let e = 0;
  let p = 0;
  for (const r of rs) {
    if (source !== undefined && r.source !== source) continue;
    e += r.emails;
    if ([r.alignedSpf, r.alignedDkim].includes('pass')) p += r.emails;
  }
  return e ? p / e : undefined;
}
const emailsOf = (rs: WatchRow[], source?: string) => rs.filter((r) => source === undefined || r.source === source).reduce((a, r) => a + r.emails, 0);

describe('advice: period comparison', () => {
  it('equals a naive computation for every source over 200 seeded pairs of periods', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const before = rows(seed, 40, 0, 7, SOURCES.slice(0, 5));
      const now = rows(seed + 1000, 40, 7 * DAY_MS, 7, seed % 3 ? SOURCES : SOURCES.slice(1));
      const changes = compareSums(sumsBy(now, (r) => r.source), sumsBy(before, (r) => r.source));
      const keys = new Set([...now, ...before].map((r) => r.source));
      assert.deepEqual(new Set(changes.keys()), keys);
      for (const k of keys) {
        const c = changes.get(k)!;
        const [e, b] = [emailsOf(now, k), emailsOf(before, k)];
        const [pn, pb] = [naiveRate(now, k), naiveRate(before, k)];
        assert.equal(c.emails, e);
        assert.equal(c.before, b);
        assert.equal(c.deltaEmails, e - b);
        assert.equal(c.passNow, pn);
        assert.equal(c.passBefore, pb);
        if (pn === undefined || pb === undefined) assert.equal(c.deltaPass, undefined);
        else assert.ok(Math.abs(c.deltaPass! - (pn - pb) * 100) < 1e-9);
        assert.equal(c.status, e > 0 && b === 0 ? 'new' : e === 0 && b > 0 ? 'gone' : 'kept', `${seed} ${k}`);
      }
      const total = compareTotals(now, before);
      assert.equal(total.emails, emailsOf(now));
      assert.equal(total.before, emailsOf(before));
    }
  });

  it('a group seen in the days before the previous period is not new; verdict moves are called out', () => {
    const now = new Map([['A', { emails: 10, passing: 1, verdict: 'needs-fixing' as const }], ['B', { emails: 5, passing: 5 }]]);
    const before = new Map([['A', { emails: 10, passing: 10, verdict: 'compliant' as const }], ['C', { emails: 3, passing: 0 }]]);
    const c = compareSums(now, before, (k) => k === 'B');
    assert.equal(c.get('B')!.status, 'kept');
    assert.equal(c.get('C')!.status, 'gone');
    assert.equal(c.get('A')!.deltaPass, -90);
    assert.ok(verdictMoved(c.get('A')!));
    assert.ok(!verdictMoved(c.get('B')!));
    assert.equal(compareSums(now, before).get('B')!.status, 'new');
  });

  it('sorts biggest drop first, then gone, then by emails lost; no rate change last', () => {
    const ch = (key: string, deltaPass: number | undefined, deltaEmails: number): Change =>
      ({ key, deltaPass, deltaEmails, emails: 0, before: 0, passNow: undefined, passBefore: undefined, status: 'kept' });
    const list = [ch('x', undefined, -5), ch('a', -3, 0), ch('b', -30, 10), ch('c', 5, 0), ch('d', -3, -100), ch('e', undefined, -50)];
    assert.deepEqual(list.sort(biggestDropFirst).map((c) => c.key), ['b', 'd', 'a', 'c', 'e', 'x']);
  });

  it('the previous period has the same length and ends the millisecond before', () => {
    const start = new Date('2026-11-01T00:00:00.000Z');
    const end = new Date('2026-11-30T23:59:59.999Z');
    const p = previousPeriod(start, end);
    assert.equal(p.end.toISOString(), '2026-10-31T23:59:59.999Z');
    assert.equal(p.start.toISOString(), '2026-10-02T00:00:00.000Z');
    assert.equal(p.end.getTime() - p.start.getTime(), end.getTime() - start.getTime());
  });
});

const NOW = Date.parse('2026-11-27T10:00:00Z');
const T: WatchThresholds = { ...DEFAULT_WATCH };
const w = watchWindow(NOW, T);
const day = (n: number) => Date.parse('2026-11-26T00:00:00Z') - n * DAY_MS; // day(0) = yesterday
const row = (source: string, emails: number, pass: boolean, at: number): WatchRow => ({ source, emails, alignedSpf: pass ? 'pass' : 'fail', alignedDkim: 'none', dateMs: at + 3600_000 });
/** A steady baseline: every day of it, Google 1,000 passing and Mailchimp 200 (90% passing). */
const steady = (days = 14, from = 1): WatchRow[] =>
  Array.from({ length: days }, (_, i) => [row('Google', 1000, true, day(i + from)), row('Mailchimp', 180, true, day(i + from)), row('Mailchimp', 20, false, day(i + from))]).flat();
const today = (extra: WatchRow[] = []) => [row('Google', 1000, true, day(0)), row('Mailchimp', 180, true, day(0)), row('Mailchimp', 20, false, day(0)), ...extra];
const kinds = (rs: WatchRow[], t = T) => findingsOf(rs, w, t).map((f) => `${f.kind}:${f.subject}`);

describe('watch: findings', () => {
  it('looks at yesterday against the 14 days before it, whole UTC days', () => {
    assert.equal(new Date(w.end).toISOString(), '2026-11-26T23:59:59.999Z');
    assert.equal(new Date(w.recentStart).toISOString(), '2026-11-26T00:00:00.000Z');
    assert.equal(new Date(w.baselineStart).toISOString(), '2026-11-12T00:00:00.000Z');
  });

  it('a steady organization raises nothing', () => {
    assert.deepEqual(kinds([...steady(), ...today()]), []);
  });

  it('a new sender failing with at least minEmails is raised; one email less is not', () => {
    assert.deepEqual(kinds([...steady(), ...today([row('Brevo', 100, false, day(0))])]), ['new-sender:Brevo']);
    assert.deepEqual(kinds([...steady(), ...today([row('Brevo', 99, false, day(0)), row('Brevo', 500, true, day(0))])]), []);
    // Seen in the baseline: not new, whatever it sends now.
    assert.deepEqual(kinds([...steady(), row('Brevo', 1, true, day(9)), ...today([row('Brevo', 100, false, day(0))])]), []);
  });

  it('a pass-rate drop of more than dropPoints is raised, for a source and for the organization; exactly dropPoints is not', () => {
    // Mailchimp 90% → 80% is exactly 10 points: not raised; → 79.5% is.
    assert.deepEqual(kinds([...steady(), row('Google', 1000, true, day(0)), row('Mailchimp', 160, true, day(0)), row('Mailchimp', 40, false, day(0))]), []);
    const drop = [...steady(), row('Google', 1000, true, day(0)), row('Mailchimp', 159, true, day(0)), row('Mailchimp', 41, false, day(0))];
    assert.deepEqual(kinds(drop), ['pass-drop:Mailchimp']);
    // The whole organization: Google fails too.
    const all = [...steady(), row('Google', 1000, false, day(0)), row('Mailchimp', 20, true, day(0)), row('Mailchimp', 180, false, day(0))];
    assert.deepEqual(kinds(all), ['pass-drop:', 'pass-drop:Google', 'pass-drop:Mailchimp']);
    // A source with fewer than minEmails in either window is not judged.
    assert.deepEqual(kinds(drop, { ...T, minEmails: 201 }), []);
  });

  it('a volume spike above spikeFactor × the baseline per day is raised; at exactly the factor it is not', () => {
    assert.deepEqual(kinds([...steady(), ...today(), row('Google', 2401, true, day(0))]), ['volume-spike:']);
    assert.deepEqual(kinds([...steady(), ...today(), row('Google', 2400, true, day(0))]), [], '1,200 a day before, 3,600 now: exactly 3×');
  });

  it('reports stopped: no rows in the last silentDays days raises it; a row on the last of them does not', () => {
    assert.deepEqual(kinds(steady(11, 3)), ['reports-stopped:']);
    assert.deepEqual(kinds([...steady(11, 3), row('Google', 1, true, day(2))]), []);
    assert.deepEqual(kinds([]), [], 'an organization that never had rows is not said to have stopped');
  });

  it('equals a naive reading over 300 seeded organizations', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const t: WatchThresholds = { ...T, minEmails: 50 + (seed % 5) * 100, dropPoints: 5 + (seed % 4) * 5, spikeFactor: 1 + (seed % 3) };
      const base = rows(seed, 60, w.baselineStart, 14, SOURCES.slice(0, 4));
      const recent = seed % 7 === 0 ? [] : rows(seed + 7, 6 + (seed % 9) * 4, w.recentStart, 1, seed % 2 ? SOURCES : SOURCES.slice(0, 4));
      const got = new Set(kinds([...base, ...recent], t));
      const want = new Set<string>();
      const recentRows = recent;
      const lastMs = Math.max(...[...base, ...recent].map((r) => r.dateMs));
      if (base.length && lastMs < w.end + 1 - t.silentDays * DAY_MS) want.add('reports-stopped:');
      for (const s of SOURCES) {
        const e = emailsOf(recentRows, s);
        const b = emailsOf(base, s);
        const pn = naiveRate(recentRows, s);
        const pb = naiveRate(base, s);
        const failing = recentRows.filter((r) => r.source === s && r.alignedSpf !== 'pass' && r.alignedDkim !== 'pass').reduce((a, r) => a + r.emails, 0);
        if (e > 0 && b === 0 && failing >= t.minEmails) want.add(`new-sender:${s}`);
        if (pn !== undefined && pb !== undefined && (pb - pn) * 100 > t.dropPoints && e >= t.minEmails && b >= t.minEmails) want.add(`pass-drop:${s}`);
      }
      const [pn, pb] = [naiveRate(recentRows), naiveRate(base)];
      const [e, b] = [emailsOf(recentRows), emailsOf(base)];
      if (pn !== undefined && pb !== undefined && (pb - pn) * 100 > t.dropPoints && e >= t.minEmails) want.add('pass-drop:');
      if (b > 0 && e >= t.minEmails && e > t.spikeFactor * (b / 14)) want.add('volume-spike:');
      assert.deepEqual(got, want, `seed ${seed}`);
    }
  });

  it('a finding is the same finding across runs while it lasts: its id has no date', () => {
    const [a] = findingsOf([...steady(), ...today([row('Brevo', 300, false, day(0))])], w, T);
    const [b] = findingsOf([...steady(14, 2), row('Brevo', 300, false, day(1)), ...today([row('Brevo', 300, false, day(0))])], watchWindow(NOW, T), T);
    assert.equal(a!.kind, 'new-sender');
    assert.equal(findingId('acc', 'acme', a!), 'acc\u0000acme\u0000new-sender\u0000Brevo');
    assert.notEqual(b?.kind, 'new-sender', 'seen in the baseline the next day: no longer new');
  });
});
