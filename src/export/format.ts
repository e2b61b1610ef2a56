/**
 * Export formats for selected rows. Pure (no `vscode`): unit-tested in plain Node.
 * JSON is the records exactly as the server sent them; CSV is one line per record with the
 * documented fields, then every other field the server sent (such as `reportId`), so it carries
 * what the JSON does.
 */
import type { DmarcRecord } from '../api/types';
import { KNOWN_FIELDS } from '../records/tuple';

export function toJson(records: readonly DmarcRecord[]): string {
  return `${JSON.stringify(records.map((r) => r.raw), null, 2)}\n`;
}

export const CSV_COLUMNS = [
  'source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'rdns',
  'emails', 'category', 'date', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkims',
] as const;

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
  for (const r of records) for (const key of Object.keys(r.raw)) if (!KNOWN_FIELDS.has(key)) seen.add(key);
  return [...seen];
}

/** An extra field's cell: text as sent, anything else as its JSON, absent or null as empty. */
function extraCell(record: DmarcRecord, key: string): string {
  if (!Object.hasOwn(record.raw, key)) return '';
  const v = record.raw[key];
  if (typeof v === 'string') return v;
  return v === null || v === undefined ? '' : JSON.stringify(v) ?? '';
}

export function toCsv(records: readonly DmarcRecord[]): string {
  const extras = extraColumns(records);
  const lines = [[...CSV_COLUMNS, ...extras].map(csvField).join(',')];
  for (const r of records) {
    lines.push([...CSV_COLUMNS.map((c) => csvField(cell(r, c))), ...extras.map((k) => csvField(extraCell(r, k)))].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** The columns of an exported groups table, in order (rates as fractions). */
export const GROUP_CSV_COLUMNS = [
  'group', 'subgroup', 'rows', 'emails', 'share', 'dmarcPass', 'alignedSpf', 'alignedDkim', 'delivered', 'quarantined', 'rejected', 'first', 'last',
] as const;

export interface GroupRow {
  group: string;
  subgroup?: string | undefined;
  rows: number;
  emails: number;
  share: number | null;
  dmarcPass: number | null;
  alignedSpf: number | null;
  alignedDkim: number | null;
  delivered: number;
  quarantined: number;
  rejected: number;
  first: string;
  last: string;
}

export function groupsToJson(title: string, rows: readonly GroupRow[]): string {
  return `${JSON.stringify({ groupedBy: title, groups: rows }, null, 2)}\n`;
}

export function groupsToCsv(rows: readonly GroupRow[]): string {
  const lines = [GROUP_CSV_COLUMNS.join(',')];
  for (const r of rows) {
    lines.push(GROUP_CSV_COLUMNS.map((c) => {
      const v = r[c];
      return csvField(v === null || v === undefined ? '' : String(v));
    }).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
