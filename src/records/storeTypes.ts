/**
 * The types of the RecordStore's API (src/records/recordStore.ts, which re-exports them): what a
 * caller asks for, what it gets, and the fetcher the store is built on.
 */
import type { DmarcRecord, FetchResult, RecordWarning, RejectedSummary } from '../api/types';
import type { DiskCache } from './diskCache';

export interface RecordScope {
  accountId: string;
  baseUrl: string;
  apiKey: string;
  organizationId: string;
}

/** Whether an open view shows rows of this organization between start and end (epoch ms): RecordStore.setViews. */
export type InUse = (accountId: string, organizationId: string, start: number, end: number) => boolean;

/** Rows of a fetch as they arrive (`offset` 0 again: a retry); a promise returned holds the reading (ClientOptions.onRows). */
export type RowsListener = (records: DmarcRecord[], offset: number) => unknown;

/** Fetches a range; calls `onRows` with the rows as they arrive, when it can (see ClientOptions.onRows). */
export type RangeFetcher = (scope: RecordScope, start: Date, end: Date, signal?: AbortSignal, onRows?: RowsListener) => Promise<FetchResult>;

export interface RangeData {
  /** Rows with start <= dateMs <= end, by date ascending (ties in server order). A fresh array. */
  records: DmarcRecord[];
  warnings: RecordWarning[];
  rejected: RejectedSummary;
  /** When the data was fetched from the API (epoch ms), whichever cache served it. */
  fetchedAt: number;
  fromCache: 'memory' | 'disk' | 'network';
}

export interface RecordStoreOptions {
  fetch: RangeFetcher;
  disk?: DiskCache;
  /**
   * Delay before a settled range is written to disk. The extension waits a little so the write
   * (100k rows is ~100 MB of JSON to produce) does not compete with painting the same rows.
   */
  writeDelayMs?: number;
  /**
   * Resolves when the views are not busy taking in rows (src/shared/busy.ts): after
   * `writeDelayMs` a settled range's disk write also waits for this.
   */
  quiet?: () => Promise<void>;
  /**
   * Rows kept in memory across all ranges; past it the oldest ranges are dropped (settled ones
   * are still on disk). Unbounded, every 100k-row range a user opens stays on the heap and each
   * garbage collection gets longer. Default 300,000.
   */
  maxRecords?: number;
  now?: () => Date;
  /** See DEFAULT_SETTLE_DAYS. */
  settleDays?: number;
  log?: (line: string) => void;
  /** Scopes whose rows are never written to the disk cache (report files: their own cache holds them). */
  noDisk?: (accountId: string) => boolean;
}

export interface GetOptions {
  /** Ignore memory and disk, fetch from the API, and replace the held data on success. */
  refresh?: boolean;
  signal?: AbortSignal;
  /**
   * Rows of the fetch or disk read serving this call as they arrive, in arrival order (rows outside
   * the range included: filter them), those that arrived before this call joined first; a promise
   * returned holds the reading (RowsListener); offset 0 again starts over. Not called when memory
   * serves the range. When `get` resolves, its records are the same rows (sorted, inside the
   * range); when it rejects, the rows handed out were incomplete and nothing of them was kept.
   */
  onRows?: RowsListener;
  /**
   * With `onRows`: called once the fetch serving this call has its whole, validated result (its
   * records: the rows handed to `onRows`), before the store sorts and keeps it. What it returns,
   * the store awaits first (30 s at most): a panel still passing a million rows on to its webview
   * lost a second or more of the extension host to the sort (full collections of the heap, ~300
   * ms each). `get` resolves after.
   */
  onComplete?: (result: FetchResult) => unknown;
}
