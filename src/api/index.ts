/**
 * The API client: the only module that speaks the DMARC Records API's wire format. Pure
 * TypeScript (no `vscode`), so it runs in plain Node tests, a CLI or a worker.
 *
 *   fetchDmarcRecords(query, options) → FetchResult { records, warnings, rejected } | throws ApiError
 */
export { fetchDmarcRecords, USER_AGENT, DEFAULT_TIMEOUT_MS, DEFAULT_RETRIES } from './client';
export { parseRetryAfter } from './httpErrors';
export { rawOf } from './rawRow';
export type { RowShape } from './rawRow';
export type { ClientOptions } from './client';
export { ApiError, describeApiError, toApiError } from './errors';
export { checkBaseUrl, isLoopbackHost, utcDayRange, toIsoUtc, parseIsoDateMs, buildRecordsUrl } from './url';
export { parseRecordsBody, parseRecordsJson, parseRecordsJsonAsync, normaliseRows, RecordsBodyStream } from './body';
export type { ParseOptions } from './body';
export {
  ResultSchema,
  CategorySchema,
  DispositionSchema,
  DkimEntrySchema,
  RecordSchema,
  EnvelopeSchema,
} from './schema';
export * from './types';
export { requestLine } from './requestLog';
export type { RequestSummary } from './requestLog';
