// The Overview's row of one organization (src/overview/overviewRow.ts) against a naive computation
// over generated rows: the local API server's realistic days (test/server/data.ts) read by the
// real client's normaliser, across the previous period, this one and days outside both. Emails,
// pass rates, the change (Δ emails, Δ pass in points, new and gone), each day's rate and the last
// day with rows are recomputed here from their definitions; the sources to fix, the
// Unauthenticated emails and the readiness must be the tree's Health (periodHealth) of the same
// rows, with the same thresholds and marks.
import { strict as assert } from 'node:assert';
import type { DmarcRecord } from '../../src/api/types';
import { normaliseRows } from '../../src/api';
import { periodHealth } from '../../src/advice/health';
import { DEFAULT_THRESHOLDS } from '../../src/advice/vocabulary';
import { lastDaysBucket } from '../../src/records/buckets';
import { fetchRange, overviewFigures, periodDays, type OverviewPeriod } from '../../src/overview/overviewRow';
import { generateDay, organizationFor, ORGANIZATIONS, Rng } from '../server/data';

const DAY = 86_400_000;
const NOW = new Date(Date.UTC(2026, 10, 16, 15, 30));
const opts = { thresholds: { ...DEFAULT_THRESHOLDS }, locale: 'en-US' };

/** The rows of these UTC days (day index since the epoch) for an organization, as the extension reads them. */
async function days(orgId: string, from: number, to: number, rowsPerDay?: (day: number) => number): Promise<DmarcRecord[]> {
  const wire = [];
  for (let d = from; d <= to; d++) wire.push(...generateDay(organizationFor(orgId), d, 7, rowsPerDay?.(d)));
  const { records, rejected } = await normaliseRows(wire);
  assert.equal(rejected.count, 0);
  return records.sort((a, b) => a.dateMs - b.dateMs);
}

/** What each figure means, computed the plain way. */
function naive(records: readonly DmarcRecord[], p: OverviewPeriod) {
  const s = p.start.getTime();
  const e = p.end.getTime();
  const len = e - s;
  const ps = s - 1 - len;
  const inNow = records.filter((r) => r.dateMs >= s && r.dateMs <= e);
  const inBefore = records.filter((r) => r.dateMs >= ps && r.dateMs <= s - 1);
  const sum = (rows: DmarcRecord[], pass: boolean) => rows.reduce((a, r) => a + (!pass || r.alignedSpf === 'pass' || r.alignedDkim === 'pass' ? r.emails : 0), 0);
  const emails = sum(inNow, false);
  const before = sum(inBefore, false);
  const passRate = emails > 0 ? sum(inNow, true) / emails : null;
  const passBefore = before > 0 ? sum(inBefore, true) / before : null;
  const dayCount = Math.round((len + 1) / DAY);
  const daily = Array.from({ length: dayCount }, (_, i) => {
    const rows = inNow.filter((r) => r.dateMs >= s + i * DAY && r.dateMs < s + (i + 1) * DAY);
    const n = sum(rows, false);
    return n > 0 ? sum(rows, true) / n : null;
  });
  const all = [...inNow, ...inBefore].map((r) => r.dateMs);
  return {
    emails, before, passRate, passBefore, deltaEmails: emails - before,
    deltaPass: passRate === null || passBefore === null ? null : (passRate - passBefore) * 100,
    status: emails > 0 && before === 0 ? 'new' : emails === 0 && before > 0 ? 'gone' : 'kept',
    daily, lastDay: all.length ? new Date(Math.max(...all)).toISOString().slice(0, 10) : null, inNow,
  };
}

function assertClose(a: number | null, b: number | null, what: string): void {
  if (a === null || b === null) return assert.equal(a, b, what);
  assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);
}

function check(records: DmarcRecord[], p: OverviewPeriod, marks?: Map<string, 'mine' | 'not-mine'>): ReturnType<typeof overviewFigures> {
  const got = overviewFigures(records, p, { ...opts, ...(marks ? { marks } : {}) });
  const want = naive(records, p);
  assert.equal(got.emails, want.emails, 'emails');
  assert.equal(got.before, want.before, 'emails before');
  assert.equal(got.deltaEmails, want.deltaEmails, 'Δ emails');
  assertClose(got.passRate, want.passRate, 'pass rate');
  assertClose(got.passBefore, want.passBefore, 'pass rate before');
  assertClose(got.deltaPass, want.deltaPass, 'Δ pass');
  assert.equal(got.status, want.status, 'status');
  assert.equal(got.daily.length, want.daily.length, 'days');
  got.daily.forEach((v, i) => assertClose(v, want.daily[i]!, `day ${i}`));
  assert.equal(got.lastDay, want.lastDay, 'last day');
  // The judged figures are the tree's Health of the period's rows (same thresholds, days, marks).
  const health = periodHealth(want.inNow, { ...opts, days: periodDays(p), ...(marks?.size ? { marks } : {}) });
  assert.equal(got.needsFixing, health.sources.filter((s) => s.verdict === 'needs-fixing').length, 'sources to fix');
  assert.equal(got.unauthenticated, health.mix[3], 'unauthenticated emails');
  assert.equal(got.readiness.kind, health.readiness.step.kind);
  assert.equal(got.readiness.text, health.readiness.step.text);
  return got;
}

