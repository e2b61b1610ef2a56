/**
 * Sort ranks, DOM-free: each column's rows get a rank once per store version (equal values
 * share one), so any sort after that is a counting sort over integers.
 */
import type { ColumnId } from '../../../src/shared/columns';
import type { RowStore } from './store';

export interface SortSpec {
  column: ColumnId;
  descending: boolean;
}

const collator = new Intl.Collator(undefined);

/** Sort ranks of one column: equal values share a rank; rank order is display order ascending. */
export interface Ranks {
  version: number;
  rank: Uint32Array;
  distinct: number;
}

/** The distinct values of a column, and each row's value as an id into them. */
function distinct<T>(length: number, valueOf: (i: number) => T): { uniq: T[]; code: Uint32Array; index: Map<T, number> } {
  const index = new Map<T, number>();
  const uniq: T[] = [];
  const code = new Uint32Array(length);
  for (let i = 0; i < length; i++) {
    const v = valueOf(i);
    let c = index.get(v);
    if (c === undefined) {
      c = uniq.length;
      index.set(v, c);
      uniq.push(v);
    }
    code[i] = c;
  }
  return { uniq, code, index };
}

/** Row ranks from the sorted order of the distinct values (each distinct value its own rank). */
function ranksFrom(code: Uint32Array, sortedIds: ArrayLike<number>): Ranks {
  const keyRank = new Uint32Array(sortedIds.length);
  for (let k = 0; k < sortedIds.length; k++) keyRank[sortedIds[k]!] = k;
  const rank = new Uint32Array(code.length);
  for (let i = 0; i < code.length; i++) rank[i] = keyRank[code[i]!]!;
  return { version: 0, rank, distinct: sortedIds.length };
}

/**
 * Text in Intl.Collator order. Sorting ~100k distinct strings with a collator comparator costs
 * ~200 ms, so the distinct values are first put in code-unit order (a native sort) and then
 * sorted with the collator: V8's TimSort finds the runs already in order, and the collator pass
 * costs little more than one comparison per value. The result is exactly collator order.
 */
function rankText(values: (i: number) => string, length: number): Ranks {
  const { uniq, code, index } = distinct(length, values);
  const sorted = uniq.slice();
  if (sorted.length >= 2000) sorted.sort();
  sorted.sort(collator.compare);
  const ids = new Uint32Array(sorted.length);
  for (let k = 0; k < sorted.length; k++) ids[k] = index.get(sorted[k]!)!;
  return ranksFrom(code, ids);
}

/**
 * Values ordered by a numeric key: dates by instant, IP addresses by address, emails by count.
 * Keys go through a native Float64Array sort, then each row finds its key's rank by binary
 * search; values without a key (NaN) come last, in text order.
 */
/**
 * Each key's rank among the distinct keys, ascending (0 for the smallest); NaN keys get rank
 * `distinct`, after every number. A native numeric sort, an in-place dedupe and a binary search:
 * several times faster than a comparator sort, and the basis of stable counting sorts.
 */
export function denseRanks(keys: Float64Array): { rank: Uint32Array; distinct: number } {
  const sorted = keys.slice().sort();
  let u = 0;
  for (let k = 0; k < sorted.length; k++) {
    const v = sorted[k]!;
    if (Number.isNaN(v)) break; // NaN sorts last
    if (u === 0 || v !== sorted[u - 1]) sorted[u++] = v;
  }
  const rank = new Uint32Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const v = keys[i]!;
    if (Number.isNaN(v)) {
      rank[i] = u;
      continue;
    }
    let lo = 0;
    let hi = u - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    rank[i] = lo;
  }
  return { rank, distinct: u };
}

function rankByNumber(values: (i: number) => string, length: number, keyOf: (v: string, i: number) => number): Ranks {
  const keys = new Float64Array(length);
  const nan: number[] = [];
  for (let i = 0; i < length; i++) {
    const k = keyOf(values(i), i);
    keys[i] = k;
    if (Number.isNaN(k)) nan.push(i);
  }
  const { rank, distinct: u } = denseRanks(keys);
  let r = u;
  if (nan.length) {
    nan.sort((a, b) => codeUnitCompare(values(a), values(b)) || a - b);
    for (let k = 0; k < nan.length; k++) {
      if (k > 0 && values(nan[k]!) !== values(nan[k - 1]!)) r++;
      rank[nan[k]!] = r;
    }
    r++;
  }
  return { version: 0, rank, distinct: r };
}

/** DKIM cells: by signature count, then by their results. Few distinct values, so a comparator sort. */
function rankDkim(values: (i: number) => string, length: number): Ranks {
  const { uniq, code } = distinct(length, values);
  const count = uniq.map((v) => parseInt(v, 10) || 0);
  const ids = uniq.map((_, k) => k).sort((a, b) => count[a]! - count[b]! || collator.compare(uniq[a]!, uniq[b]!));
  return ranksFrom(code, ids);
}

function codeUnitCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An IPv4 address as its 32-bit value, an IPv6 one after every IPv4 by its first 48 bits; NaN otherwise. */
export function ipSortKey(ip: string): number {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4) return ((+v4[1]! * 256 + +v4[2]!) * 256 + +v4[3]!) * 256 + +v4[4]!;
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
export function sortByRank(ranks: Uint32Array, distinct: number, length: number, descending: boolean): Uint32Array {
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
  const values = s.column(column);
  if (column === 'emails') {
    const emails = s.emails;
    return rankByNumber(values, s.length, (_v, i) => emails[i]!);
  }
  if (column === 'date') {
    const dates = s.dateMs;
    return rankByNumber(values, s.length, (_v, i) => dates[i]!);
  }
  if (column === 'ipAddress') return rankByNumber(values, s.length, ipSortKey);
  if (column === 'dkim') return rankDkim(values, s.length);
  return rankText(values, s.length);
}
