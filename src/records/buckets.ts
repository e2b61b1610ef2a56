/**
 * Date buckets for the tree: "Last 7 days", "Last 30 days", then calendar months, each
 * expanding into its days or ISO weeks. Everything is in UTC: the API filters on the rows'
 * `date` (ISO 8601, UTC), so a bucket means the same rows for every user whatever their time
 * zone, and the tooltips say so.
 *
 * Bounds are inclusive on both ends, to the millisecond (`end` is always `…T23:59:59.999Z`),
 * because the API's `startDate`/`endDate` are both inclusive.
 *
 * Labels are English and built without `Intl`, so the core stays deterministic in tests; the
 * tree may replace them with localised text built from `start`/`end`.
 */

export const DAY_MS = 86_400_000;

/**
 * How many whole days after a period ends before it counts as closed (its rows no longer
 * change). DMARC aggregate reports each cover up to a day and reach the service hours, often a
 * day, after that day ends, so "yesterday" keeps gaining rows during today. Treating a period
 * as closed only once it ended `SETTLE_DAYS` before the start of today keeps incomplete data
 * out of the disk cache. Pass `settleDays: 0` for the strict "ended before today" reading.
 */
export const DEFAULT_SETTLE_DAYS = 2;

export type BucketKind = 'last-days' | 'month' | 'day' | 'week' | 'custom';

export interface Bucket {
  /** Stable across reloads for the same period (for tree ids and view state). */
  id: string;
  label: string;
  kind: BucketKind;
  /** Inclusive, 00:00:00.000 UTC. */
  start: Date;
  /** Inclusive, 23:59:59.999 UTC. */
  end: Date;
  /** The period is settled (see DEFAULT_SETTLE_DAYS): its data no longer changes. */
  closed: boolean;
  tooltip: string;
  /** Months only: their days or ISO weeks, newest first, none in the future. */
  children?: Bucket[];
}

