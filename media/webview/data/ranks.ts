/**
 * Sort ranks, DOM-free: each column's rows get a rank once per store version (equal values
 * share one), so any sort after that is a counting sort over integers.
 */
import type { ColumnId } from '../../../src/shared/columns';
import { drain, numbersOfSteps } from './columnScan';
import { mergeSortSteps, radixOrderSteps } from '../../../src/shared/sorts';
import type { ColumnCodes, RowStore } from './store';

export interface SortSpec {
  column: ColumnId;
  descending: boolean;
}

const collator = new Intl.Collator(undefined);

/** Sort ranks of one column: equal values share a rank; rank order is display order ascending. */
export interface Ranks {
  version: number;
  /** Two bytes a row where the column has at most 65,536 ranks (most columns: at a million rows, 2 MB less each). */
  rank: RankArray;
  distinct: number;
}

export type RankArray = Uint16Array | Uint32Array;

/** An array for `length` ranks below `bound`. */
function rankArray(length: number, bound: number): RankArray {
  return bound <= 65536 ? new Uint16Array(length) : new Uint32Array(length);
}

/** The distinct values of a column, and each row's value as an id into them. */
function ranksFrom(code: Uint32Array, sortedIds: ArrayLike<number>): Ranks {
  const keyRank = new Uint32Array(sortedIds.length);
  for (let k = 0; k < sortedIds.length; k++) keyRank[sortedIds[k]!] = k;
  const rank = rankArray(code.length, sortedIds.length);
  for (let i = 0; i < code.length; i++) rank[i] = keyRank[code[i]!]!;
  return { version: 0, rank, distinct: sortedIds.length };
}

/**
 * Text in Intl.Collator order. Sorting ~100k distinct strings with a collator comparator costs
 * ~200 ms, so the distinct values are first put in code-unit order and then sorted with the
 * collator: a stable sort finds the runs already in order, and the collator pass costs little
 * more than one comparison per value. The result is exactly collator order, ties (case aside,
 * `e` and `e\u0301`, ignorable controls) in code-unit order. With mergeSortSteps, a slice of
 * comparisons at a time.
 */
function* rankTextSteps(d: ColumnCodes): Generator<void, Ranks, void> {
  const { uniq } = d;
  const ids = new Uint32Array(uniq.length);
  for (let k = 0; k < ids.length; k++) ids[k] = k;
  yield* mergeSortSteps(ids, (a, b) => uniq[a]! < uniq[b]!);
  yield* mergeSortSteps(ids, (a, b) => collator.compare(uniq[a]!, uniq[b]!) < 0);
  yield;
  return ranksFrom(d.code, ids);
}

/** Dense ranks of numbers, NaN after all (rank `distinct`); `extra` more ranks the caller will hand out above these. */
export function denseRanks(keys: Float64Array, extra = 1): { rank: RankArray; distinct: number } {
  return drain(denseRanksSteps(keys, extra));
}

/**
 * Dense ranks by a radix sort (sorts.ts): linear, where a comparison sort and a binary search per
 * key cost 130–350 ms at a million rows.
 */
function* denseRanksSteps(keys: Float64Array, extra: number): Generator<void, { rank: RankArray; distinct: number }, void> {
  const n = keys.length;
  const small = smallWholeRanks(keys, extra);
  if (small) return small;
  yield;
  // The numbers alone (NaN ranks after them all), and where each one was: without a NaN (dates
  // that all parsed), the keys and their places as they are, no copies.
  let m = 0;
  for (let i = 0; i < n; i++) if (!Number.isNaN(keys[i]!)) m++;
  let at: Uint32Array | undefined;
  let values = keys;
  if (m < n) {
    at = new Uint32Array(m);
    values = new Float64Array(m);
    for (let i = 0, k = 0; i < n; i++) {
      const v = keys[i]!;
      if (Number.isNaN(v)) continue;
      at[k] = i;
      values[k++] = v;
    }
  }
  yield;
  const order = yield* radixOrderSteps(values);
  let u = 0;
  for (let k = 0, prev = NaN; k < m; k++) {
    const v = values[order[k]!]!;
    if (k === 0 || v !== prev) u++;
    prev = v;
  }
  yield;
  const rank = rankArray(n, u + extra);
  if (m < n) rank.fill(u);
  for (let k = 0, r = -1, prev = NaN; k < m; k++) {
    const j = order[k]!;
    const v = values[j]!;
    if (k === 0 || v !== prev) r++;
    prev = v;
    rank[at ? at[j]! : j] = r;
  }
  return { rank, distinct: u };
}

/** Whole numbers (or NaN) spanning less than this: ranked by marking which values occur, no sort. */
const SMALL_SPAN = 1 << 20;

/** Dense ranks of whole numbers within SMALL_SPAN of each other (email counts), in three linear passes; undefined for other keys. */
function smallWholeRanks(keys: Float64Array, extra: number): { rank: RankArray; distinct: number } | undefined {
  const n = keys.length;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = keys[i]!;
    if (Number.isNaN(v)) continue;
    if (!Number.isInteger(v) || v - min >= SMALL_SPAN || max - v >= SMALL_SPAN) return undefined;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const rankOf = new Int32Array(max >= min ? max - min + 1 : 0);
  for (let i = 0; i < n; i++) if (!Number.isNaN(keys[i]!)) rankOf[keys[i]! - min] = 1;
  let u = 0;
  for (let d = 0; d < rankOf.length; d++) rankOf[d] = rankOf[d] ? u++ : -1;
  const rank = rankArray(n, u + extra);
  for (let i = 0; i < n; i++) {
    const v = keys[i]!;
    rank[i] = Number.isNaN(v) ? u : rankOf[v - min]!;
  }
  return { rank, distinct: u };
}

