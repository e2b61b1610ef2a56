/**
 * The Overview's columns: their names, what each sorts by, which way a first click sorts, and
 * how their values read. DOM-free, so the unit tests check the order and the words.
 *
 * Rows without figures (still loading, failed, cancelled) always come after those with figures,
 * whichever way the table is sorted; so do figures without a value (no pass rate without mail).
 * Ties go by organization name, then account.
 */
import * as l10n from '@vscode/l10n';
import type { StepKind } from '../../../src/advice/readiness';
import type { OverviewRow } from '../../../src/shared/overviewProtocol';
import { formatCount, formatPercent } from '../format';

export const OVERVIEW_COLUMNS = ['organization', 'emails', 'pass', 'deltaPass', 'deltaEmails', 'needsFixing', 'unauthenticated', 'readiness', 'trend', 'lastDay'] as const;
export type OverviewColumn = (typeof OVERVIEW_COLUMNS)[number];

export interface OverviewSort {
  column: OverviewColumn;
  descending: boolean;
}

export interface ColumnInfo {
  label: string;
  /** The name read out, where the label is a symbol (Δ). */
  spoken?: string;
  /** What the column holds and how it sorts, for its header's tooltip. */
  help: string;
  numeric: boolean;
  /** The direction of a first click: the end that asks for attention first. */
  firstDescending: boolean;
}

export function columnInfo(): Record<OverviewColumn, ColumnInfo> {
  return {
    organization: { label: l10n.t('Organization'), help: l10n.t('The organization, its ID and its account (or Report Files).'), numeric: false, firstDescending: false },
    emails: { label: l10n.t('Emails'), help: l10n.t('Emails in the period.'), numeric: true, firstDescending: true },
    pass: { label: l10n.t('DMARC pass'), help: l10n.t('Share of the emails that pass DMARC (aligned SPF or aligned DKIM), weighted by emails. Sorts lowest first.'), numeric: true, firstDescending: false },
    deltaPass: { label: l10n.t('Δ pass'), spoken: l10n.t('Change in DMARC pass'), help: l10n.t('Change in DMARC pass from the previous period of equal length, in percentage points. Sorts the biggest drop first.'), numeric: true, firstDescending: false },
    deltaEmails: { label: l10n.t('Δ emails'), spoken: l10n.t('Change in emails'), help: l10n.t('Change in emails from the previous period of equal length.'), numeric: true, firstDescending: true },
    needsFixing: { label: l10n.t('To fix'), help: l10n.t('Sources whose verdict is Needs fixing: real senders set up wrong.'), numeric: true, firstDescending: true },
    unauthenticated: { label: l10n.t('Unauthenticated'), help: l10n.t('Emails that neither SPF nor any DKIM signature passes: what enforcement stops.'), numeric: true, firstDescending: true },
    readiness: { label: l10n.t('Readiness'), help: l10n.t('The next step towards enforcement, as Health says it. Sorts what asks for action first.'), numeric: false, firstDescending: false },
    trend: { label: l10n.t('Daily pass'), help: l10n.t('DMARC pass of each UTC day of the period. Sorts by the latest day with emails, lowest first.'), numeric: false, firstDescending: false },
    lastDay: { label: l10n.t('Last day'), help: l10n.t('The last UTC day with report rows. Sorts the oldest first: reports that stopped.'), numeric: false, firstDescending: false },
  };
}

/** The readiness steps, what asks for action first first. */
const STEP_RANK: Readonly<Record<StepKind, number>> = { losing: 0, fix: 1, forwarded: 2, quarantine: 3, reject: 4, enforced: 5, 'no-mail': 6 };

/** The latest day's pass rate of a daily series; undefined when no day has emails. */
export function latestDaily(daily: readonly (number | null)[]): number | undefined {
  for (let i = daily.length - 1; i >= 0; i--) if (daily[i] !== null && daily[i] !== undefined) return daily[i]!;
  return undefined;
}

