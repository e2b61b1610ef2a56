/**
 * The records table's column and facet ids, and the row tuple they describe. Kept apart from
 * protocol.ts (which re-exports them) because that file builds zod schemas at load time: the
 * webview bundle imports these constants from here and so ships without zod.
 */

/** Column order of a RowTuple. */
export const COLUMNS = [
  'source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'rdns',
  'emails', 'category', 'date', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkim',
] as const;
export type ColumnId = (typeof COLUMNS)[number];

/**
 * One record for the table: the fields above in COLUMNS order. `rdns` is joined with ", ";
 * `to` and `ipCountryCode` are '' when absent; `emails` is a number; `dkim` is the list of the
 * DKIM signatures' results (the table shows e.g. `2 (pass, fail)`).
 */
export type RowTuple = [
  string, string, string, string, string, string, string, string,
  number, string, string, string, string, string, string, string[],
];

/** Facet filters offered by the table. */
export const FACETS = ['category', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkim'] as const;
export type FacetId = (typeof FACETS)[number];
