/**
 * How values read on screen: column labels, the DKIM cell text, badge tones. DOM-free, so the
 * model, the table and the unit tests agree on the same strings.
 */
import type { ColumnId, FacetId } from '../../src/shared/columns';

export const COLUMN_LABELS: Record<ColumnId, string> = {
  source: 'Source',
  reporter: 'Reporter',
  visibleFrom: 'Header From',
  returnPath: 'Return-Path',
  to: 'To',
  ipAddress: 'IP Address',
  ipCountryCode: 'Country',
  rdns: 'Reverse DNS',
  emails: 'Emails',
  category: 'Category',
  date: 'Date',
  dmarc: 'Disposition',
  alignedSpf: 'Aligned SPF',
  alignedDkim: 'Aligned DKIM',
  spf: 'SPF',
  dkim: 'DKIM',
};

export const FACET_LABELS: Record<FacetId, string> = {
  category: 'Category',
  dmarc: 'Disposition',
  alignedSpf: 'Aligned SPF',
  alignedDkim: 'Aligned DKIM',
  spf: 'SPF',
  dkim: 'DKIM signatures',
};

/** Default column widths in CSS pixels. */
export const COLUMN_WIDTHS: Record<ColumnId, number> = {
  source: 150,
  reporter: 140,
  visibleFrom: 160,
  returnPath: 170,
  to: 130,
  ipAddress: 130,
  ipCountryCode: 92,
  rdns: 210,
  emails: 80,
  category: 160,
  date: 200,
  dmarc: 112,
  alignedSpf: 118,
  alignedDkim: 128,
  spf: 110,
  dkim: 150,
};

/** Columns whose values are shown as coloured result badges. */
export const BADGE_COLUMNS: ReadonlySet<ColumnId> = new Set<ColumnId>(['category', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf']);

/** The facet key of a row without DKIM signatures. */
export const NO_SIGNATURES = '(none)';
/** How an empty result value reads. */
export const EMPTY_LABEL = '(empty)';

/**
 * Bidirectional control characters (U+202E RIGHT-TO-LEFT OVERRIDE and its kin). Report data is
 * written by strangers, who can use them to make a value read as something it is not
 * ("\u202egnp.exe" shows as "exe.png"). On screen they become their escape, `\u202e`, which
 * is also how JSON may write them; the data itself (copy, export) is left exactly as sent.
 */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function revealBidi(text: string): string {
  return BIDI_CONTROL.test(text) ? text.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}

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
export function toneOf(column: ColumnId | FacetId, value: string): Tone {
  const v = value.toLowerCase();
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
let percentFormat: Intl.NumberFormat | undefined;

export function formatCount(n: number): string {
  numberFormat ??= new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
  return numberFormat.format(n);
}

export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '–';
  percentFormat ??= new Intl.NumberFormat(undefined, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return percentFormat.format(fraction);
}

export function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