/** Ranks by a number per row; rows without one (NaN) after all others, by their text. */
function* rankByNumberSteps(keys: Float64Array, textOf: (i: number) => string): Generator<void, Ranks, void> {
  const nan: number[] = [];
  for (let i = 0; i < keys.length; i++) if (Number.isNaN(keys[i]!)) nan.push(i);
  const { rank, distinct: u } = yield* denseRanksSteps(keys, nan.length + 1);
  let r = u;
  if (nan.length) {
    nan.sort((a, b) => codeUnitCompare(textOf(a), textOf(b)) || a - b);
    for (let k = 0; k < nan.length; k++) {
      if (k > 0 && textOf(nan[k]!) !== textOf(nan[k - 1]!)) r++;
      rank[nan[k]!] = r;
    }
    r++;
  }
  return { version: 0, rank, distinct: r };
}

function rankDkim(d: ColumnCodes): Ranks {
  const { uniq, code } = d;
  const count = uniq.map((v) => parseInt(v, 10) || 0);
  const ids = uniq.map((_, k) => k).sort((a, b) => count[a]! - count[b]! || collator.compare(uniq[a]!, uniq[b]!) || codeUnitCompare(uniq[a]!, uniq[b]!));
  return ranksFrom(code, ids);
}

function codeUnitCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Four groups of one to three ASCII digits joined by dots, as ((a·256 + b)·256 + c)·256 + d (an
 * octet above 255 is not refused: it sorts past 255.255.255.255), or -1. Over char codes: this
 * runs once per distinct address of each chunk, hundreds of thousands of times at a million rows.
 */
function dottedQuadKey(ip: string): number {
  const n = ip.length;
  let value = 0;
  let i = 0;
  for (let octet = 0; octet < 4; octet++) {
    if (octet > 0) {
      if (ip.charCodeAt(i) !== 46) return -1;
      i++;
    }
    const first = i;
    let v = 0;
    while (i < n && i - first < 3) {
      const c = ip.charCodeAt(i);
      if (c < 48 || c > 57) break;
      v = v * 10 + (c - 48);
      i++;
    }
    if (i === first) return -1;
    value = value * 256 + v;
  }
  return i === n ? value : -1;
}

/** An IPv4 address as its 32-bit value, an IPv6 one after every IPv4 by its first 48 bits; NaN otherwise. */
export function ipSortKey(ip: string): number {
  const v4 = dottedQuadKey(ip);
  if (v4 >= 0) return v4;
  if (!ip.includes(':') || !/^[0-9a-fA-F:.]+$/.test(ip)) return Number.NaN;
  const [head = '', tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...new Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  const g = (k: number): number => parseInt(groups[k] ?? '0', 16) || 0;
  return 2 ** 32 + (g(0) * 65536 + g(1)) * 65536 + g(2);
}

/**
 * Stable counting sort of `0…length-1` by rank: O(n + distinct). Ties keep row order, in both
 * directions.
 */
export function sortByRank(ranks: RankArray, distinct: number, length: number, descending: boolean): Uint32Array {
  const counts = new Uint32Array(distinct + 1);
  for (let i = 0; i < length; i++) {
    const r = descending ? distinct - 1 - ranks[i]! : ranks[i]!;
    counts[r + 1]!++;
  }
  for (let r = 0; r < distinct; r++) counts[r + 1]! += counts[r]!;
  const out = new Uint32Array(length);
  for (let i = 0; i < length; i++) {
    const r = descending ? distinct - 1 - ranks[i]! : ranks[i]!;
    out[counts[r]!++] = i;
  }
  return out;
}


/** The ranks of one column of the store. */
export function rankColumn(s: RowStore, column: ColumnId): Ranks {
  return drain(rankSteps(s, column));
}

/**
 * rankColumn in steps of a few milliseconds each (a generator: idle time takes one step at a
 * time, query.ts idleNext). The store must not change until it ends.
 */
export function* rankSteps(s: RowStore, column: ColumnId): Generator<void, Ranks, void> {
  const text = s.column(column);
  // Read in place (the ranking only reads them; rows appended meanwhile go past `length`).
  if (column === 'emails') return yield* rankByNumberSteps(s.emails.subarray(0, s.length), text);
  if (column === 'date') return yield* rankByNumberSteps(s.dateMs.subarray(0, s.length), text);
  if (column === 'ipAddress') {
    // The key once per distinct address of each chunk, not per row, nor through a map of every address.
    const keys = yield* numbersOfSteps(s, column, ipSortKey);
    return yield* rankByNumberSteps(keys, text);
  }
  const d = yield* s.columnCodesSteps(column, false);
  if (column === 'dkim') return rankDkim(d);
  return yield* rankTextSteps(d);
}
