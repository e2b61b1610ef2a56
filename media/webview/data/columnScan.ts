/**
 * Work over every row of a column, a chunk of rows at a time, DOM-free. Each chunk's segment
 * (searchIndex.ts) holds its distinct strings once and a string id per row and column, so what
 * is computed from a cell's text is computed once per distinct text of a chunk, not once per
 * row. The `…Steps` forms are generators that yield every STEP_ROWS rows or so: ranking a column
 * of a million rows in idle time (query.ts, idleNext) then never holds the page for long.
 */
import type { ColumnId } from '../../../src/shared/columns';
import { drain } from '../../../src/shared/sorts';
import { COL, type RowStore } from './store';

export { drain };

/** Rows a step of work in idle time covers: a few milliseconds. */
export const STEP_ROWS = 16_384;


/**
 * The rows of a column from row `from` on: `map` runs once per distinct text of each chunk, `put`
 * once per row with what `map` gave for its text. At a million rows that is a few hundred
 * thousand calls of `map` for a column of addresses and a few thousand for one of reporters,
 * instead of a million of each. A step (a yield) every STEP_ROWS rows or so.
 */
export function* mapColumnSteps<T>(s: RowStore, column: ColumnId, from: number, map: (text: string) => T, put: (row: number, value: T) => void): Generator<void, void, void> {
  const col = COL[column];
  const segments = s.segments();
  let done = 0;
  for (let p = s.segmentOf(from); p < segments.length; p++) {
    const seg = segments[p]!;
    const { ids, dict } = seg;
    mapRows(ids, col * seg.count, Math.max(0, from - seg.from), seg.count, dict, map, put, seg.from);
    done += seg.count;
    if (done >= STEP_ROWS && p + 1 < segments.length) {
      done = 0;
      yield;
    }
  }
}

/**
 * mapColumnSteps for a whole-number code per row (a dictionary's): written straight into `out`
 * from a per-chunk table of the codes of its strings, with no call per row. At a million rows
 * ~5× faster than a `put` call per row. `built(n)` after each step: rows 0…n-1 are written.
 */
export function* codeColumnSteps(s: RowStore, column: ColumnId, from: number, codeOf: (text: string) => number, out: Uint32Array, built?: (n: number) => void): Generator<void, void, void> {
  const col = COL[column];
  const segments = s.segments();
  let local = new Int32Array(0);
  let done = 0;
  for (let p = s.segmentOf(from); p < segments.length; p++) {
    const seg = segments[p]!;
    const { ids, dict } = seg;
    if (local.length < dict.length) local = new Int32Array(Math.max(dict.length, local.length * 2));
    local.fill(-1, 0, dict.length);
    const base = seg.from;
    codeRows(ids, col * seg.count, Math.max(0, from - base), seg.count, dict, local, codeOf, out, base);
    done += seg.count;
    if (done >= STEP_ROWS && p + 1 < segments.length) {
      done = 0;
      built?.(base + seg.count);
      yield;
    }
  }
  built?.(s.length);
}

/** mapColumnSteps' rows of one chunk, a function of its own as codeRows is (below). */
function mapRows<T>(ids: Uint16Array | Uint32Array, at: number, r0: number, count: number, dict: readonly string[], map: (text: string) => T, put: (row: number, value: T) => void, base: number): void {
  const seen = new Uint8Array(dict.length);
  const value = new Array<T>(dict.length);
  for (let r = r0; r < count; r++) {
    const id = ids[at + r]!;
    if (!seen[id]) {
      seen[id] = 1;
      value[id] = map(dict[id] ?? '');
    }
    put(base + r, value[id]!);
  }
}

/**
 * codeColumnSteps' rows of one chunk (its ids from `at`, rows r0…count-1), a function of its own:
 * as a loop inside the generator, V8 compiled it on its own (on-stack replacement) and bailed out
 * of that code each time the loop ended, once per chunk and column (1,210 times over a million
 * rows in bench:search with --trace-deopt), the rest of the step then run in the interpreter.
 */
function codeRows(ids: Uint16Array | Uint32Array, at: number, r0: number, count: number, dict: readonly string[], local: Int32Array, codeOf: (text: string) => number, out: Uint32Array, base: number): void {
  for (let r = r0; r < count; r++) {
    const id = ids[at + r]!;
    let c = local[id]!;
    if (c < 0) c = local[id] = codeOf(dict[id] ?? '');
    out[base + r] = c;
  }
}

/** A number per row from a column's text (`key` runs once per distinct text of each chunk). */
export function* numbersOfSteps(s: RowStore, column: ColumnId, key: (text: string) => number): Generator<void, Float64Array, void> {
  const out = new Float64Array(s.length);
  yield* mapColumnSteps(s, column, 0, key, (i, v) => (out[i] = v));
  return out;
}
