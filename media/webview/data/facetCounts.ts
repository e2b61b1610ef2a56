/**
 * Rows and emails per value of each facet over every row, DOM-free. Rows are only ever appended
 * (until a clear), so the counts are extended with the new rows instead of counted again: at a
 * million rows, counting them all again took most of each recompute while rows streamed in.
 */
import type { FieldIndex } from './fieldTypes';

export interface FacetCounts {
  /** The store's generation the counts are of (a clear starts a new one). */
  generation: number;
  /** Rows counted: the first `length`. */
  length: number;
  /** Per facet field, rows and emails per value code. */
  rows: Uint32Array[];
  emails: Float64Array[];
  /** For the verdict facet: the judgement its counts are of (RowClasses.buildId). */
  verdictBuild?: number;
}

/** Counts field `f` again over the rows counted so far (its values moved). */
export function recountField(c: FacetCounts, f: number, field: FieldIndex, em: Float64Array): void {
  const r = new Uint32Array(field.dict.length);
  const e = new Float64Array(field.dict.length);
  const codes = field.codes;
  if (field.kind === 'single') {
    for (let i = 0; i < c.length; i++) {
      const k = codes[i]!;
      r[k]!++;
      e[k]! += em[i]!;
    }
  } else {
    for (let i = 0; i < c.length; i++)
      for (let j = field.start[i]!, end = field.start[i + 1]!; j < end; j++) {
        r[codes[j]!]!++;
        e[codes[j]!]! += em[i]!;
      }
  }
  c.rows[f] = r;
  c.emails[f] = e;
}

/** Counts rows c.length … n - 1 into `c` (one entry per field, in order). */
export function extendCounts(c: FacetCounts, fields: readonly FieldIndex[], em: Float64Array, n: number): void {
  if (c.length >= n) return;
  const from = c.length;
  for (let f = 0; f < fields.length; f++) {
    const field = fields[f]!;
    let r = c.rows[f]!;
    let e = c.emails[f]!;
    if (r.length < field.dict.length) {
      // New values since: the arrays grow to the field's dictionary.
      const r2 = new Uint32Array(field.dict.length);
      r2.set(r);
      const e2 = new Float64Array(field.dict.length);
      e2.set(e);
      r = r2;
      e = e2;
    }
    if (field.kind === 'single') extendSingle(field.codes, em, from, n, r, e);
    else extendMulti(field.codes, field.start, em, from, n, r, e);
    c.rows[f] = r;
    c.emails[f] = e;
  }
  c.length = n;
}

/**
 * Rows and emails per value of each facet over the rows a filter pass kept: `counted` (passing
 * every facet) in each facet, and each row of `near` (failing exactly one facet, `nearFacet[k]`)
 * in that facet only, so its options show what choosing them would add. Appended to `rows` and
 * `emails`, one array each per field: tight loops over typed arrays, a field at a time. The rows'
 * emails are read once, in order, for every field (a few thousand rows found among a million are
 * each a cache miss: read per field, they were half of the counting).
 */
export function countRows(
  fields: readonly FieldIndex[], em: Float64Array, counted: Uint32Array, near: Uint32Array, nearFacet: Uint8Array, rows: Uint32Array[], emails: Float64Array[],
): void {
  const visible = counted.length;
  const ce = new Float64Array(visible);
  for (let k = 0; k < visible; k++) ce[k] = em[counted[k]!]!;
  const ne = new Float64Array(near.length);
  for (let k = 0; k < near.length; k++) ne[k] = em[near[k]!]!;
  for (let f = 0; f < fields.length; f++) {
    const field = fields[f]!;
    const r = new Uint32Array(field.dict.length);
    const e = new Float64Array(field.dict.length);
    if (field.kind === 'single') countSingle(field.codes, counted, ce, near, ne, nearFacet, f, r, e);
    else countMulti(field.codes, field.start, counted, ce, near, ne, nearFacet, f, r, e);
    rows.push(r);
    emails.push(e);
  }
}

/*
 * extendCounts' loops for one field, functions of their own for the reason countRows' are (below):
 * 323 bail-outs of V8's mid-loop code over a million rows streaming into the panel (--trace-deopt).
 */

function extendSingle(codes: ArrayLike<number>, em: Float64Array, from: number, n: number, r: Uint32Array, e: Float64Array): void {
  for (let i = from; i < n; i++) {
    const k = codes[i]!;
    r[k]!++;
    e[k]! += em[i]!;
  }
}

function extendMulti(codes: ArrayLike<number>, start: ArrayLike<number>, em: Float64Array, from: number, n: number, r: Uint32Array, e: Float64Array): void {
  for (let i = from; i < n; i++) {
    const x = em[i]!;
    for (let j = start[i]!, end = start[i + 1]!; j < end; j++) {
      const k = codes[j]!;
      r[k]!++;
      e[k]! += x;
    }
  }
}

/*
 * countRows' loops for one field, functions of their own: inside countRows's loop over the fields,
 * V8 compiled each on its own (on-stack replacement) and bailed out of that code each time it
 * ended, once per field and keystroke (--trace-deopt in bench:search), the rest of the counting
 * then run in the interpreter.
 */

function countSingle(codes: ArrayLike<number>, counted: Uint32Array, ce: Float64Array, near: Uint32Array, ne: Float64Array, nearFacet: Uint8Array, f: number, r: Uint32Array, e: Float64Array): void {
  // Both lengths read before the first loop: compiled mid-loop, code reading `near.length` only
  // after it had no feedback for that read and bailed out there on every call (45 times a load).
  const visible = counted.length;
  const nNear = near.length;
  for (let k = 0; k < visible; k++) {
    const c = codes[counted[k]!]!;
    r[c]!++;
    e[c]! += ce[k]!;
  }
  for (let k = 0; k < nNear; k++) {
    if (nearFacet[k] !== f) continue;
    const c = codes[near[k]!]!;
    r[c]!++;
    e[c]! += ne[k]!;
  }
}

function countMulti(codes: ArrayLike<number>, start: ArrayLike<number>, counted: Uint32Array, ce: Float64Array, near: Uint32Array, ne: Float64Array, nearFacet: Uint8Array, f: number, r: Uint32Array, e: Float64Array): void {
  const visible = counted.length;
  for (let k = 0; k < visible + near.length; k++) {
    let i: number;
    let x: number;
    if (k < visible) {
      i = counted[k]!;
      x = ce[k]!;
    } else if (nearFacet[k - visible] === f) {
      i = near[k - visible]!;
      x = ne[k - visible]!;
    } else continue;
    for (let j = start[i]!, end = start[i + 1]!; j < end; j++) {
      const c = codes[j]!;
      r[c]!++;
      e[c]! += x;
    }
  }
}
