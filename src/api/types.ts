/**
 * The normalised record every part of the extension works with, and the outcome types of a
 * fetch. Produced only by src/api (which owns the wire contract); consumed by src/records,
 * the tree, the panel and the exports.
 */

import type { RowShape } from './rawRow';

/** §2.4 of the API contract: exactly these twelve values, the empty string included. */
export const RESULT_VALUES = [
  'permerror', 'fail', 'temperror', 'temperr', 'softfail', 'unknown',
  'none', 'neutral', 'policy', 'pass', 'skipped', '',
] as const;
export type Result = (typeof RESULT_VALUES)[number];

export const CATEGORY_VALUES = ['authorized', 'rejected', 'quarantined', 'partially-authorized'] as const;
export type Category = (typeof CATEGORY_VALUES)[number];

export const DISPOSITION_VALUES = ['none', 'quarantine', 'reject'] as const;
export type Disposition = (typeof DISPOSITION_VALUES)[number];

/**
 * A value outside a known enum is kept as the string the server sent (and reported as a
 * warning), so these fields are typed as "known value or any other string".
 */
export type Open<T extends string> = T | (string & {});

export interface DkimEntry {
  selector: string;
  domain: string;
  result: Open<Result>;
}

export interface DmarcRecord {
  source: string;
  reporter: string;
  visibleFrom: string;
  returnPath: string;
  to?: string;
  ipAddress: string;
  ipCountryCode?: string;
  /** Shared between records of a response (frozen) when they are the same: never changed in place. */
  rdns: readonly string[];
  emails: number;
  category: Open<Category>;
  /** ISO 8601 as sent by the server. */
  date: string;
  /** `date` as epoch milliseconds (UTC), for range filtering and bucketing without re-parsing. */
  dateMs: number;
  dmarc: Open<Disposition>;
  alignedSpf: Open<Result>;
  alignedDkim: Open<Result>;
  spf: Open<Result>;
  /** Shared between records of a response (frozen) when they are the same: never changed in place. */
  dkims: readonly DkimEntry[];
  reportId?: string;
  /**
   * Report files only: the policy its report says the domain published (shared by the report's
   * rows; never sent by the API, never exported: not part of the row as sent).
   */
  published?: PublishedPolicy;
  /**
   * The row exactly as the server sent it (all fields, unknown extras included): for the JSON view
   * and exports. Absent when the row held only documented fields with the values above: then
   * `shape` has its key order and `rawOf` (src/api/rawRow.ts) builds it again. Read it with rawOf.
   */
  raw?: Record<string, unknown>;
  shape?: RowShape;
}

/** A published DMARC policy as an aggregate report states it (RFC 7489 Appendix C, RFC 9990). */
export interface PublishedPolicy {
  readonly domain: string;
  readonly p?: string;
  readonly sp?: string;
  readonly np?: string;
  readonly adkim?: string;
  readonly aspf?: string;
  readonly pct?: number;
  readonly fo?: string;
  readonly testing?: string;
}

/** A row kept despite a value outside an enum. Aggregated: one entry per field+value. */
export interface RecordWarning {
  field: string;
  value: string;
  /** How many rows carried it, and the index of the first one. */
  count: number;
  firstIndex: number;
  message: string;
}

/** Rows left out because they were not objects or lacked a required field. */
export interface RejectedSummary {
  count: number;
  /** The first few reasons, with the row's index in the response. */
  samples: { index: number; reason: string }[];
}

export interface FetchResult {
  records: DmarcRecord[];
  warnings: RecordWarning[];
  rejected: RejectedSummary;
}

export type ApiErrorKind =
  | 'bad-request'
  | 'forbidden'
  | 'not-found'
  | 'rate-limited'
  | 'server'
  | 'network'
  | 'timeout'
  | 'cancelled'
  | 'invalid-response'
  | 'insecure-url';

export interface RecordsQuery {
  baseUrl: string;
  apiKey: string;
  organizationId: string;
  /** Inclusive bounds; a Date or an ISO 8601 string. Sent as ISO 8601 in UTC. */
  startDate: Date | string;
  endDate: Date | string;
}

export interface FetchOptions {
  signal?: AbortSignal;
  /** Per attempt, from request start to the last byte of the body. */
  timeoutMs?: number;
  /** Extra attempts after the first, for 429, 5xx and network errors. */
  retries?: number;
  /** Called before each retry wait, e.g. to show "retrying in 2 s" in a progress bar. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  /** Diagnostic log lines; never contain the API key. */
  log?: (line: string) => void;
}
