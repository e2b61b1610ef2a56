/**
 * One line per request for the output channel at the Info level: organization, range, status,
 * rows, bytes, duration and retries. Never the key, never the URL's query.
 */
import { formatBytes } from './errors';

export interface RequestSummary {
  organizationId: string;
  /** The range as sent (ISO 8601 UTC), or as given when it was not a date. */
  start: string;
  end: string;
  ok: boolean;
  /** The last HTTP status seen, if any answer came. */
  status?: number | undefined;
  rows?: number | undefined;
  rejected?: number | undefined;
  /** Characters of the body read (a 2xx answer). */
  bytes?: number | undefined;
  ms: number;
  retries: number;
  /** ApiError kind when it failed. */
  error?: string | undefined;
}

const count = new Intl.NumberFormat('en');

function day(iso: string): string {
  // Whole UTC days read as dates; anything else as sent.
  return /^\d{4}-\d{2}-\d{2}T00:00:00(\.000)?Z$/.test(iso) || /^\d{4}-\d{2}-\d{2}T23:59:59(\.999)?Z$/.test(iso) ? iso.slice(0, 10) : iso;
}

/** `GET acme 2026-11-01…2026-11-30: 200, 1,234 rows, 4.2 MB, 812 ms` (plus retries, rejected rows, or the failure). */
export function requestLine(s: RequestSummary): string {
  const parts: string[] = [];
  if (s.ok) {
    parts.push(String(s.status ?? 200), `${count.format(s.rows ?? 0)} ${s.rows === 1 ? 'row' : 'rows'}`);
    if (s.rejected) parts.push(`${count.format(s.rejected)} rejected`);
    if (s.bytes !== undefined) parts.push(formatBytes(s.bytes));
  } else {
    parts.push(`failed (${s.error ?? 'error'}${s.status ? `, HTTP ${s.status}` : ''})`);
  }
  parts.push(`${count.format(Math.round(s.ms))} ms`);
  if (s.retries) parts.push(`${s.retries} ${s.retries === 1 ? 'retry' : 'retries'}`);
  return `GET ${s.organizationId} ${day(s.start)}…${day(s.end)}: ${parts.join(', ')}`;
}
