/**
 * The records table's column and facet ids, and the row tuple the host sends. Kept apart from
 * protocol.ts (which re-exports them) because that file builds zod schemas at load time: the
 * webview bundle imports these constants from here and so ships without zod.
 */

/**
 * The table's columns, in their default order: what answers "who sends, does it pass, what
 * happened to it" first, so it fits at 1280 px with the filters open; the rest after.
 * `dmarcResult` (pass when aligned SPF or aligned DKIM passes) and `dkimDomains` are derived
 * in the webview from the tuple.
 */
export const COLUMNS = [
  'source', 'ipAddress', 'emails', 'dmarcResult', 'alignedSpf', 'alignedDkim', 'dmarc', 'date',
  'rowClass', 'spfReason', 'dkimReason', 'category', 'visibleFrom', 'dkimDomains', 'dkimAligned', 'returnPath', 'reporter', 'to',
  'ipCountryCode', 'rdns', 'spf', 'dkim', 'override',
] as const;
export type ColumnId = (typeof COLUMNS)[number];

/** Columns whose values are numbers: their first click sorts descending. */
export const NUMERIC_COLUMNS: readonly ColumnId[] = ['emails'];

/** Field positions in a RowTuple. */
export const T = {
  source: 0, reporter: 1, visibleFrom: 2, returnPath: 3, to: 4, ipAddress: 5, ipCountryCode: 6,
  rdns: 7, emails: 8, category: 9, date: 10, dmarc: 11, alignedSpf: 12, alignedDkim: 13, spf: 14,
  dkims: 15, dkimAligned: 16, extras: 17, spfReason: 18, dkimReason: 19, rowClass: 20, override: 21,
} as const;

/**
 * One record for the table, fields at the positions of `T`. `to` and `ipCountryCode` are ''
 * when absent; `rdns` is the list of names; `dkims` one `[domain, selector, result]` per
 * signature; `dkimAligned` is 'passed' when a signature whose domain aligns (relaxed, by
 * organizational domain) with Header From passed, 'present, failed' when one aligns but none of
 * those passed, 'none aligned' when none aligns, '' without signatures (src/records/alignment.ts);
 * `extras` the fields the API sent beyond the documented ones (such as `reportId`), as
 * `[name, text, name, text, …]`; `spfReason`, `dkimReason` and `rowClass` the advice rules'
 * codes for the row (src/advice/vocabulary.ts), which the webview shows by their labels;
 * `override` the receiver's override reasons of a report file's row (`forwarded`, `local_policy`,
 * …, comma-separated as the report lists them; '' for API rows, which carry none).
 */
export type RowTuple = [
  string, string, string, string, string, string, string, string[],
  number, string, string, string, string, string, string, [string, string, string][], string, string[],
  string, string, string, string,
];

/**
 * Facet filters offered by the table. Those not in TOP_FACETS list every value; the others (many
 * values) list their top values with a filter box.
 */
export const FACETS = [
  'rowClass', 'verdict', 'dmarcResult', 'category', 'dmarc', 'spfReason', 'dkimReason', 'override', 'alignedSpf', 'alignedDkim', 'spf', 'dkim',
  'source', 'visibleFrom', 'reporter', 'ipCountryCode', 'dkimDomain',
] as const;
export type FacetId = (typeof FACETS)[number];
export const TOP_FACETS: readonly FacetId[] = ['source', 'visibleFrom', 'reporter', 'ipCountryCode', 'dkimDomain'];

/** Fields the table can be grouped by (plus `extra:<name>` for the extra fields the rows carry). */
export const GROUP_FIELDS = [
  'source', 'ipAddress', 'ipNetwork', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipCountryCode',
  'rdns', 'dkimDomain', 'dkimSelector', 'dkimPair', 'dkimAligned', 'spf', 'alignedSpf', 'alignedDkim',
  'dmarcResult', 'category', 'dmarc', 'rowClass', 'verdict', 'spfReason', 'dkimReason', 'override',
] as const;
export type BuiltinGroupField = (typeof GROUP_FIELDS)[number];
/** A group-by field: a built-in one, or `extra:<name>`. */
export type GroupField = BuiltinGroupField | `extra:${string}`;

/** How a trend's bars are split. */
export const TREND_SPLITS = ['category', 'dmarcResult', 'dmarc', 'rowClass', 'spfReason', 'dkimReason', 'group'] as const;
export type TrendSplit = (typeof TREND_SPLITS)[number];
