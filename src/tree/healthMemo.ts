/**
 * A period's health (src/advice/health.ts) memoised per records array, as SummaryMemo does for
 * summaries: `RecordStore.peekRecords` hands out the same array while the held data is unchanged,
 * so re-renders reuse it, and a range the store drops takes its health with it. New thresholds
 * (the `dmarc.advice.*` settings) drop every entry; an entry judged with other marks (marks.ts
 * keeps an organization's marks the same Map until they change) is judged again. No `vscode`.
 */
import type { DmarcRecord } from '../api/types';
import { periodHealth, type HealthOptions, type PeriodHealth, type SourceAdvice } from '../advice/health';
import { NO_MARKS, type Marks } from '../advice/marks';
import type { AdviceThresholds } from '../advice/vocabulary';

/** A period's health, and its sources by name. */
export interface HeldHealth {
  health: PeriodHealth;
  bySource: ReadonlyMap<string, SourceAdvice>;
}

interface Entry extends HeldHealth {
  days: number;
  marks: Marks;
}

export class HealthMemo {
  private memo = new WeakMap<readonly DmarcRecord[], Entry>();

  /** `compute` is replaceable so tests can count what is computed. */
  constructor(
    private bars: AdviceThresholds,
    private readonly locale?: string,
    private readonly compute: (records: readonly DmarcRecord[], opts: HealthOptions) => PeriodHealth = periodHealth,
  ) {}

  get thresholds(): AdviceThresholds {
    return this.bars;
  }

  /** New thresholds: every period is judged again when next asked for. Whether they differ. */
  setThresholds(t: AdviceThresholds): boolean {
    const b = this.bars;
    if (b.compliant === t.compliant && b.quarantine === t.quarantine && b.reject === t.reject) return false;
    this.bars = { ...t };
    this.memo = new WeakMap();
    return true;
  }

  /** The health of these records over a period of `days` days with the owner's `marks`, computed once per array (and days, and marks). */
  get(records: readonly DmarcRecord[], days: number, marks: Marks = NO_MARKS): HeldHealth {
    const hit = this.memo.get(records);
    if (hit && hit.days === days && hit.marks === marks) return hit;
    const health = this.compute(records, { thresholds: this.bars, days, locale: this.locale, ...(marks.size ? { marks } : {}) });
    const entry: Entry = { health, bySource: new Map(health.sources.map((s) => [s.source, s])), days, marks };
    this.memo.set(records, entry);
    return entry;
  }
}
