/**
 * The trend's numbers, DOM-free: emails per UTC hour, day or ISO week over a set of rows,
 * optionally split into stacked series by a field's values (the top N by emails, plus "other").
 * Everything runs on typed arrays indexed by row or by value code, in a few linear passes.
 */
import type { Facts, FieldIndex } from './fieldTypes';

export type TrendUnit = 'hour' | 'day' | 'week';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const WEEK = 7 * DAY;
const SIZE: Record<TrendUnit, number> = { hour: HOUR, day: DAY, week: WEEK };

/** The length of one bucket in ms (UTC has no DST, so every unit has a fixed length). */
export function unitMs(unit: TrendUnit): number {
  return SIZE[unit];
}

export interface TrendSeries {
  key: string;
  /** The split value's code (dict.length for rows without a value); -1 for "other", -2 for the single series without a split. */
  code: number;
  values: Float64Array;
}

export interface Trend {
  unit: TrendUnit;
  starts: Float64Array;
  series: TrendSeries[];
  /** Emails per bucket, each row once. */
  totals: Float64Array;
  rowsTotals: Uint32Array;
  /** Rows without a date, or dated outside the range. */
  outside: { rows: number; emails: number };
  /** The range's start: the first bucket (a week, an hour) may begin before it. */
  rangeStartMs: number;
}

/** Where bucket `b` starts inside the range, for its label: a week starting Monday 27 Oct of a range from 1 Nov reads "1 Nov". */
export function labelStart(t: Pick<Trend, 'starts' | 'rangeStartMs'>, b: number): number {
  const s = t.starts[b]!;
  return Number.isFinite(t.rangeStartMs) && t.rangeStartMs > s ? t.rangeStartMs : s;
}

export interface TrendOptions {
  /** How many values get a series of their own (default 8). */
  top?: number;
  /** Exactly these split codes as series, in this order (plus "other"); overrides `top`. */
  keys?: readonly number[];
}

/** Hours for two days or less, ISO weeks beyond 180 days, days in between (end inclusive). */
export function trendUnit(startMs: number, endMs: number): TrendUnit {
  const span = endMs - startMs + 1;
  if (span <= 2 * DAY) return 'hour';
  if (span > 180 * DAY) return 'week';
  return 'day';
}

/** The start of the bucket holding `ms`: the UTC hour, day, or ISO week (Monday 00:00 UTC). */
export function bucketStart(ms: number, unit: TrendUnit): number {
  if (unit === 'hour') return Math.floor(ms / HOUR) * HOUR;
  const days = Math.floor(ms / DAY);
  if (unit === 'day') return days * DAY;
  // 1970-01-01 was a Thursday: a day is (days + 3) mod 7 days after a Monday.
  return (days - ((((days + 3) % 7) + 7) % 7)) * DAY;
}

/** Bucket starts covering [startMs, endMs]; empty when the range is empty or not finite. */
export function bucketStarts(startMs: number, endMs: number, unit: TrendUnit): Float64Array {
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs) || endMs < startMs) return new Float64Array(0);
  const size = SIZE[unit];
  const first = bucketStart(startMs, unit);
  const n = Math.floor((endMs - first) / size) + 1;
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) out[k] = first + k * size;
  return out;
}

/** The bucket holding `ms`, or -1 outside the buckets. */
export function bucketIndex(ms: number, starts: Float64Array, unit: TrendUnit): number {
  if (starts.length === 0 || !Number.isFinite(ms)) return -1;
  const k = Math.floor((ms - starts[0]!) / SIZE[unit]);
  return k >= 0 && k < starts.length ? k : -1;
}

/** The instants buckets from…to cover, inclusive: from the start of `from` to 1 ms before the start of `to + 1`. */
export function bucketRange(starts: Float64Array, unit: TrendUnit, from: number, to: number): { startMs: number; endMs: number } {
  const first = starts.length ? starts[0]! : 0;
  const size = SIZE[unit];
  return { startMs: first + from * size, endMs: first + (to + 1) * size - 1 };
}

/** Whether value code a ranks before b: more emails first, then the value's text in code-unit order, then the code. */
function before(a: number, b: number, emails: Float64Array, key: (c: number) => string): boolean {
  const ea = emails[a]!;
  const eb = emails[b]!;
  if (ea !== eb) return ea > eb;
  const ka = key(a);
  const kb = key(b);
  if (ka !== kb) return ka < kb;
  return a < b;
}

/** The `top` codes among those present, best first; linear for a small `top`. */
function topCodes(present: Uint8Array, emails: Float64Array, key: (c: number) => string, top: number): number[] {
  const out: number[] = [];
  if (top <= 0) return out;
  for (let c = 0; c < present.length; c++) {
    if (!present[c]) continue;
    if (out.length === top && !before(c, out[top - 1]!, emails, key)) continue;
    let j = out.length === top ? top - 1 : out.length;
    while (j > 0 && before(c, out[j - 1]!, emails, key)) {
      out[j] = out[j - 1]!;
      j--;
    }
    out[j] = c;
  }
  return out;
}

