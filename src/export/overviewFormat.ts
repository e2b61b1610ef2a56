/**
 * The Overview's rows as JSON and CSV (src/overview). Pure (no `vscode`). Rates are fractions
 * (0–1) and changes in pass rate are percentage points, as in the other exports; empty when there
 * is no figure. The CSV's header cells are words, as the Overview's columns read; JSON keeps keys
 * and adds each day's pass rate. A row that could not be loaded carries its reason.
 */
import * as l10n from '@vscode/l10n';
import type { OverviewRow } from '../shared/overviewProtocol';
import { csvField } from './format';

/** The columns of an exported Overview, in order (JSON uses the same keys). */
export const OVERVIEW_CSV_COLUMNS = [
  'organization', 'organizationId', 'account', 'emails', 'dmarcPass', 'emailsBefore', 'dmarcPassBefore', 'changeInEmails',
  'changeInDmarcPassPoints', 'sourcesNeedingFixing', 'unauthenticatedEmails', 'readiness', 'lastDayWithRows', 'error',
] as const;

type Cell = string | number | null;
export type OverviewExportRow = Record<(typeof OVERVIEW_CSV_COLUMNS)[number], Cell> & { dailyDmarcPass: (number | null)[] };

function headers(): Record<(typeof OVERVIEW_CSV_COLUMNS)[number], string> {
  return {
    organization: l10n.t('Organization'), organizationId: l10n.t('Organization ID'), account: l10n.t('Account'), emails: l10n.t('Emails'),
    dmarcPass: l10n.t('DMARC pass'), emailsBefore: l10n.t('Emails in the previous period'), dmarcPassBefore: l10n.t('DMARC pass in the previous period'),
    changeInEmails: l10n.t('Change in emails'), changeInDmarcPassPoints: l10n.t('Change in DMARC pass (points)'),
    sourcesNeedingFixing: l10n.t('Sources needing fixing'), unauthenticatedEmails: l10n.t('Unauthenticated emails'), readiness: l10n.t('Readiness'),
    lastDayWithRows: l10n.t('Last day with rows'), error: l10n.t('Error'),
  };
}

/** A row as exported: its figures, or empty cells and why. */
export function overviewExportRow(r: OverviewRow): OverviewExportRow {
  const f = r.state === 'loaded' ? r.figures : undefined;
  const error = r.state === 'error' ? r.error ?? '' : r.state === 'cancelled' ? l10n.t('Not loaded: cancelled') : r.state === 'loading' ? l10n.t('Not loaded yet') : null;
  return {
    organization: r.name, organizationId: r.organizationId, account: r.account,
    emails: f ? f.emails : null, dmarcPass: f?.passRate ?? null, emailsBefore: f ? f.before : null, dmarcPassBefore: f?.passBefore ?? null,
    changeInEmails: f ? f.deltaEmails : null, changeInDmarcPassPoints: f?.deltaPass ?? null,
    sourcesNeedingFixing: f ? f.needsFixing : null, unauthenticatedEmails: f ? f.unauthenticated : null,
    readiness: f ? f.readiness.label : null, lastDayWithRows: f?.lastDay ?? null, error,
    dailyDmarcPass: f ? [...f.daily] : [],
  };
}

export function overviewToJson(title: string, period: { start: string; end: string; previousStart: string; previousEnd: string }, rows: readonly OverviewRow[]): string {
  return `${JSON.stringify({ overview: title, period, organizations: rows.map(overviewExportRow) }, null, 2)}\n`;
}

export function overviewToCsv(rows: readonly OverviewRow[]): string {
  const h = headers();
  const lines = [OVERVIEW_CSV_COLUMNS.map((c) => csvField(h[c])).join(',')];
  for (const r of rows) {
    const x = overviewExportRow(r);
    lines.push(OVERVIEW_CSV_COLUMNS.map((c) => csvField(x[c] === null ? '' : String(x[c]))).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