export interface BucketOptions {
  /** Calendar months listed, this month included. Default 13 (this month and the previous 12). */
  months?: number;
  monthChildren?: 'days' | 'weeks';
  settleDays?: number;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MON = MONTHS.map((m) => m.slice(0, 3));
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function startOfUtcDay(d: Date | number): Date {
  const t = typeof d === 'number' ? d : d.getTime();
  return new Date(t - mod(t, DAY_MS));
}

export function endOfUtcDay(d: Date | number): Date {
  return new Date(startOfUtcDay(d).getTime() + DAY_MS - 1);
}

/** Whether a period ending at `end` is settled at `now` (see DEFAULT_SETTLE_DAYS). */
export function isClosed(end: Date | number, now: Date, settleDays = DEFAULT_SETTLE_DAYS): boolean {
  const e = typeof end === 'number' ? end : end.getTime();
  return e < startOfUtcDay(now).getTime() - settleDays * DAY_MS;
}

/** The cache key of an inclusive range: ISO 8601 interval notation, `start/end`. */
export function rangeKey(start: Date | number, end: Date | number): string {
  return `${new Date(start).toISOString()}/${new Date(end).toISOString()}`;
}

/** `YYYY-MM-DD` of a UTC day. */
export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * Parses a strict `YYYY-MM-DD` (a real calendar date) to 00:00 UTC of that day; anything else
 * gives undefined. For validating custom-range input.
 */
export function parseUtcDay(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  return date;
}

/** "1 Nov 2026" */
export function formatDay(d: Date): string {
  return `${d.getUTCDate()} ${MON[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

function boundsText(start: Date, end: Date): string {
  return `${formatDay(start)} 00:00 – ${formatDay(end)} 23:59:59.999 UTC`;
}

function tooltipFor(label: string, start: Date, end: Date, closed: boolean): string {
  const state = closed ? 'Complete: reports for this period have settled.' : 'Still receiving reports.';
  return `${label}\n${boundsText(start, end)} (all boundaries in UTC)\n${state}`;
}

function make(id: string, label: string, kind: BucketKind, start: Date, end: Date, now: Date, settleDays: number): Bucket {
  const closed = isClosed(end, now, settleDays);
  return { id, label, kind, start, end, closed, tooltip: tooltipFor(label, start, end, closed) };
}

/**
 * The last `days` calendar days, today included: from 00:00 UTC `days - 1` days ago to the end
 * of today. Whole days rather than a rolling `now - days*24h`, so the range (and its cache
 * entry) stays the same all day and a day's rows are never cut in half.
 */
export function lastDaysBucket(days: number, now: Date, settleDays = DEFAULT_SETTLE_DAYS): Bucket {
  const end = endOfUtcDay(now);
  const start = new Date(startOfUtcDay(now).getTime() - (days - 1) * DAY_MS);
  return make(`last-${days}`, `Last ${days} days`, 'last-days', start, end, now, settleDays);
}

/** The calendar month `monthIndex` (0-11, may overflow: Date.UTC normalises) of `year`. */
export function monthBucket(year: number, monthIndex: number, now: Date, opts: { monthChildren?: 'days' | 'weeks'; settleDays?: number } = {}): Bucket {
  const settleDays = opts.settleDays ?? DEFAULT_SETTLE_DAYS;
  const start = new Date(Date.UTC(year, monthIndex, 1));
  const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1) - 1);
  const y = start.getUTCFullYear();
  const m = start.getUTCMonth();
  const b = make(`month:${y}-${pad2(m + 1)}`, `${MONTHS[m]} ${y}`, 'month', start, end, now, settleDays);
  b.children = monthChildren(b, now, opts.monthChildren ?? 'days', settleDays);
  return b;
}

/**
 * A month's days or ISO weeks (Monday to Sunday, clipped to the month), newest first. Days
 * after today are left out; a week is listed when its clipped start is not after today.
 */
export function monthChildren(month: Bucket, now: Date, mode: 'days' | 'weeks', settleDays = DEFAULT_SETTLE_DAYS): Bucket[] {
  const todayStart = startOfUtcDay(now).getTime();
  const out: Bucket[] = [];
  const ym = isoDay(month.start).slice(0, 7);
  if (mode === 'days') {
    for (let t = startOfUtcDay(month.end).getTime(); t >= month.start.getTime(); t -= DAY_MS) {
      if (t > todayStart) continue;
      const d = new Date(t);
      const label = `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MON[d.getUTCMonth()]}`;
      out.push(make(`day:${isoDay(d)}`, label, 'day', d, new Date(t + DAY_MS - 1), now, settleDays));
    }
    return out;
  }
  // Monday on or before the 1st; getUTCDay() is 0 for Sunday.
  const first = month.start.getTime();
  let weekStart = first - mod(month.start.getUTCDay() - 1, 7) * DAY_MS;
  const weeks: Bucket[] = [];
  for (; weekStart <= month.end.getTime(); weekStart += 7 * DAY_MS) {
    const s = Math.max(weekStart, first);
    if (s > todayStart) break;
    const e = Math.min(weekStart + 7 * DAY_MS - 1, month.end.getTime());
    const { year, week } = isoWeek(new Date(weekStart));
    const sd = new Date(s);
    const ed = new Date(e);
    const days = sd.getUTCDate() === ed.getUTCDate()
      ? `${sd.getUTCDate()} ${MON[sd.getUTCMonth()]}`
      : `${sd.getUTCDate()}–${ed.getUTCDate()} ${MON[sd.getUTCMonth()]}`;
    weeks.push(make(`week:${year}-W${pad2(week)}@${ym}`, `Week ${week} · ${days}`, 'week', sd, ed, now, settleDays));
  }
  return weeks.reverse();
}

/** ISO 8601 week number and week-year of the week containing `d`. */
export function isoWeek(d: Date): { year: number; week: number } {
  const day = startOfUtcDay(d).getTime();
  // The Thursday of this ISO week decides the year.
  const thursday = new Date(day + (3 - mod(d.getUTCDay() - 1, 7)) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const jan1 = Date.UTC(year, 0, 1);
  return { year, week: Math.floor((thursday.getTime() - jan1) / (7 * DAY_MS)) + 1 };
}

/** Top-level buckets: Last 7 days, Last 30 days, then `months` calendar months, newest first. */
export function buildBuckets(now: Date, opts: BucketOptions = {}): Bucket[] {
  const months = opts.months ?? 13;
  const settleDays = opts.settleDays ?? DEFAULT_SETTLE_DAYS;
  const out = [lastDaysBucket(7, now, settleDays), lastDaysBucket(30, now, settleDays)];
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  for (let i = 0; i < months; i++) {
    out.push(monthBucket(y, m - i, now, { monthChildren: opts.monthChildren ?? 'days', settleDays }));
  }
  return out;
}

/**
 * A user-chosen range of whole UTC days, both included: `start` snaps to 00:00 of its day, `end`
 * to 23:59:59.999 of its day. Accepts Dates or strict `YYYY-MM-DD` strings; throws RangeError
 * on an invalid date or when start is after end.
 */
export function customBucket(start: Date | string, end: Date | string, now: Date, settleDays = DEFAULT_SETTLE_DAYS): Bucket {
  const s = toDay(start, 'start');
  const e = toDay(end, 'end');
  if (s.getTime() > e.getTime()) throw new RangeError('The start date is after the end date.');
  const endDate = new Date(e.getTime() + DAY_MS - 1);
  const label = s.getTime() === e.getTime() ? formatDay(s) : `${formatDay(s)} – ${formatDay(e)}`;
  return make(`custom:${isoDay(s)}..${isoDay(e)}`, label, 'custom', s, endDate, now, settleDays);
}

function toDay(v: Date | string, which: string): Date {
  const d = typeof v === 'string' ? parseUtcDay(v) : Number.isFinite(v.getTime()) ? startOfUtcDay(v) : undefined;
  if (!d) throw new RangeError(`The ${which} date is not a valid YYYY-MM-DD date.`);
  return d;
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
