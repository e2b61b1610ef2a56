/**
 * Export formats for selected rows. Pure (no `vscode`): unit-tested in plain Node.
 * JSON is the records exactly as the server sent them, one record per line inside the array
 * (valid JSON that an editor opens quickly: a tenth of the lines of a pretty-printed array); CSV
 * is one line per record with the documented fields, then every other field the server sent
 * (such as `reportId`), so it carries what the JSON does. The documented fields' header cells are
 * the records table's column names ("Header From", "Aligned SPF": src/shared/columnLabels.ts), as
 * the user knows them; JSON keeps the server's keys, and so do the extra fields' cells.
 *
 * Both come as a whole string (`toJson`, `toCsv`) or as an async sequence of pieces
 * (`jsonChunks`, `csvChunks`) built in slices of at most `SLICE_MS` that yield the event loop
 * between them, so a 100k-row export never stalls the extension host.
 */
import { rawField, rawKeys, rawOf } from '../api/rawRow';
import type { DmarcRecord } from '../api/types';
import { KNOWN_FIELDS } from '../records/tuple';
import * as l10n from '@vscode/l10n';
import { columnLabels } from '../shared/columnLabels';
import type { ColumnId } from '../shared/columns';

/** How long one slice of an export build may run before it yields the event loop (ms). */
export const SLICE_MS = 12;
/** Rows built between two looks at the clock. */
const CLOCK_EVERY = 128;

export interface ChunkOptions {
  /** Stops the build between slices (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /** After each slice: rows built so far, of `total`. */
  onProgress?: (done: number, total: number) => void;
  /** Slice length in ms (tests use 0: one yield per `CLOCK_EVERY` rows). */
  sliceMs?: number;
}

/**
 * One record as one line of JSON: the raw row as received. JSON.stringify escapes line breaks
 * and lone surrogates; U+2028 and U+2029 are escaped as well (they are valid inside JSON strings,
 * but editors and other tools treat them as line ends), so a record is always exactly one line.
 */
export function jsonLine(record: DmarcRecord): string {
  const text = JSON.stringify(rawOf(record));
  return /[\u2028\u2029]/.test(text) ? text.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029')) : text;
}

export function toJson(records: readonly DmarcRecord[]): string {
  return `[\n${records.map(jsonLine).join(',\n')}${records.length ? '\n' : ''}]\n`;
}

/** `toJson` as pieces, built in slices that yield the event loop between them. */
export async function* jsonChunks(records: readonly DmarcRecord[], opts: ChunkOptions = {}): AsyncGenerator<string> {
  yield '[\n';
  const last = records.length - 1;
  yield* sliced(records.length, (i) => `${jsonLine(records[i]!)}${i < last ? ',\n' : '\n'}`, opts);
  yield ']\n';
}

/** Joins the pieces of `jsonChunks` or `csvChunks` into one string. */
export async function collect(chunks: AsyncIterable<string>): Promise<string> {
  const parts: string[] = [];
  for await (const c of chunks) parts.push(c);
  return parts.join('');
}

/** `text` in consecutive pieces of about `size` characters, each (but the last) ending after a line feed. */
export function* linePieces(text: string, size: number): Generator<string> {
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    if (end < text.length) {
      const nl = text.indexOf('\n', end - 1);
      end = nl < 0 ? text.length : nl + 1;
    }
    yield text.slice(at, end);
    at = end;
  }
}

/** Builds `line(i)` for i in [0, count) in slices of about `sliceMs`, one piece per slice. */
async function* sliced(count: number, line: (i: number) => string, opts: ChunkOptions): AsyncGenerator<string> {
  const budget = opts.sliceMs ?? SLICE_MS;
  let i = 0;
  while (i < count) {
    opts.signal?.throwIfAborted();
    const t0 = performance.now();
    const parts: string[] = [];
    do {
      const end = Math.min(count, i + CLOCK_EVERY);
      for (; i < end; i++) parts.push(line(i));
    } while (i < count && performance.now() - t0 < budget);
    yield parts.join('');
    opts.onProgress?.(i, count);
    if (i < count) await new Promise<void>((r) => setImmediate(r));
  }
  opts.signal?.throwIfAborted();
}

