/**
 * How values read on screen: column labels, the DKIM cell text, badge tones. DOM-free, so the
 * model, the table and the unit tests agree on the same strings.
 */
import * as l10n from '@vscode/l10n';
import type { BuiltinGroupField, ColumnId, FacetId } from '../../src/shared/columns';
import { columnLabels } from '../../src/shared/columnLabels';
import { RateFormat } from '../../src/shared/percent';
import { adviceTone } from './data/adviceLabels';

/** The column headers: the same names the host's CSV export uses (src/shared/columnLabels.ts). */
export const COLUMN_LABELS: Record<ColumnId, string> = columnLabels();

export const FACET_LABELS: Record<FacetId, string> = {
  rowClass: l10n.t('Class'),
  verdict: l10n.t('Verdict of its source'),
  spfReason: l10n.t('Why SPF fails or passes'),
  dkimReason: l10n.t('Why DKIM fails or passes'),
  override: l10n.t('Receiver’s override'),
  dmarcResult: l10n.t('DMARC result'),
  category: l10n.t('Category'),
  dmarc: l10n.t('Disposition'),
  alignedSpf: l10n.t('Aligned SPF'),
  alignedDkim: l10n.t('Aligned DKIM'),
  spf: l10n.t('SPF'),
  dkim: l10n.t('DKIM signatures'),
  source: l10n.t('Source'),
  visibleFrom: l10n.t('Header From'),
  reporter: l10n.t('Reporter'),
  ipCountryCode: l10n.t('Country'),
  dkimDomain: l10n.t('DKIM domain (d=)'),
};

export const GROUP_LABELS: Record<BuiltinGroupField, string> = {
  source: l10n.t('Source'),
  ipAddress: l10n.t('IP address'),
  ipNetwork: l10n.t('IP network (/24, /64)'),
  reporter: l10n.t('Reporter'),
  visibleFrom: l10n.t('Header From'),
  returnPath: l10n.t('Return-Path'),
  to: l10n.t('Recipient domain (To)'),
  ipCountryCode: l10n.t('Country'),
  rdns: l10n.t('Reverse DNS'),
  dkimDomain: l10n.t('DKIM domain (d=)'),
  dkimSelector: l10n.t('DKIM selector (s=)'),
  dkimPair: l10n.t('DKIM domain + selector'),
  dkimAligned: l10n.t('Aligned DKIM signature'),
  spf: l10n.t('SPF result'),
  alignedSpf: l10n.t('Aligned SPF'),
  alignedDkim: l10n.t('Aligned DKIM'),
  dmarcResult: l10n.t('DMARC result'),
  category: l10n.t('Category'),
  dmarc: l10n.t('Disposition'),
  rowClass: l10n.t('Class'),
  verdict: l10n.t('Verdict of its source'),
  spfReason: l10n.t('Why SPF fails or passes'),
  dkimReason: l10n.t('Why DKIM fails or passes'),
  override: l10n.t('Receiver’s override'),
};

/** A group-by field's label: a built-in one, or an extra field the rows carry. */
export function groupLabel(field: string): string {
  if (field.startsWith('extra:')) return field.slice(6);
  return GROUP_LABELS[field as BuiltinGroupField] ?? field;
}

/** Default column widths in CSS pixels: the first seven fit beside the filters and details at 1280 px. */
export const COLUMN_WIDTHS: Record<ColumnId, number> = {
  source: 120,
  ipAddress: 118,
  emails: 82,
  dmarcResult: 84,
  alignedSpf: 104,
  alignedDkim: 112,
  dmarc: 108,
  date: 150,
  rowClass: 130,
  spfReason: 200,
  dkimReason: 200,
  category: 150,
  visibleFrom: 150,
  dkimDomains: 220,
  dkimAligned: 120,
  returnPath: 170,
  reporter: 130,
  to: 130,
  ipCountryCode: 80,
  rdns: 210,
  spf: 96,
  dkim: 140,
  override: 130,
};

/** Columns whose values are shown as coloured result badges. */
export const BADGE_COLUMNS: ReadonlySet<ColumnId> = new Set<ColumnId>(['dmarcResult', 'category', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkimAligned', 'rowClass', 'spfReason', 'dkimReason']);

/** The facet key of a row without DKIM signatures. */
export const NO_SIGNATURES = '(none)';
/** How an empty result value reads. */
export const EMPTY_LABEL = '(empty)';

/** Bidirectional controls show as their escapes (src/shared/bidi.ts). */
export { revealBidi } from '../../src/shared/bidi';

export function valueLabel(value: string): string {
  return value === '' ? EMPTY_LABEL : value;
}

/** `0`, or the count and the results: `2 (pass, fail)`. */
export function dkimText(results: readonly string[]): string {
  if (results.length === 0) return '0';
  return `${results.length} (${results.map(valueLabel).join(', ')})`;
}

export type Tone = 'pass' | 'fail' | 'warn' | 'neutral' | 'info';

/**
 * The colour family of a value: green for what passed or was delivered as authorized, red for
 * failures and rejections, amber for the in-between; anything unknown stays neutral.
 */
export function toneOf(column: ColumnId | FacetId | string, value: string): Tone {
  const v = value.toLowerCase();
  if (column === 'dkimAligned') return v === 'passed' ? 'pass' : v === 'present, failed' ? 'fail' : v === 'none aligned' ? 'warn' : 'neutral';
  if (column === 'rowClass' || column === 'verdict' || column === 'spfReason' || column === 'dkimReason') return adviceTone(value);
  if (column === 'category') {
    if (v === 'authorized') return 'pass';
    if (v === 'rejected') return 'fail';
    if (v === 'quarantined' || v === 'partially-authorized') return 'warn';
    return 'neutral';
  }
  if (column === 'dmarc') {
    if (v === 'reject') return 'fail';
    if (v === 'quarantine') return 'warn';
    if (v === 'none') return 'info';
    return 'neutral';
  }
  switch (v) {
    case 'pass':
      return 'pass';
    case 'fail':
    case 'permerror':
      return 'fail';
    case 'softfail':
    case 'temperror':
    case 'temperr':
    case 'neutral':
    case 'policy':
      return 'warn';
    default:
      return 'neutral';
  }
}

const TONE_ICONS: Record<Tone, string> = {
  pass: 'pass',
  fail: 'error',
  warn: 'warning',
  info: 'circle-outline',
  neutral: 'circle-small',
};

/** The codicon drawn before a badge's text, so colour is never the only signal. */
export function toneIcon(tone: Tone): string {
  return TONE_ICONS[tone];
}

let numberFormat: Intl.NumberFormat | undefined;
let percentFormat: RateFormat | undefined;

export function formatCount(n: number): string {
  numberFormat ??= new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
  return numberFormat.format(n);
}

/** A rate or share (0–1), written as the tree writes it (src/shared/percent.ts). */
export function formatPercent(fraction: number): string {
  percentFormat ??= new RateFormat();
  return percentFormat.format(fraction);
}

export function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

let dateFormat: Intl.DateTimeFormat | undefined;

/** `2026-11-16 17:20 UTC`: a row's date as people read it (the JSON view and exports keep the ISO text). */
export function formatDate(ms: number, fallback = ''): string {
  if (!Number.isFinite(ms)) return fallback;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A UTC day as `2026-11-16`. */
export function formatDay(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : '';
}

/** A short date for chart labels: `Nov 16`. */
export function formatShortDay(ms: number): string {
  dateFormat ??= new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
  return dateFormat.format(ms);
}
