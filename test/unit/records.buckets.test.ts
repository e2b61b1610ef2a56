import { strict as assert } from 'node:assert';
import {
  type Bucket,
  buildBuckets,
  customBucket,
  isClosed,
  isoWeek,
  lastDaysBucket,
  monthBucket,
  monthChildren,
  parseUtcDay,
  rangeKey,
} from '../../src/records/buckets';

const inBucket = (b: Bucket, iso: string): boolean => {
  const t = Date.parse(iso);
  return t >= b.start.getTime() && t <= b.end.getTime();
};
const iso = (d: Date): string => d.toISOString();

describe('records: buckets (UTC)', () => {
  // A Saturday, mid-afternoon UTC.
  const now = new Date('2026-11-21T15:30:00.000Z');

  it('lists Last 7 days, Last 30 days, then 13 months newest first', () => {
    const b = buildBuckets(now);
    assert.equal(b.length, 15);
    assert.deepEqual(b.slice(0, 2).map((x) => [x.id, x.label, x.kind]), [
      ['last-7', 'Last 7 days', 'last-days'],
      ['last-30', 'Last 30 days', 'last-days'],
    ]);
    assert.deepEqual(b.slice(2).map((x) => x.label), [
      'November 2026', 'October 2026', 'September 2026', 'August 2026', 'July 2026', 'June 2026', 'May 2026',
      'April 2026', 'March 2026', 'February 2026', 'January 2026', 'December 2025', 'November 2025',
    ]);
    assert.ok(b.slice(2).every((x) => x.kind === 'month'));
    assert.equal(buildBuckets(now, { months: 3 }).length, 5);
  });

  it('Last N days are whole UTC days ending at the end of today', () => {
    const [l7, l30] = buildBuckets(now);
    assert.equal(iso(l7!.start), '2026-11-15T00:00:00.000Z');
    assert.equal(iso(l7!.end), '2026-11-21T23:59:59.999Z');
    assert.equal(iso(l30!.start), '2026-10-23T00:00:00.000Z');
    assert.equal(iso(l30!.end), '2026-11-21T23:59:59.999Z');
    assert.ok(inBucket(l7!, '2026-11-15T00:00:00.000Z'));
    assert.ok(!inBucket(l7!, '2026-11-14T23:59:59.999Z'));
    assert.equal(l7!.closed, false);
    // The same range all day long, so its cache entry holds from 00:00 to 23:59.
    assert.equal(rangeKey(lastDaysBucket(7, new Date('2026-11-21T00:00:00.000Z')).start, l7!.end), rangeKey(l7!.start, l7!.end));
    assert.equal(rangeKey(lastDaysBucket(7, new Date('2026-11-21T23:59:59.999Z')).start, l7!.end), rangeKey(l7!.start, l7!.end));
  });

  it('a month covers exactly its days: the last millisecond in, the next one out', () => {
    const nov = monthBucket(2026, 10, now);
    assert.equal(iso(nov.start), '2026-11-01T00:00:00.000Z');
    assert.equal(iso(nov.end), '2026-11-30T23:59:59.999Z');
    assert.ok(inBucket(nov, '2026-11-30T23:59:59.999Z'));
    assert.ok(!inBucket(nov, '2026-12-01T00:00:00.000Z'));
    assert.ok(inBucket(nov, '2026-11-01T00:00:00.000Z'));
    assert.ok(!inBucket(nov, '2026-10-31T23:59:59.999Z'));
  });

  it('February is 29 days in 2028 and 28 in 2026', () => {
    const later = new Date('2028-06-01T00:00:00Z');
    const feb28 = monthBucket(2028, 1, later);
    assert.equal(iso(feb28.end), '2028-02-29T23:59:59.999Z');
    assert.ok(inBucket(feb28, '2028-02-29T23:59:59.999Z'));
    assert.ok(!inBucket(feb28, '2028-03-01T00:00:00.000Z'));
    assert.equal(feb28.children!.length, 29);
    assert.equal(feb28.children![0]!.label, 'Tue 29 Feb');

    const feb26 = monthBucket(2026, 1, later);
    assert.equal(iso(feb26.end), '2026-02-28T23:59:59.999Z');
    assert.ok(!inBucket(feb26, '2026-03-01T00:00:00.000Z'));
    assert.equal(feb26.children!.length, 28);
    // 2100 is not a leap year (divisible by 100, not by 400); 2000 was.
    assert.equal(iso(monthBucket(2100, 1, later).end), '2100-02-28T23:59:59.999Z');
    assert.equal(iso(monthBucket(2000, 1, later).end), '2000-02-29T23:59:59.999Z');
  });

  it('consecutive months tile time with no gap or overlap, across a year boundary', () => {
    const months = buildBuckets(new Date('2027-01-05T08:00:00Z')).slice(2);
    assert.equal(months[0]!.label, 'January 2027');
    assert.equal(months[1]!.label, 'December 2026');
    assert.equal(months[12]!.label, 'January 2026');
    for (let i = 0; i + 1 < months.length; i++) {
      assert.equal(months[i + 1]!.end.getTime() + 1, months[i]!.start.getTime());
    }
  });

  it('a month expands into its days, newest first, none in the future', () => {
    const nov = buildBuckets(now)[2]!;
    const days = nov.children!;
    assert.equal(days.length, 21);
    assert.equal(days[0]!.label, 'Sat 21 Nov');
    assert.equal(days[0]!.id, 'day:2026-11-21');
    assert.equal(days[20]!.label, 'Sun 1 Nov');
    assert.equal(iso(days[0]!.start), '2026-11-21T00:00:00.000Z');
    assert.equal(iso(days[0]!.end), '2026-11-21T23:59:59.999Z');
    for (let i = 0; i + 1 < days.length; i++) assert.equal(days[i + 1]!.end.getTime() + 1, days[i]!.start.getTime());

    const oct = buildBuckets(now)[3]!;
    assert.equal(oct.children!.length, 31);
    assert.equal(oct.children![30]!.start.getTime(), oct.start.getTime());
    assert.equal(oct.children![0]!.end.getTime(), oct.end.getTime());
  });

  it('weeks are ISO weeks (Monday–Sunday) clipped to the month', () => {
    const nov = monthBucket(2026, 10, now, { monthChildren: 'weeks' });
    const weeks = nov.children!;
    // 1 Nov 2026 is a Sunday: the month starts with a one-day piece of week 44.
    // Weeks starting after today (23–29 Nov, 30 Nov) are not listed; 16–22 Nov is.
    assert.deepEqual(weeks.map((w) => [w.label, iso(w.start), iso(w.end)]), [
      ['Week 47 · 16–22 Nov', '2026-11-16T00:00:00.000Z', '2026-11-22T23:59:59.999Z'],
      ['Week 46 · 9–15 Nov', '2026-11-09T00:00:00.000Z', '2026-11-15T23:59:59.999Z'],
      ['Week 45 · 2–8 Nov', '2026-11-02T00:00:00.000Z', '2026-11-08T23:59:59.999Z'],
      ['Week 44 · 1 Nov', '2026-11-01T00:00:00.000Z', '2026-11-01T23:59:59.999Z'],
    ]);
    assert.ok(weeks.every((w) => w.kind === 'week'));

    const full = monthChildren(nov, new Date('2027-02-01T00:00:00Z'), 'weeks');
    assert.equal(full.length, 6);
    assert.equal(iso(full[0]!.start), '2026-11-30T00:00:00.000Z');
    assert.equal(iso(full[0]!.end), '2026-11-30T23:59:59.999Z');
    assert.equal(full[0]!.label, 'Week 49 · 30 Nov');
    // The pieces tile the month.
    assert.equal(full.at(-1)!.start.getTime(), nov.start.getTime());
    assert.equal(full[0]!.end.getTime(), nov.end.getTime());
    for (let i = 0; i + 1 < full.length; i++) assert.equal(full[i + 1]!.end.getTime() + 1, full[i]!.start.getTime());

    // Same week in two months: distinct ids.
    const dec = monthBucket(2026, 11, new Date('2027-02-01T00:00:00Z'), { monthChildren: 'weeks' });
    assert.equal(dec.children!.at(-1)!.id, 'week:2026-W49@2026-12');
    assert.equal(full[0]!.id, 'week:2026-W49@2026-11');
    // 1 Jan 2027 is a Friday: 28–31 Dec 2026 is week 53 of 2026.
    assert.equal(dec.children![0]!.label, 'Week 53 · 28–31 Dec');
  });

  it('ISO week numbers at year edges', () => {
    assert.deepEqual(isoWeek(new Date('2027-01-01T12:00:00Z')), { year: 2026, week: 53 });
    assert.deepEqual(isoWeek(new Date('2027-01-04T00:00:00Z')), { year: 2027, week: 1 });
    assert.deepEqual(isoWeek(new Date('2025-12-29T00:00:00Z')), { year: 2026, week: 1 });
    assert.deepEqual(isoWeek(new Date('2024-12-30T00:00:00Z')), { year: 2025, week: 1 });
    assert.deepEqual(isoWeek(new Date('2021-01-03T23:59:59Z')), { year: 2020, week: 53 });
  });

  it('closed means ended before the settle window; today and Last N days are never closed', () => {
    const b = buildBuckets(now);
    const nov = b[2]!;
    const oct = b[3]!;
    assert.equal(nov.closed, false);
    assert.equal(oct.closed, true);
    const day = (d: number) => nov.children!.find((x) => x.start.getUTCDate() === d)!;
    // Default settle window of 2 days: up to 18 Nov is closed on 21 Nov.
    assert.equal(day(18).closed, true);
    assert.equal(day(19).closed, false);
    assert.equal(day(21).closed, false);
    // Strict reading: anything that ended before today.
    const strict = buildBuckets(now, { settleDays: 0 })[2]!.children!;
    assert.equal(strict.find((x) => x.start.getUTCDate() === 20)!.closed, true);
    assert.equal(strict.find((x) => x.start.getUTCDate() === 21)!.closed, false);
    assert.equal(isClosed(new Date('2026-11-20T23:59:59.999Z'), now, 0), true);
    assert.equal(isClosed(new Date('2026-11-21T00:00:00.000Z'), now, 0), false);
    assert.ok(b.slice(0, 2).every((x) => !x.closed));
  });

  it('tooltips state that boundaries are UTC', () => {
    const all = buildBuckets(now);
    for (const b of [...all, ...all.flatMap((m) => m.children ?? [])]) {
      assert.match(b.tooltip, /UTC/);
      assert.ok(b.tooltip.startsWith(b.label));
    }
    assert.match(all[2]!.tooltip, /1 Nov 2026 00:00 – 30 Nov 2026 23:59:59\.999 UTC/);
  });

  it('ids are unique and stable', () => {
    const a = buildBuckets(now, { monthChildren: 'weeks' });
    const ids = [...a, ...a.flatMap((m) => m.children ?? [])].map((x) => x.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(buildBuckets(new Date('2026-11-21T20:00:00Z')).map((x) => x.id), buildBuckets(now).map((x) => x.id));
  });

  it('rangeKey is the ISO 8601 interval', () => {
    assert.equal(rangeKey(new Date('2026-11-01T00:00:00Z'), new Date('2026-11-30T23:59:59.999Z')), '2026-11-01T00:00:00.000Z/2026-11-30T23:59:59.999Z');
    assert.equal(rangeKey(0, 1), '1970-01-01T00:00:00.000Z/1970-01-01T00:00:00.001Z');
  });

  it('custom ranges snap to whole UTC days and validate', () => {
    const c = customBucket('2028-02-27', '2028-03-01', now);
    assert.equal(iso(c.start), '2028-02-27T00:00:00.000Z');
    assert.equal(iso(c.end), '2028-03-01T23:59:59.999Z');
    assert.equal(c.kind, 'custom');
    assert.equal(c.label, '27 Feb 2028 – 1 Mar 2028');
    assert.equal(c.closed, false);
    assert.match(c.tooltip, /UTC/);

    const d = customBucket(new Date('2026-10-03T17:00:00Z'), new Date('2026-10-03T01:00:00Z'), now);
    assert.equal(iso(d.start), '2026-10-03T00:00:00.000Z');
    assert.equal(iso(d.end), '2026-10-03T23:59:59.999Z');
    assert.equal(d.label, '3 Oct 2026');
    assert.equal(d.closed, true);

    assert.throws(() => customBucket('2026-02-29', '2026-03-01', now), RangeError);
    assert.throws(() => customBucket('2026-03-02', '2026-03-01', now), RangeError);
    assert.throws(() => customBucket(new Date(NaN), '2026-03-01', now), RangeError);
  });

  it('a custom bucket is identified by its days, zero-padded, and says which bound is not a date', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    assert.equal(customBucket('2026-01-05', '2026-10-10', now).id, 'custom:2026-01-05..2026-10-10');
    assert.equal(customBucket(new Date('2026-09-09T23:00:00Z'), '2026-11-11', now).id, 'custom:2026-09-09..2026-11-11');
    assert.throws(() => customBucket('2026-02-30', '2026-03-01', now), /^RangeError: The start date is not a valid YYYY-MM-DD date\.$/);
    assert.throws(() => customBucket('2026-03-01', 'soon', now), /^RangeError: The end date is not a valid YYYY-MM-DD date\.$/);
    assert.throws(() => customBucket('2026-03-02', '2026-03-01', now), /^RangeError: The start date is after the end date\.$/);
  });

  it('parseUtcDay accepts only real YYYY-MM-DD dates', () => {
    assert.equal(parseUtcDay('2028-02-29')!.toISOString(), '2028-02-29T00:00:00.000Z');
    assert.equal(parseUtcDay(' 2026-01-31 ')!.toISOString(), '2026-01-31T00:00:00.000Z');
    // 0050 would be read as 1950 by Date.UTC: only the year check refuses it.
    for (const bad of ['2026-02-29', '2026-13-01', '2026-00-10', '2026-1-1', '26-01-01', '2026-01-01T00:00:00Z', '', 'nope', '0050-01-01', 'x2026-01-01']) {
      assert.equal(parseUtcDay(bad), undefined, bad);
    }
  });
});
