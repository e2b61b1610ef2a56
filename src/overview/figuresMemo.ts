/**
 * The Overview's figures memoised per records array (RecordStore.peekRecords hands out the same
 * array while what it holds of an organization is unchanged, as HealthMemo in the tree relies on),
 * period, thresholds and marks (SourceMarks keeps an organization's marks the same Map until they
 * change): opening the Overview again, or going back to a period, judges nothing again. A range the
 * store drops takes its figures with it. No `vscode`.
 */
import type { DmarcRecord } from '../api/types';
import { NO_MARKS, type Marks } from '../advice/marks';
import { overviewFigures, type OverviewFigures, type OverviewOptions, type OverviewPeriod } from './overviewRow';

export class FiguresMemo {
  private readonly memo = new WeakMap<readonly DmarcRecord[], Map<string, { marks: Marks; figures: OverviewFigures }>>();

  /** `compute` is replaceable so tests can count what is computed. */
  constructor(private readonly compute: typeof overviewFigures = overviewFigures) {}

  /** The figures, computed when they are not held (`cached` only: undefined then). */
  get(records: readonly DmarcRecord[], period: OverviewPeriod, opts: OverviewOptions, cached = false): OverviewFigures | undefined {
    const t = opts.thresholds;
    const marks = opts.marks ?? NO_MARKS;
    const key = `${period.start.getTime()}/${period.end.getTime()}/${t.compliant}/${t.quarantine}/${t.reject}/${opts.locale ?? ''}`;
    let byKey = this.memo.get(records);
    const hit = byKey?.get(key);
    if (hit && hit.marks === marks) return hit.figures;
    if (cached) return undefined;
    const figures = this.compute(records, period, opts);
    if (!byKey) this.memo.set(records, (byKey = new Map()));
    byKey.set(key, { marks, figures });
    return figures;
  }
}
