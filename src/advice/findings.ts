/**
 * What the watch raises its hand for, from one organization's rows over the days it looks at: the
 * last full day(s) ("recent") against the weeks before ("baseline"). Four kinds of finding:
 *
 * - **new-sender**: a source with emails in the recent days and none in the baseline, whose
 *   emails failing DMARC in the recent days are at least `minEmails`.
 * - **pass-drop**: the organization's DMARC pass rate, or a source's (with at least `minEmails`
 *   in both windows), is lower in the recent days by more than `dropPoints` points.
 * - **volume-spike**: the recent days' emails per day are more than `spikeFactor` times the
 *   baseline's per day, and at least `minEmails` a day.
 * - **reports-stopped**: no rows in the last `silentDays` full days, though the baseline has some.
 *
 * Comparisons are compare.ts's, the same as the panel's and the tree's. Pure: no `vscode`.
 */
import { compareSums, sumsBy, totalOf, DAY_MS, type ComparableRow } from './compare';

export type FindingKind = 'new-sender' | 'pass-drop' | 'volume-spike' | 'reports-stopped';
export const FINDING_KINDS: readonly FindingKind[] = ['new-sender', 'pass-drop', 'volume-spike', 'reports-stopped'];

export interface WatchThresholds {
  /** Full days judged, ending yesterday (UTC). */
  recentDays: number;
  /** Full days before them they are compared with. */
  baselineDays: number;
  minEmails: number;
  dropPoints: number;
  spikeFactor: number;
  silentDays: number;
}

export const DEFAULT_WATCH: WatchThresholds = { recentDays: 1, baselineDays: 14, minEmails: 100, dropPoints: 10, spikeFactor: 3, silentDays: 3 };

export interface Finding {
  kind: FindingKind;
  /** The source it is about; '' for the organization as a whole. */
  subject: string;
  /** Figures behind it, for its words: emails (recent), before (baseline, per day for spikes), pass rates in %. */
  emails: number;
  before: number;
  passNow?: number;
  passBefore?: number;
  /** The days it is about (inclusive, UTC). */
  start: number;
  end: number;
}

export interface WatchWindow {
  baselineStart: number;
  recentStart: number;
  /** Inclusive end of the recent days: the end of yesterday. */
  end: number;
}

/** The days a run looks at when run at `now`: yesterday and the days before it, whole UTC days. */
export function watchWindow(now: number, t: WatchThresholds): WatchWindow {
  const today = now - (((now % DAY_MS) + DAY_MS) % DAY_MS);
  const recentDays = Math.max(1, Math.floor(t.recentDays));
  const recentStart = today - recentDays * DAY_MS;
  const baselineStart = recentStart - Math.max(1, Math.floor(t.baselineDays)) * DAY_MS;
  return { baselineStart, recentStart, end: today - 1 };
}

export interface WatchRow extends ComparableRow {
  readonly dateMs: number;
  readonly source: string;
}

const round1 = (x: number | undefined): number | undefined => (x === undefined ? undefined : Math.round(x * 1000) / 10);

/** The findings of one organization's rows over `w` (rows outside it are ignored), most pressing kinds first. */
export function findingsOf(rows: readonly WatchRow[], w: WatchWindow, t: WatchThresholds): Finding[] {
  const recent: WatchRow[] = [];
  const baseline: WatchRow[] = [];
  const silentStart = w.end + 1 - Math.max(1, Math.floor(t.silentDays)) * DAY_MS;
  let lastRowMs = -Infinity;
  for (const r of rows) {
    if (r.dateMs < w.baselineStart || r.dateMs > w.end) continue;
    if (r.dateMs > lastRowMs) lastRowMs = r.dateMs;
    (r.dateMs >= w.recentStart ? recent : baseline).push(r);
  }
  const out: Finding[] = [];
  const span = { start: w.recentStart, end: w.end };
  const recentDays = (w.end + 1 - w.recentStart) / DAY_MS;
  const baselineDays = (w.recentStart - w.baselineStart) / DAY_MS;

  if (baseline.length > 0 && lastRowMs < silentStart) {
    out.push({ kind: 'reports-stopped', subject: '', emails: 0, before: totalOf(baseline).emails, start: silentStart, end: w.end });
  }
  const sources = compareSums(sumsBy(recent, (r) => r.source), sumsBy(baseline, (r) => r.source));
  for (const c of sources.values()) {
    const failing = c.emails - Math.round((c.passNow ?? 0) * c.emails);
    if (c.status === 'new' && failing >= t.minEmails) out.push({ kind: 'new-sender', subject: c.key, emails: c.emails, before: 0, passNow: round1(c.passNow), ...span });
  }
  const total = compareSums(new Map([['', totalOf(recent)]]), new Map([['', totalOf(baseline)]])).get('')!;
  if (total.deltaPass !== undefined && total.deltaPass < -t.dropPoints && total.emails >= t.minEmails) {
    out.push({ kind: 'pass-drop', subject: '', emails: total.emails, before: total.before, passNow: round1(total.passNow), passBefore: round1(total.passBefore), ...span });
  }
  for (const c of sources.values()) {
    if (c.deltaPass === undefined || !(c.deltaPass < -t.dropPoints) || c.emails < t.minEmails || c.before < t.minEmails) continue;
    out.push({ kind: 'pass-drop', subject: c.key, emails: c.emails, before: c.before, passNow: round1(c.passNow), passBefore: round1(c.passBefore), ...span });
  }
  const perDay = total.emails / recentDays;
  const beforePerDay = total.before / baselineDays;
  if (total.before > 0 && perDay >= t.minEmails && perDay > t.spikeFactor * beforePerDay) {
    out.push({ kind: 'volume-spike', subject: '', emails: total.emails, before: Math.round(beforePerDay), ...span });
  }
  const order = (f: Finding): number => FINDING_KINDS.indexOf(f.kind);
  return out.sort((a, b) => order(a) - order(b) || b.emails - a.emails || (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
}

/** A finding's identity across runs: the same condition on the same subject is one finding while it lasts. */
export const findingId = (accountId: string, orgId: string, f: Pick<Finding, 'kind' | 'subject'>): string => `${accountId}\u0000${orgId}\u0000${f.kind}\u0000${f.subject}`;
