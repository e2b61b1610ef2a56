/**
 * Summaries memoised per records array, for views that re-render often (the activity-bar tree
 * re-renders on every refresh, expand and settings change). Keyed by array identity in a
 * WeakMap: `RecordStore.peekRecords` hands out the same array for as long as the held data is
 * unchanged and a new one when it changes, so a hit is always current, and a range the store
 * drops takes its summaries with it. The arrays must not be modified (the store's contract).
 */
import type { DmarcRecord } from '../api/types';
import { bySource, summarize, type SourceSummary, type Summary } from './summary';

export interface SummaryFunctions {
  summarize(records: readonly DmarcRecord[]): Summary;
  bySource(records: readonly DmarcRecord[]): SourceSummary[];
}

export class SummaryMemo {
  private readonly memo = new WeakMap<readonly DmarcRecord[], { summary?: Summary; sources?: SourceSummary[] }>();

  /** `compute` is replaceable so tests can count what is computed. */
  constructor(private readonly compute: SummaryFunctions = { summarize, bySource }) {}

  private entry(records: readonly DmarcRecord[]): { summary?: Summary; sources?: SourceSummary[] } {
    let m = this.memo.get(records);
    if (!m) this.memo.set(records, (m = {}));
    return m;
  }

  /** `summarize(records)`, computed once per array. */
  summary(records: readonly DmarcRecord[]): Summary {
    const m = this.entry(records);
    return (m.summary ??= this.compute.summarize(records));
  }

  /** `bySource(records)`, computed once per array. Callers must not modify the result. */
  sources(records: readonly DmarcRecord[]): SourceSummary[] {
    const m = this.entry(records);
    return (m.sources ??= this.compute.bySource(records));
  }
}