/** What a row sorts by in a column; undefined sorts after every value. */
export function sortValue(row: OverviewRow, column: OverviewColumn): number | string | undefined {
  const f = row.state === 'loaded' ? row.figures : undefined;
  if (column === 'organization') return row.name.toLowerCase();
  if (!f) return undefined;
  switch (column) {
    case 'emails':
      return f.emails;
    case 'pass':
      return f.passRate ?? undefined;
    case 'deltaPass':
      return f.deltaPass ?? undefined;
    case 'deltaEmails':
      return f.deltaEmails;
    case 'needsFixing':
      return f.needsFixing;
    case 'unauthenticated':
      return f.unauthenticated;
    case 'readiness':
      return STEP_RANK[f.readiness.kind];
    case 'trend':
      return latestDaily(f.daily);
    case 'lastDay':
      return f.lastDay ?? undefined;
  }
}

const tieBreak = (a: OverviewRow, b: OverviewRow): number =>
  a.name.localeCompare(b.name) || a.account.localeCompare(b.account) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** The rows in the order of `sort` (a new array). */
export function sortRows(rows: readonly OverviewRow[], sort: OverviewSort): OverviewRow[] {
  const dir = sort.descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    // Rows with figures first, then those still loading, then the failed and cancelled ones.
    const ga = a.state === 'loaded' ? 0 : a.state === 'loading' ? 1 : 2;
    const gb = b.state === 'loaded' ? 0 : b.state === 'loading' ? 1 : 2;
    if (ga !== gb) return ga - gb;
    const va = sortValue(a, sort.column);
    const vb = sortValue(b, sort.column);
    if (va === undefined || vb === undefined) return va === vb ? tieBreak(a, b) : va === undefined ? 1 : -1;
    if (va !== vb) return (va < vb ? -1 : 1) * dir;
    return tieBreak(a, b);
  });
}

/** The sort after choosing a column: its first direction, or the other way when it is already sorted by it. */
export function nextSort(current: OverviewSort, column: OverviewColumn): OverviewSort {
  if (current.column === column) return { column, descending: !current.descending };
  return { column, descending: columnInfo()[column].firstDescending };
}

/** "+1,234", "−56", "0": a change in emails. */
export function signedCount(n: number): string {
  if (n === 0) return formatCount(0);
  return `${n > 0 ? '+' : '−'}${formatCount(Math.abs(n))}`;
}

/** A change in pass rate, as shown and as read out: "+3.2 pts" / "up 3.2 points"; New, Gone or – without one. */
export function deltaPassText(f: NonNullable<OverviewRow['figures']>): { text: string; label: string; tone: 'pass' | 'fail' | 'neutral' } {
  if (f.status === 'new') return { text: l10n.t('New'), label: l10n.t('New: no emails in the previous period'), tone: 'neutral' };
  if (f.status === 'gone') return { text: l10n.t('Gone'), label: l10n.t('Gone: no emails in this period'), tone: 'neutral' };
  if (f.deltaPass === null) return { text: '–', label: l10n.t('No change to compare'), tone: 'neutral' };
  const points = Math.abs(f.deltaPass).toFixed(1);
  if (points === '0.0') return { text: l10n.t('{0} pts', '0.0'), label: l10n.t('No change in DMARC pass'), tone: 'neutral' };
  return f.deltaPass > 0
    ? { text: l10n.t('+{0} pts', points), label: l10n.t('Up {0} points', points), tone: 'pass' }
    : { text: l10n.t('−{0} pts', points), label: l10n.t('Down {0} points', points), tone: 'fail' };
}

/** The pass rate as the tree writes it; – without mail. */
export function passText(rate: number | null): string {
  return rate === null ? '–' : formatPercent(rate);
}

/** The badge tone of a readiness step. */
export function stepTone(kind: StepKind): 'pass' | 'fail' | 'warn' | 'neutral' {
  return kind === 'losing' ? 'fail' : kind === 'fix' || kind === 'forwarded' ? 'warn' : kind === 'no-mail' ? 'neutral' : 'pass';
}