export const CSV_COLUMNS = [
  'source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'rdns',
  'emails', 'category', 'date', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkims',
] as const;

/** The table's column each CSV column is named after: `dkims` holds what DKIM Signatures shows. */
const CSV_COLUMN_IDS: Record<(typeof CSV_COLUMNS)[number], ColumnId> = {
  source: 'source', reporter: 'reporter', visibleFrom: 'visibleFrom', returnPath: 'returnPath', to: 'to',
  ipAddress: 'ipAddress', ipCountryCode: 'ipCountryCode', rdns: 'rdns', emails: 'emails', category: 'category',
  date: 'date', dmarc: 'dmarc', alignedSpf: 'alignedSpf', alignedDkim: 'alignedDkim', spf: 'spf', dkims: 'dkimDomains',
};

/** The documented columns' header cells: the table's column names, in the language loaded. */
export function csvColumnNames(): string[] {
  const labels = columnLabels();
  return CSV_COLUMNS.map((c) => labels[CSV_COLUMN_IDS[c]]);
}

function cell(record: DmarcRecord, column: (typeof CSV_COLUMNS)[number]): string {
  switch (column) {
    case 'rdns':
      return record.rdns.join(' ');
    case 'emails':
      return String(record.emails);
    case 'dkims':
      return record.dkims.map((d) => `${d.selector}._domainkey.${d.domain}=${d.result}`).join(' ');
    default:
      return record[column] ?? '';
  }
}

/**
 * RFC 4180 quoting (fields with a comma, quote, CR or LF are quoted, quotes doubled), CRLF line
 * ends. Report data is written by strangers, so a field that a spreadsheet would run as a formula
 * (starting with =, +, -, @, tab or CR) is prefixed with an apostrophe.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The fields beyond the documented ones, in the order the records first show them. */
export function extraColumns(records: readonly DmarcRecord[]): string[] {
  const seen = new Set<string>();
  for (const r of records) for (const key of rawKeys(r)) if (!KNOWN_FIELDS.has(key)) seen.add(key);
  return [...seen];
}

/** An extra field's cell: text as sent, anything else as its JSON, absent or null as empty. */
function extraCell(record: DmarcRecord, key: string): string {
  const v = rawField(record, key);
  if (typeof v === 'string') return v;
  return v === null || v === undefined ? '' : JSON.stringify(v) ?? '';
}

function csvLine(r: DmarcRecord, extras: readonly string[]): string {
  return [...CSV_COLUMNS.map((c) => csvField(cell(r, c))), ...extras.map((k) => csvField(extraCell(r, k)))].join(',');
}

function csvHeader(extras: readonly string[]): string {
  return [...csvColumnNames(), ...extras].map(csvField).join(',');
}

export function toCsv(records: readonly DmarcRecord[]): string {
  const extras = extraColumns(records);
  const lines = [csvHeader(extras)];
  for (const r of records) lines.push(csvLine(r, extras));
  return `${lines.join('\r\n')}\r\n`;
}

/** `toCsv` as pieces, built in slices that yield the event loop between them. */
export async function* csvChunks(records: readonly DmarcRecord[], opts: ChunkOptions = {}): AsyncGenerator<string> {
  // The header needs every record's field names first: one pass over the rows, sliced as well.
  const seen = new Set<string>();
  const names = sliced(records.length, (i) => {
    for (const key of rawKeys(records[i]!)) if (!KNOWN_FIELDS.has(key)) seen.add(key);
    return '';
  }, { ...opts, onProgress: undefined });
  while (!(await names.next()).done) { /* the names are in `seen` */ }
  const extras = [...seen];
  yield `${csvHeader(extras)}\r\n`;
  yield* sliced(records.length, (i) => `${csvLine(records[i]!, extras)}\r\n`, opts);
}

/** The columns of an exported groups table, in order (rates as fractions). */
export const GROUP_CSV_COLUMNS = [
  'group', 'subgroup', 'rows', 'emails', 'share', 'dmarcPass', 'alignedSpf', 'alignedDkim', 'verdict', 'delivered', 'quarantined', 'rejected', 'first', 'last',
] as const;

