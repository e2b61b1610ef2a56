/**
 * What changed in a tree period: the previous period of equal length (src/advice/compare.ts
 * `previousPeriod`) is fetched once in the background after the period's own rows are in (one
 * request, through the record store, so it is cached like the rest and served from memory when a
 * held range covers it), then the period's sources and IPs say ▲/▼ how their pass rate moved,
 * "new" when they sent nothing in the previous period (nor in the 30 days before it, when memory
 * holds them), and a verdict that moved (Compliant → Needs fixing). `dmarc.compare.previousPeriod`
 * turns the extra request off. Comparisons are memoised per pair of held row arrays.
 */
import * as vscode from 'vscode';
import type { DmarcRecord } from '../api/types';
import { compareSums, previousPeriod, sumsBy, totalOf, type Change, type Sums } from '../advice/compare';
import type { Verdict } from '../advice/vocabulary';
import { DAY_MS, type Bucket } from '../records/buckets';
import type { RecordScope, RecordStore } from '../records/recordStore';
import type { SummaryText } from '../records/summaryText';

export interface PeriodComparison {
  total: Change;
  sources: ReadonlyMap<string, Change>;
  /** Per source, per IP. */
  ips(source: string): ReadonlyMap<string, Change>;
}

const EARLIER_DAYS = 30;

export const compareEnabled = (): boolean => vscode.workspace.getConfiguration('dmarc').get<boolean>('compare.previousPeriod', true) !== false;

export class PeriodCompare {
  private readonly memo = new WeakMap<readonly DmarcRecord[], WeakMap<readonly DmarcRecord[], PeriodComparison>>();
  /** Previous periods being fetched (or that failed: not asked again until a refresh), by key. */
  private readonly asked = new Set<string>();

  constructor(
    private readonly store: RecordStore,
    private readonly changed: () => void,
    private readonly log: (line: string) => void,
    private readonly enabled: () => boolean = compareEnabled,
  ) {}

  /** Forget the previous periods asked for (Refresh): they are asked again when next shown. */
  reset(): void {
    this.asked.clear();
  }

  /**
   * The comparison of a period whose rows are `records`, when the previous period's rows are at
   * hand; otherwise undefined, and (once) their fetch is started with `scope`, the tree re-rendering
   * when they are in. `verdicts` judges a period's sources (the tree's Health, with its marks).
   */
  of(scope: RecordScope, bucket: Pick<Bucket, 'start' | 'end'>, records: readonly DmarcRecord[], verdicts: (rows: readonly DmarcRecord[], days: number) => ReadonlyMap<string, Verdict>): PeriodComparison | undefined {
    if (!this.enabled()) return undefined;
    const prev = previousPeriod(bucket.start, bucket.end);
    const before = this.store.peekRecords(scope, prev.start, prev.end);
    if (!before) {
      this.fetch(scope, prev);
      return undefined;
    }
    let inner = this.memo.get(records);
    if (!inner) this.memo.set(records, (inner = new WeakMap()));
    const hit = inner.get(before);
    if (hit) return hit;
    const days = Math.max(1, Math.round((bucket.end.getTime() + 1 - bucket.start.getTime()) / DAY_MS));
    const earlier = this.store.peekRecords(scope, new Date(prev.start.getTime() - EARLIER_DAYS * DAY_MS), new Date(prev.start.getTime() - 1));
    const earlierSources = earlier && new Set(earlier.map((r) => r.source));
    const judged = (rows: readonly DmarcRecord[]): Map<string, Sums> => {
      const sums = sumsBy(rows, (r) => r.source);
      const v = verdicts(rows, days);
      for (const [k, s] of sums) {
        const verdict = v.get(k);
        if (verdict) s.verdict = verdict;
      }
      return sums;
    };
    const sources = compareSums(judged(records), judged(before), (k) => !!earlierSources?.has(k));
    const total = compareSums(new Map([['', totalOf(records)]]), new Map([['', totalOf(before)]])).get('')!;
    const ipMemo = new Map<string, Map<string, Change>>();
    const out: PeriodComparison = {
      total,
      sources,
      ips: (source) => {
        let m = ipMemo.get(source);
        if (!m) {
          const key = (r: DmarcRecord) => (r.source === source ? r.ipAddress : undefined);
          ipMemo.set(source, (m = compareSums(sumsBy(records, key), sumsBy(before, key))));
        }
        return m;
      },
    };
    inner.set(before, out);
    return out;
  }

  private fetch(scope: RecordScope, prev: { start: Date; end: Date }): void {
    const k = `${scope.accountId}|${scope.organizationId}|${prev.start.getTime()}|${prev.end.getTime()}`;
    if (this.asked.has(k)) return;
    this.asked.add(k);
    this.store.get(scope, prev.start, prev.end).then(
      () => {
        this.asked.delete(k);
        this.changed();
      },
      (err: unknown) => this.log(`previous period ${new Date(prev.start).toISOString().slice(0, 10)}–${new Date(prev.end).toISOString().slice(0, 10)} of ${scope.organizationId} not fetched: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
}

/** "▲4.1 pts", "▼12 pts", "±0 pts": a pass-rate change in points, one decimal under 10. */
export function pointsText(points: number, text: SummaryText): string {
  const abs = Math.abs(points);
  const shown = abs >= 9.95 ? Math.round(abs) : Math.round(abs * 10) / 10;
  if (shown === 0) return vscode.l10n.t('±0 pts');
  const n = text.count(shown);
  return points > 0 ? vscode.l10n.t('▲{0} pts', n) : vscode.l10n.t('▼{0} pts', n);
}

/** The change in a few words for a description: "new", "▼12 pts", or nothing when nothing moved worth saying. */
export function changeBadge(c: Change | undefined, text: SummaryText): string | undefined {
  if (!c) return undefined;
  if (c.status === 'new') return vscode.l10n.t('new');
  if (c.status === 'gone') return vscode.l10n.t('gone');
  if (c.deltaPass === undefined || Math.abs(c.deltaPass) < 0.05) return undefined;
  return pointsText(c.deltaPass, text);
}

/** Tooltip lines: the previous period's figures and what moved. */
export function changeLines(c: Change, text: SummaryText, verdictLabel: (v: Verdict | undefined) => string): string[] {
  const lines: string[] = [];
  if (c.status === 'new') lines.push(vscode.l10n.t('New: no emails in the previous period of equal length.'));
  else if (c.status === 'gone') lines.push(vscode.l10n.t('Gone: {0} in the previous period, none in this one.', text.emails(c.before)));
  else {
    const delta = c.deltaEmails === 0 ? '±0' : `${c.deltaEmails > 0 ? '+' : '−'}${text.count(Math.abs(c.deltaEmails))}`;
    lines.push(vscode.l10n.t('Previous period: {0}, {1} pass ({2} emails, {3})', text.emails(c.before), text.percent(c.passBefore), delta, c.deltaPass === undefined ? vscode.l10n.t('no rate') : pointsText(c.deltaPass, text)));
  }
  if (c.verdictBefore && c.verdictNow && c.verdictBefore !== c.verdictNow) lines.push(vscode.l10n.t('Verdict moved: {0} → {1}', verdictLabel(c.verdictBefore), verdictLabel(c.verdictNow)));
  return lines;
}
