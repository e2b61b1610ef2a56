/**
 * The filters of a query, row by row (query.ts): whether a row has one of a facet's chosen
 * values, and which rows have every group filter's value.
 */
import type { FieldIndex } from './fieldTypes';
import type { FieldId, Fields } from './fields';

/** A filter to one value of a field: a group chosen in the groups table. */
export interface GroupFilter {
  field: FieldId;
  key: string;
}

/** Whether row `i` has a value marked 1 in `allowed` (any of its values, for a field with several). */
export function allows(field: FieldIndex, allowed: Uint8Array, i: number): boolean {
  if (field.kind === 'single') return allowed[field.codes[i]!] === 1;
  for (let j = field.start[i]!, e = field.start[i + 1]!; j < e; j++) if (allowed[field.codes[j]!]) return true;
  return false;
}

/** Rows (1) of the first `n` that have every group filter's value; undefined without group filters. */
export function groupMask(fields: Fields, n: number, groups: readonly GroupFilter[] | undefined): Uint8Array | undefined {
  if (!groups || groups.length === 0) return undefined;
  const mask = new Uint8Array(n).fill(1);
  for (const g of groups) {
    const field = fields.get(g.field);
    const code = fields.find(g.field, g.key);
    const allowed = new Uint8Array(field.dict.length);
    if (code !== undefined) allowed[code] = 1;
    for (let i = 0; i < n; i++) if (mask[i] && !allows(field, allowed, i)) mask[i] = 0;
  }
  return mask;
}
