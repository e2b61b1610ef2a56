/**
 * Facet options from the counts of one filter pass: every value with the rows and the emails it
 * would match given the search and the other filters. Short facets keep a stable order (by how
 * many rows carry the value over all rows); facets with many values (TOP_FACETS) are ordered by
 * their current count so their top values come first.
 */
import { TOP_FACETS, type FacetId } from '../../../src/shared/columns';
import { EMPTY_LABEL, NO_SIGNATURES, valueLabel } from '../format';
import type { FieldIndex } from './fieldTypes';

export interface FacetOption {
  /** The value as kept in the view state and data-value: the raw value, '' for empty, '(none)' for no DKIM signature. */
  key: string;
  label: string;
  /** Rows with this value among those passing the search and every other filter. */
  count: number;
  /** Emails of those rows. */
  emails: number;
  selected: boolean;
}

const collator = new Intl.Collator(undefined);

export function facetOptions(
  ids: readonly FacetId[],
  fields: readonly FieldIndex[],
  totals: readonly Uint32Array[],
  rows: readonly Uint32Array[],
  emails: readonly Float64Array[],
  selectedKeys: Partial<Record<FacetId, readonly string[]>>,
): Record<FacetId, FacetOption[]> {
  const result = {} as Record<FacetId, FacetOption[]>;
  ids.forEach((id, f) => {
    const dict = fields[f]!.dict;
    const selected = new Set(selectedKeys[id] ?? []);
    const total = totals[f]!;
    const count = rows[f]!;
    const sum = emails[f]!;
    const top = TOP_FACETS.includes(id);
    const codes: number[] = [];
    for (let c = 0; c < dict.length; c++) if ((total[c] ?? 0) > 0 || selected.has(dict[c]!)) codes.push(c);
    const last = (k: string): number => (k === '' || k === NO_SIGNATURES ? 1 : 0);
    codes.sort((a, b) =>
      top
        ? (sum[b] ?? 0) - (sum[a] ?? 0) || collator.compare(dict[a]!, dict[b]!)
        : last(dict[a]!) - last(dict[b]!) || (total[b] ?? 0) - (total[a] ?? 0) || collator.compare(dict[a]!, dict[b]!),
    );
    const options: FacetOption[] = codes.map((c) => {
      const key = dict[c]!;
      return { key, label: key === NO_SIGNATURES ? NO_SIGNATURES : valueLabel(key), count: count[c] ?? 0, emails: sum[c] ?? 0, selected: selected.has(key) };
    });
    // Selected values the rows do not have (a restored view, a refreshed range) stay listed so they can be cleared.
    const known = new Set(dict);
    for (const key of selected) if (!known.has(key)) options.push({ key, label: key === '' ? EMPTY_LABEL : key, count: 0, emails: 0, selected: true });
    result[id] = options;
  });
  return result;
}
