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
    const codes = field.codes;
    if (field.kind === 'single') {
      for (let i = from; i < n; i++) {
        const k = codes[i]!;
        r[k]!++;
        e[k]! += em[i]!;
      }
    } else {
      const start = field.start;
      for (let i = from; i < n; i++) {
        const x = em[i]!;
        for (let j = start[i]!, end = start[i + 1]!; j < end; j++) {
          const k = codes[j]!;
          r[k]!++;
          e[k]! += x;
        }
      }
    }
    c.rows[f] = r;
    c.emails[f] = e;
  }
  c.length = n;
}
