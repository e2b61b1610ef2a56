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

/** Per field dictionary: each value's place in collator order (values the collator holds equal share one). */
const collatorRanks = new WeakMap<readonly string[], Uint32Array>();

/**
 * The collator order of a dictionary's values, as numbers: the options' sort compares these
 * instead of calling the collator, which with many options of equal count (18k DKIM domains, most
 * at 0 rows after a search) was 25 ms of each keystroke at a million rows. Computed again when
 * values were added; code-unit order first (native), so the collator pass finds it almost sorted.
 */
function collatorRank(dict: readonly string[]): Uint32Array {
  let rank = collatorRanks.get(dict);
  if (rank && rank.length === dict.length) return rank;
  const codes = Array.from(dict.keys()).sort((a, b) => (dict[a]! < dict[b]! ? -1 : dict[a]! > dict[b]! ? 1 : 0));
  codes.sort((a, b) => collator.compare(dict[a]!, dict[b]!));
  rank = new Uint32Array(dict.length);
  for (let k = 1, r = 0; k < codes.length; k++) {
    if (collator.compare(dict[codes[k - 1]!]!, dict[codes[k]!]!) !== 0) r++;
    rank[codes[k]!] = r;
  }
  collatorRanks.set(dict, rank);
  return rank;
}

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
    const order = collatorRank(dict);
    codes.sort((a, b) =>
      top
        ? (sum[b] ?? 0) - (sum[a] ?? 0) || order[a]! - order[b]!
        : last(dict[a]!) - last(dict[b]!) || (total[b] ?? 0) - (total[a] ?? 0) || order[a]! - order[b]!,
    );
    const options: FacetOption[] = codes.map((c) => {
      const key = dict[c]!;
      return { key, label: key === NO_SIGNATURES ? NO_SIGNATURES : valueLabel(key), count: count[c] ?? 0, emails: sum[c] ?? 0, selected: selected.has(key) };
    });
    // Selected values the rows do not have (a restored view, a refreshed range) stay listed so they can be cleared.
    const known = selected.size > 0 ? new Set(dict) : undefined;
    for (const key of selected) if (!known?.has(key)) options.push({ key, label: key === '' ? EMPTY_LABEL : key, count: 0, emails: 0, selected: true });
    result[id] = options;
  });
  return result;
}
