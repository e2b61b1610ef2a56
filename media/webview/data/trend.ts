/**
 * The trend's numbers, DOM-free: emails per UTC hour, day or ISO week over a set of rows,
 * optionally split into stacked series by a field's values (the top N by emails, plus "other").
 */
import type { Facts, FieldIndex } from './fieldTypes';

export type TrendUnit = 'hour' | 'day' | 'week';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const WEEK = 7 * DAY;
const SIZE: Record<TrendUnit, number> = { hour: HOUR, day: DAY, week: WEEK };

export interface TrendSeries {
  key: string;
  /** The split value's code; -1 for "other", -2 for the single series without a split. */
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
  const day = Math.floor(ms / DAY) * DAY;
  if (unit === 'day') return day;
  // 1970-01-01 was a Thursday: days since a Monday are (days + 3) mod 7.
  const days = Math.floor(ms / DAY);
  return day - (((days + 3) % 7) + 7) % 7 * DAY;
}

export function bucketStarts(startMs: number, endMs: number, unit: TrendUnit): Float64Array {
  if (!(endMs >= startMs)) return new Float64Array(0);
  const first = bucketStart(startMs, unit);
  const n = Math.floor((endMs - first) / SIZE[unit]) + 1;
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) out[k] = first + k * SIZE[unit];
  return out;
}

/** The bucket holding `ms`, or -1 outside the buckets. */
export function bucketIndex(ms: number, starts: Float64Array, unit: TrendUnit): number {
  if (starts.length === 0 || !Number.isFinite(ms)) return -1;
  const k = Math.floor((ms - starts[0]!) / SIZE[unit]);
  return k >= 0 && k < starts.length ? k : -1;
}

/** The instants buckets from…to cover, inclusive. */
export function bucketRange(starts: Float64Array, unit: TrendUnit, from: number, to: number): { startMs: number; endMs: number } {
  return { startMs: starts[from]!, endMs: starts[to]! + SIZE[unit] - 1 };
}

function eachValue(field: FieldIndex, i: number, fn: (code: number) => void): void {
  if (field.kind === 'single') fn(field.codes[i]!);
  else for (let j = field.start[i]!, e = field.start[i + 1]!; j < e; j++) fn(field.codes[j]!);
}

export function computeTrend(
  rows: Uint32Array,
  facts: Facts,
  range: { startMs: number; endMs: number },
  split?: FieldIndex,
  opts: { top?: number; keys?: readonly number[] } = {},
): Trend {
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
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k]!;
    const ms = facts.dateMs[i]!;
    const b = ms >= lo && ms <= hi ? Math.floor((ms - first) / size) : -1;
    if (b < 0 || b >= nb) {
      bucketOf[k] = -1;
      outside.rows++;
      outside.emails += facts.emails[i]!;
      continue;
    }
    bucketOf[k] = b;
    totals[b]! += facts.emails[i]!;
    rowsTotals[b]!++;
  }
  if (!split) return { unit, starts, series: [{ key: 'emails', code: -2, values: totals.slice() }], totals, rowsTotals, outside };

  // Emails per value over the rows in range, to pick the top ones.
  const dictSize = split.dict.length;
  const byCode = new Float64Array(dictSize);
  for (let k = 0; k < rows.length; k++) if (bucketOf[k]! >= 0) eachValue(split, rows[k]!, (c) => (byCode[c]! += facts.emails[rows[k]!]!));
  let chosen: number[];
  if (opts.keys) chosen = opts.keys.filter((c) => c >= 0 && c < dictSize);
  else {
    const used: number[] = [];
    for (let c = 0; c < dictSize; c++) if (byCode[c]! > 0) used.push(c);
    const dict = split.dict;
    used.sort((a, b) => byCode[b]! - byCode[a]! || (dict[a]! < dict[b]! ? -1 : dict[a]! > dict[b]! ? 1 : 0));
    chosen = used.slice(0, opts.top ?? 8);
  }
  const slot = new Int32Array(dictSize).fill(-1);
  chosen.forEach((c, s) => (slot[c] = s));
  const values = chosen.map(() => new Float64Array(nb));
  const other = new Float64Array(nb);
  let hasOther = false;
  for (let k = 0; k < rows.length; k++) {
    const b = bucketOf[k]!;
    if (b < 0) continue;
    const i = rows[k]!;
    const e = facts.emails[i]!;
    eachValue(split, i, (c) => {
      const s = slot[c]!;
      if (s >= 0) values[s]![b]! += e;
      else {
        other[b]! += e;
        hasOther = true;
      }
    });
  }
  const series: TrendSeries[] = chosen.map((c, s) => ({ key: split.dict[c]!, code: c, values: values[s]! }));
  if (hasOther) series.push({ key: 'other', code: -1, values: other });
  return { unit, starts, series, totals, rowsTotals, outside };
}

/** The same trend with each series as its share (0–1) of the bucket's total. */
export function shareOf(t: Trend): Trend {
  return {
    ...t,
    series: t.series.map((s) => ({ ...s, values: s.values.map((v, b) => (t.totals[b]! > 0 ? v / t.totals[b]! : 0)) })),
  };
}
