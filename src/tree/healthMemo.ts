/**
 * A period's health (src/advice/health.ts) memoised per records array, as SummaryMemo does for
 * summaries: `RecordStore.peekRecords` hands out the same array while the held data is unchanged,
 * so re-renders reuse it, and a range the store drops takes its health with it. New thresholds
 * (the `dmarc.advice.*` settings) drop every entry. No `vscode`.
 */
import type { DmarcRecord } from '../api/types';
import { periodHealth, type HealthOptions, type PeriodHealth, type SourceAdvice } from '../advice/health';
import type { AdviceThresholds } from '../advice/vocabulary';

/** A period's health, and its sources by name. */
export interface HeldHealth {
  health: PeriodHealth;
  bySource: ReadonlyMap<string, SourceAdvice>;
}

interface Entry extends HeldHealth {
  days: number;
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

  /** The health of these records over a period of `days` days, computed once per array (and days). */
  get(records: readonly DmarcRecord[], days: number): HeldHealth {
    const hit = this.memo.get(records);
    if (hit && hit.days === days) return hit;
    const health = this.compute(records, { thresholds: this.bars, days, locale: this.locale });
    const entry: Entry = { health, bySource: new Map(health.sources.map((s) => [s.source, s])), days };
    this.memo.set(records, entry);
    return entry;
  }
}