describe('overview row (src/overview/overviewRow.ts)', () => {
  const p30 = lastDaysBucket(30, NOW);
  const today = Math.floor(NOW.getTime() / DAY);

  it('the period is the tree\u2019s "Last 30 days" bucket; one range covers it and the 30 days before', () => {
    const r = fetchRange(p30);
    assert.equal(periodDays(p30), 30);
    assert.equal(r.end.getTime(), p30.end.getTime());
    assert.equal(r.start.getTime(), p30.start.getTime() - 30 * DAY, 'the previous 30 whole days');
    assert.equal(periodDays(r), 60);
  });

  it('agrees with the naive figures over generated days of several organizations, days outside both periods included', async function () {
    this.timeout(20_000);
    for (const org of ORGANIZATIONS.slice(0, 6)) {
      // From 5 days before the previous period to today (the server's history ends today).
      const records = await days(org.id, today - 64, today);
      const got = check(records, p30);
      assert.ok(got.emails > 0 && got.before > 0, `${org.id} has mail in both periods`);
      assert.equal(got.lastDay, '2026-11-16');
    }
  });

  it('7 and 90 days, and a period that is not the last', async () => {
    const records = await days('globex', today - 200, today, (d) => (d % 5) + 3);
    check(records, lastDaysBucket(7, NOW));
    check(records, lastDaysBucket(90, NOW));
    const older = { start: new Date((today - 40) * DAY), end: new Date((today - 20) * DAY - 1) };
    check(records, older);
  });

  it('with the owner\u2019s marks, the judged figures follow them as the tree\u2019s do', async () => {
    const records = await days('acme', today - 59, today);
    const plain = check(records, p30);
    const sources = [...new Set(records.map((r) => r.source))];
    const marks = new Map(sources.map((s, i) => [s, i % 2 ? 'mine' : 'not-mine'] as [string, 'mine' | 'not-mine']));
    const marked = check(records, p30, marks);
    assert.notEqual(marked.unauthenticated, plain.unauthenticated, 'marks move rows between classes');
    assert.equal(marked.emails, plain.emails, 'but not the emails or the pass rate');
  });

  it('a new organization (no mail before), one whose mail is gone, and one with none', async () => {
    const recent = await days('initech', today - 10, today);
    const fresh = check(recent, p30);
    assert.equal(fresh.status, 'new');
    assert.equal(fresh.before, 0);
    assert.equal(fresh.deltaPass, null, 'no change in pass rate without a rate before');
    assert.equal(fresh.deltaEmails, fresh.emails);
    assert.deepEqual(fresh.daily.slice(0, 19), Array(19).fill(null), 'no rate for the days without mail');

    const old = await days('initech', today - 50, today - 35);
    const gone = check(old, p30);
    assert.equal(gone.status, 'gone');
    assert.equal(gone.emails, 0);
    assert.equal(gone.passRate, null);
    assert.equal(gone.deltaEmails, -gone.before);
    assert.equal(gone.lastDay, new Date((today - 35) * DAY).toISOString().slice(0, 10), 'the last day with rows says when reports stopped');
    assert.equal(gone.readiness.kind, 'no-mail');
    assert.equal(gone.readiness.label, 'No mail');

    const none = check([], p30);
    assert.deepEqual([none.emails, none.before, none.passRate, none.deltaPass, none.status, none.lastDay, none.needsFixing, none.unauthenticated], [0, 0, null, null, 'kept', null, 0, 0]);
    assert.equal(none.daily.filter((d) => d !== null).length, 0);
  });

  it('bounds are inclusive to the millisecond, as the buckets are: a row on each edge lands in its period', async () => {
    const [base] = await days('oscorp', today, today, () => 1);
    const s = p30.start.getTime();
    const e = p30.end.getTime();
    const prevStart = s - 30 * DAY;
    const at = (ms: number, pass: boolean, emails: number): DmarcRecord => ({ ...base!, dateMs: ms, date: new Date(ms).toISOString(), emails, alignedSpf: pass ? 'pass' : 'fail', alignedDkim: 'fail' });
    const rows = [at(prevStart - 1, true, 1000), at(prevStart, true, 3), at(s - 1, false, 1), at(s, true, 5), at(e, false, 5), at(e + 1, true, 1000)];
    const got = check(rows, p30);
    assert.deepEqual([got.emails, got.before], [10, 4], 'the rows a millisecond outside are in neither');
    assert.equal(got.passRate, 0.5);
    assert.equal(got.passBefore, 0.75);
    assert.equal(got.deltaPass, -25);
    assert.equal(got.daily[0], 1, 'the first instant is the first day');
    assert.equal(got.daily[29], 0, 'the last millisecond is the last day');
    assert.equal(got.lastDay, new Date(e).toISOString().slice(0, 10));
  });

  it('random rows in any order give the naive figures', async () => {
    const [base] = await days('tyrell', today, today, () => 1);
    const r = new Rng(42);
    const s = p30.start.getTime();
    for (let k = 0; k < 30; k++) {
      const n = r.int(0, 80);
      const rows: DmarcRecord[] = Array.from({ length: n }, () => {
        const ms = s - 35 * DAY + Math.floor(r.next() * 70 * DAY);
        return { ...base!, dateMs: ms, date: new Date(ms).toISOString(), emails: r.int(0, 500), alignedSpf: r.chance(0.5) ? 'pass' : 'fail', alignedDkim: r.chance(0.3) ? 'pass' : 'none', source: r.pick(['A', 'B', 'C']) };
      });
      check(rows, p30);
    }
  });
});