/** With Compare on (the panel's previous period): these follow, for every group. */
export const GROUP_COMPARE_CSV_COLUMNS = ['emailsBefore', 'deltaEmails', 'deltaPass', 'change', 'verdictBefore'] as const;

export interface GroupRow {
  group: string;
  subgroup?: string | undefined;
  rows: number;
  emails: number;
  share: number | null;
  dmarcPass: number | null;
  alignedSpf: number | null;
  alignedDkim: number | null;
  verdict?: string | undefined;
  delivered: number;
  quarantined: number;
  rejected: number;
  first: string;
  last: string;
  emailsBefore?: number | undefined;
  deltaEmails?: number | undefined;
  /** Percentage points. */
  deltaPass?: number | null | undefined;
  change?: 'new' | 'gone' | 'kept' | undefined;
  verdictBefore?: string | undefined;
}

export function groupsToJson(title: string, rows: readonly GroupRow[]): string {
  return `${JSON.stringify({ groupedBy: title, groups: rows }, null, 2)}\n`;
}

/** The groups CSV's header cells: the names the panel's Groups table uses, not the JSON keys. */
function groupCsvHeaders(): Record<(typeof GROUP_CSV_COLUMNS)[number] | (typeof GROUP_COMPARE_CSV_COLUMNS)[number], string> {
  return {
    emailsBefore: l10n.t('Emails before'), deltaEmails: l10n.t('Δ Emails'), deltaPass: l10n.t('Δ DMARC pass (points)'), change: l10n.t('Change'), verdictBefore: l10n.t('Verdict before'),
    group: l10n.t('Group'), subgroup: l10n.t('Subgroup'), rows: l10n.t('Rows'), emails: l10n.t('Emails'), share: l10n.t('Share'),
    dmarcPass: l10n.t('DMARC pass'), alignedSpf: l10n.t('Aligned SPF'), alignedDkim: l10n.t('Aligned DKIM'), verdict: l10n.t('Verdict'),
    delivered: l10n.t('Delivered'), quarantined: l10n.t('Quarantined'), rejected: l10n.t('Rejected'), first: l10n.t('First'), last: l10n.t('Last'),
  };
}

export function groupsToCsv(rows: readonly GroupRow[]): string {
  const headers = groupCsvHeaders();
  const columns = rows.some((r) => r.change !== undefined) ? [...GROUP_CSV_COLUMNS, ...GROUP_COMPARE_CSV_COLUMNS] : GROUP_CSV_COLUMNS;
  const lines = [columns.map((c) => csvField(headers[c])).join(',')];
  for (const r of rows) {
    lines.push(columns.map((c) => {
      const v = r[c];
      // A number is never a formula: a change of −56 stays a number for the spreadsheet.
      if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
      return csvField(v === null || v === undefined ? '' : String(v));
    }).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** The Advice list's columns in CSV, in this order (JSON keeps the same keys). */
export const ADVICE_CSV_COLUMNS = ['source', 'verdict', 'reasons', 'emails', 'failingEmails', 'quarantinedOrRejected', 'dmarcPass', 'fix'] as const;

export type AdviceRow = Record<(typeof ADVICE_CSV_COLUMNS)[number], string | number | null>;

export function adviceToJson(title: string, rows: readonly AdviceRow[]): string {
  return `${JSON.stringify({ advice: title, sources: rows }, null, 2)}\n`;
}

/** The Advice CSV's header cells, as words (JSON keeps the keys). */
function adviceCsvHeaders(): Record<(typeof ADVICE_CSV_COLUMNS)[number], string> {
  return {
    source: l10n.t('Source'), verdict: l10n.t('Verdict'), reasons: l10n.t('Reasons'), emails: l10n.t('Emails'), failingEmails: l10n.t('Failing emails'),
    quarantinedOrRejected: l10n.t('Quarantined or rejected'), dmarcPass: l10n.t('DMARC pass'), fix: l10n.t('Fix'),
  };
}

export function adviceToCsv(rows: readonly AdviceRow[]): string {
  const headers = adviceCsvHeaders();
  const lines = [ADVICE_CSV_COLUMNS.map((c) => csvField(headers[c])).join(',')];
  for (const r of rows) lines.push(ADVICE_CSV_COLUMNS.map((c) => csvField(r[c] === null ? '' : String(r[c]))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
