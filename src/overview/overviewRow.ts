/**
 * One organization's line of the Overview, from its records: the period's emails and DMARC pass
 * rate, the change from the previous period of equal length (advice/compare.ts, as the tree and
 * the panel compare), the sources whose verdict is Needs fixing and the Unauthenticated emails
 * (advice/health.ts with the tree's thresholds and the owner's marks, so the figures are the
 * tree's Health for the same period), the readiness step, the pass rate of each UTC day, and the
 * last day with rows. Pure: no `vscode`, no DOM; the host runs it once per organization.
 *
 * `records` may hold more than the two periods (a wider range the store had at hand): each
 * figure takes only the rows of its own period, bounds inclusive as the tree's buckets are.
 */
import * as l10n from '@vscode/l10n';
import type { DmarcRecord } from '../api/types';
import { compareTotals, DAY_MS, previousPeriod, type ChangeStatus } from '../advice/compare';
import { periodHealth } from '../advice/health';
import type { Marks } from '../advice/marks';
import type { Readiness, StepKind } from '../advice/readiness';
import type { AdviceThresholds } from '../advice/vocabulary';

export interface OverviewPeriod {
  /** Inclusive, 00:00:00.000 UTC of the first day. */
  start: Date;
  /** Inclusive, 23:59:59.999 UTC of the last day. */
  end: Date;
}

export interface OverviewOptions {
  thresholds: AdviceThresholds;
  /** The owner's marks on the organization's sources (the tree's SourceMarks). */
  marks?: Marks;
  locale?: string;
}

export interface OverviewFigures {
  emails: number;
  /** Emails that pass DMARC / emails; null without emails. */
  passRate: number | null;
  /** Emails in the previous period, and its pass rate. */
  before: number;
  passBefore: number | null;
  /** emails − before. */
  deltaEmails: number;
  /** (passRate − passBefore) in percentage points; null when either has no emails. */
  deltaPass: number | null;
  /** `new`: emails now and none before; `gone`: none now and some before. */
  status: ChangeStatus;
  /** Sources whose verdict is Needs fixing. */
  needsFixing: number;
  /** Emails whose class (after the marks) is Unauthenticated. */
  unauthenticated: number;
  readiness: { kind: StepKind; label: string; text: string };
  /** The DMARC pass rate of each UTC day of the period, oldest first; null for a day without emails. */
  daily: (number | null)[];
  /** The last UTC day (YYYY-MM-DD) with rows, in either period; null when neither has any. */
  lastDay: string | null;
}

/** Whole UTC days in a period (at least 1), as the tree counts them for "over 30 days". */
export function periodDays(p: OverviewPeriod): number {
  return Math.max(1, Math.round((p.end.getTime() + 1 - p.start.getTime()) / DAY_MS));
}

/** The range one request covers: the previous period and this one together. */
export function fetchRange(p: OverviewPeriod): OverviewPeriod {
  return { start: previousPeriod(p.start, p.end).start, end: p.end };
}

/** The readiness step in a few words: what the tree's Health item says (src/tree/healthText.ts). */
export function stepLabel(r: Readiness, locale?: string): string {
  switch (r.step.kind) {
    case 'no-mail':
      return l10n.t('No mail');
    case 'losing':
      return l10n.t('Legitimate mail being lost');
    case 'fix':
      if (r.share === undefined) return l10n.t('Nothing authenticates');
      return r.atRisk.sources === 1 ? l10n.t('Fix 1 source') : l10n.t('Fix {0} sources', new Intl.NumberFormat(locale).format(r.atRisk.sources));
    case 'forwarded':
      return l10n.t('Forwarded mail fails');
    case 'quarantine':
      return l10n.t('Ready for p=quarantine');
    case 'reject':
      return l10n.t('Ready for p=reject');
    case 'enforced':
      return l10n.t('Enforced');
  }
}

const passes = (r: DmarcRecord): boolean => r.alignedSpf === 'pass' || r.alignedDkim === 'pass';

export function overviewFigures(records: readonly DmarcRecord[], period: OverviewPeriod, opts: OverviewOptions): OverviewFigures {
  const s = period.start.getTime();
  const e = period.end.getTime();
  const prev = previousPeriod(period.start, period.end);
  const ps = prev.start.getTime();
  const now: DmarcRecord[] = [];
  const before: DmarcRecord[] = [];
  const days = periodDays(period);
  const dayEmails = new Float64Array(days);
  const dayPassing = new Float64Array(days);
  let last = -Infinity;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const t = r.dateMs;
    if (t >= s && t <= e) {
      now.push(r);
      const d = Math.floor((t - s) / DAY_MS);
      dayEmails[d] += r.emails;
      if (passes(r)) dayPassing[d] += r.emails;
    } else if (t >= ps && t < s) before.push(r);
    else continue;
    if (t > last) last = t;
  }
  const change = compareTotals(now, before);
  const health = periodHealth(now, { thresholds: opts.thresholds, days, ...(opts.locale ? { locale: opts.locale } : {}), ...(opts.marks?.size ? { marks: opts.marks } : {}) });
  const daily: (number | null)[] = [];
  for (let d = 0; d < days; d++) daily.push(dayEmails[d]! > 0 ? dayPassing[d]! / dayEmails[d]! : null);
  return {
    emails: change.emails,
    passRate: change.passNow ?? null,
    before: change.before,
    passBefore: change.passBefore ?? null,
    deltaEmails: change.deltaEmails,
    deltaPass: change.deltaPass ?? null,
    status: change.status,
    needsFixing: health.sources.filter((x) => x.verdict === 'needs-fixing').length,
    unauthenticated: health.mix[3],
    readiness: { kind: health.readiness.step.kind, label: stepLabel(health.readiness, opts.locale), text: health.readiness.step.text },
    daily,
    lastDay: Number.isFinite(last) ? new Date(last).toISOString().slice(0, 10) : null,
  };
}
