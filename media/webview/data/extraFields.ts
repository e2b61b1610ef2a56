/**
 * Which extra fields (fields a server sent beyond the documented ones) are worth a Group by
 * choice, DOM-free: those whose values are short texts that repeat. A report file's `row`,
 * `identifiers` or `auth_results` is a whole JSON object per row (one group per row), and the
 * API's `from` is Header From again: offering them only lengthened the list. Judged on a sample of
 * rows spread over all of them, so it costs the same at a thousand rows as at a million.
 */
import type { RowStore } from './store';

/** Rows looked at, at most. */
const SAMPLE = 2_000;
/** A value longer than this is a text to read, not a value to group by. */
const MAX_LENGTH = 100;

function groupable(store: RowStore, name: string, step: number): boolean {
  let seen = 0;
  const distinct = new Set<string>();
  let sameAsFrom = true;
  for (let i = 0; i < store.length; i += step) {
    const v = store.extra(i, name);
    if (v === '') continue;
    seen++;
    if (v.length > MAX_LENGTH || v.startsWith('{') || v.startsWith('[')) return false;
    distinct.add(v);
    if (sameAsFrom && v.toLowerCase() !== store.cell(i, 'visibleFrom').toLowerCase()) sameAsFrom = false;
  }
  // Values that never repeat would make one group per row.
  return seen > 0 && !sameAsFrom && (seen === 1 || distinct.size < seen);
}

const memo = new WeakMap<RowStore, { version: number; names: string; out: string[] }>();

/** The extra fields among `names` to offer as Group by fields (judged again when the rows change). */
export function groupableExtras(store: RowStore, names: readonly string[]): string[] {
  const key = names.join('\n');
  const m = memo.get(store);
  if (m && m.version === store.version && m.names === key) return m.out;
  const step = Math.max(1, Math.floor(store.length / SAMPLE));
  const out = names.filter((name) => groupable(store, name, step));
  memo.set(store, { version: store.version, names: key, out });
  return out;
}
