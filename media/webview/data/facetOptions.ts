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

/** Per field dictionary, the option of each value when no row shown has it (the same every time). */
const zeroOptions = new WeakMap<readonly string[], FacetOption[]>();

function optionOf(key: string, count: number, emails: number, selected: boolean): FacetOption {
  return { key, label: key === NO_SIGNATURES ? NO_SIGNATURES : valueLabel(key), count, emails, selected };
}

/** Per field dictionary: its codes in collator order (ties in code order), for collatorRank's ranks of the same length. */
const inOrders = new WeakMap<readonly string[], { rank: Uint32Array; codes: Uint32Array }>();

/** The dictionary's codes sorted by their collator rank, ties by code: what a stable sort by rank gives. */
function codesInOrder(dict: readonly string[], rank: Uint32Array): Uint32Array {
  const known = inOrders.get(dict);
  if (known && known.rank === rank) return known.codes;
  const codes = Uint32Array.from(dict.keys()).sort((a, b) => rank[a]! - rank[b]! || a - b);
  inOrders.set(dict, { rank, codes });
  return codes;
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
    const listed = (c: number): boolean => (total[c] ?? 0) > 0 || selected.has(dict[c]!);
    const order = collatorRank(dict);
    let codes: number[];
    if (TOP_FACETS.includes(id)) {
      // Most emails first, then collator order. After a search most values of a long facet (18k
      // DKIM domains at a million rows) have no emails: only those with some are sorted, the rest
      // follow in the dictionary's collator order, kept from one keystroke to the next.
      codes = [];
      for (let c = 0; c < dict.length; c++) if ((sum[c] ?? 0) !== 0 && listed(c)) codes.push(c);
      codes.sort((a, b) => (sum[b] ?? 0) - (sum[a] ?? 0) || order[a]! - order[b]! || a - b);
      for (const c of codesInOrder(dict, order)) if ((sum[c] ?? 0) === 0 && listed(c)) codes.push(c);
    } else {
      const last = (k: string): number => (k === '' || k === NO_SIGNATURES ? 1 : 0);
      codes = [];
      for (let c = 0; c < dict.length; c++) if (listed(c)) codes.push(c);
      codes.sort((a, b) => last(dict[a]!) - last(dict[b]!) || (total[b] ?? 0) - (total[a] ?? 0) || order[a]! - order[b]!);
    }
    let zeros = zeroOptions.get(dict);
    if (!zeros) zeroOptions.set(dict, (zeros = []));
    const options: FacetOption[] = codes.map((c) => {
      const key = dict[c]!;
      const rowsOf = count[c] ?? 0;
      const emailsOf = sum[c] ?? 0;
      const on = selected.has(key);
      // A value no row shown has (most of a long facet's after a search): one option kept for it.
      if (rowsOf === 0 && emailsOf === 0 && !on) return (zeros[c] ??= Object.freeze(optionOf(key, 0, 0, false)));
      return optionOf(key, rowsOf, emailsOf, on);
    });
    // Selected values the rows do not have (a restored view, a refreshed range) stay listed so they can be cleared.
    const known = selected.size > 0 ? new Set(dict) : undefined;
    for (const key of selected) if (!known?.has(key)) options.push({ key, label: key === '' ? EMPTY_LABEL : key, count: 0, emails: 0, selected: true });
    result[id] = options;
  });
  return result;
}