export function computeTrend(rows: Uint32Array, facts: Facts, range: { startMs: number; endMs: number }, split?: FieldIndex, opts: TrendOptions = {}): Trend {
  const unit = trendUnit(range.startMs, range.endMs);
  const starts = bucketStarts(range.startMs, range.endMs, unit);
  const nb = starts.length;
  const size = SIZE[unit];
  const first = nb ? starts[0]! : 0;
  const totals = new Float64Array(nb);
  const rowsTotals = new Uint32Array(nb);
  const bucketOf = new Int32Array(rows.length);
  const outside = { rows: 0, emails: 0 };
  const lo = range.startMs;
  const hi = range.endMs;
  const dateMs = facts.dateMs;
  const emails = facts.emails;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k]!;
    const ms = dateMs[i]!;
    // NaN fails both comparisons.
    if (ms >= lo && ms <= hi) {
      const b = Math.floor((ms - first) / size);
      bucketOf[k] = b;
      totals[b]! += emails[i]!;
      rowsTotals[b]!++;
    } else {
      bucketOf[k] = -1;
      outside.rows++;
      outside.emails += emails[i]!;
    }
  }
  const rangeStartMs = range.startMs;
  if (!split) return { unit, starts, series: [{ key: 'emails', code: -2, values: totals.slice() }], totals, rowsTotals, outside, rangeStartMs };

  const dict = split.dict;
  // Code dict.length stands for "no value" (a multi-valued row with none): its key is ''.
  const n = dict.length + 1;
  const key = (c: number): string => (c < dict.length ? dict[c]! : '');
  const multi = split.kind === 'multi';
  const start = multi ? split.start : undefined;
  const codes = split.codes;
  // `stamp[c] === k + 1` when value c was already seen on the k-th row (a row's values counted once).
  const stamp = new Int32Array(n);

  let chosen: number[];
  if (opts.keys) {
    chosen = [];
    for (const c of opts.keys) if (Number.isInteger(c) && c >= 0 && c < n && !chosen.includes(c)) chosen.push(c);
  } else {
    const byCode = new Float64Array(n);
    const present = new Uint8Array(n);
    for (let k = 0; k < rows.length; k++) {
      if (bucketOf[k]! < 0) continue;
      const i = rows[k]!;
      const e = emails[i]!;
      if (!start) {
        const c = codes[i]!;
        byCode[c]! += e;
        present[c] = 1;
        continue;
      }
      const s = start[i]!;
      const end = start[i + 1]!;
      if (s === end) {
        byCode[n - 1]! += e;
        present[n - 1] = 1;
      }
      for (let j = s; j < end; j++) {
        const c = codes[j]!;
        if (stamp[c] === k + 1) continue;
        stamp[c] = k + 1;
        byCode[c]! += e;
        present[c] = 1;
      }
    }
    const top = Math.max(0, Math.floor(opts.top ?? 8));
    chosen = topCodes(present, byCode, key, top);
    stamp.fill(0);
  }

  const slot = new Int32Array(n).fill(-1);
  for (let s = 0; s < chosen.length; s++) slot[chosen[s]!] = s;
  const values = chosen.map(() => new Float64Array(nb));
  const other = new Float64Array(nb);
  let hasOther = false;
  for (let k = 0; k < rows.length; k++) {
    const b = bucketOf[k]!;
    if (b < 0) continue;
    const i = rows[k]!;
    const e = emails[i]!;
    if (!start) {
      const s = slot[codes[i]!]!;
      if (s >= 0) values[s]![b]! += e;
      else {
        other[b]! += e;
        hasOther = true;
      }
      continue;
    }
    const s0 = start[i]!;
    const end = start[i + 1]!;
    let inOther = false;
    if (s0 === end) {
      const s = slot[n - 1]!;
      if (s >= 0) values[s]![b]! += e;
      else inOther = true;
    }
    for (let j = s0; j < end; j++) {
      const c = codes[j]!;
      if (stamp[c] === k + 1) continue;
      stamp[c] = k + 1;
      const s = slot[c]!;
      if (s >= 0) values[s]![b]! += e;
      else inOther = true;
    }
    // "Other" is one series: a row with several unchosen values counts in it once.
    if (inOther) {
      other[b]! += e;
      hasOther = true;
    }
  }
  const series: TrendSeries[] = chosen.map((c, s) => ({ key: key(c), code: c, values: values[s]! }));
  if (hasOther) series.push({ key: 'other', code: -1, values: other });
  return { unit, starts, series, totals, rowsTotals, outside, rangeStartMs };
}

/** The same trend with each series as its share (0–1) of the bucket's total; 0 where the total is 0. */
export function shareOf(t: Trend): Trend {
  const totals = t.totals;
  const series = t.series.map((s) => {
    const values = new Float64Array(s.values.length);
    for (let b = 0; b < values.length; b++) {
      const total = totals[b]!;
      values[b] = total > 0 ? s.values[b]! / total : 0;
    }
    return { key: s.key, code: s.code, values };
  });
  return { ...t, series };
}
