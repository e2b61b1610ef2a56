/** Sets of rows as ascending lists of row indices, DOM-free (a search's rows: query.ts). */
import { radixOrder } from '../../../src/shared/sorts';
import type { RankArray, Ranks } from './ranks';

/** The rows in [from, to) whose mask is 1. */
export function rowsOf(mask: Uint8Array, from: number, to: number): Uint32Array {
  let c = 0;
  for (let i = from; i < to; i++) c += mask[i]!;
  const out = new Uint32Array(c);
  for (let i = from, k = 0; i < to; i++) if (mask[i]) out[k++] = i;
  return out;
}

export function concat(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * `rows` ordered by their rank, ties in the order given: what sortByRank (ranks.ts) gives for
 * every row, kept to these (a radix sort of their keys, not a pass over every row).
 */
export function orderByRank(rows: Uint32Array, rank: RankArray, distinct: number, descending: boolean): Uint32Array {
  const keys = new Float64Array(rows.length);
  for (let k = 0; k < rows.length; k++) keys[k] = descending ? distinct - 1 - rank[rows[k]!]! : rank[rows[k]!]!;
  const at = radixOrder(keys);
  const out = new Uint32Array(rows.length);
  for (let k = 0; k < rows.length; k++) out[k] = rows[at[k]!]!;
  return out;
}

/**
 * The rows of `rows` (ascending) with a flag, `count` of them, in the order of `ranks` (ties in
 * row order, as sortByRank puts them), or in row order without.
 */
export function flaggedInOrder(rows: Uint32Array, flags: Uint8Array, count: number, ranks: Ranks | undefined, descending: boolean): Uint32Array {
  const picked = flagged(rows, flags, count);
  return ranks ? orderByRank(picked, ranks.rank, ranks.distinct, descending) : picked;
}

/**
 * The loop of flaggedInOrder, a function of its own: compiled mid-loop (on-stack replacement)
 * the first time, with the code after the loop not yet run, flaggedInOrder left a bail-out at
 * `ranks.rank` in that code, and V8 kept it: every search that found few rows then bailed out
 * of it and finished in the interpreter (--trace-deopt in bench:search, the same code each time).
 */
function flagged(rows: Uint32Array, flags: Uint8Array, count: number): Uint32Array {
  const picked = new Uint32Array(count);
  for (let k = 0, c = 0; k < rows.length; k++) if (flags[rows[k]!]) picked[c++] = rows[k]!;
  return picked;
}
