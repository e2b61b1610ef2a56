/**
 * A record as the records panel's webview receives it: a compact tuple (src/shared/columns.ts),
 * with the DKIM signatures' domains and selectors, their alignment with Header From, and the
 * fields the API sent beyond the documented ones.
 */
import type { DmarcRecord } from '../api/types';
import type { RowTuple } from '../shared/columns';
import { encodeChunk, type RowFields } from '../shared/rowCodec';
import { dkimAlignment } from './alignment';

/** The documented record fields; anything else the server sent is an extra field. */
export const KNOWN_FIELDS = new Set([
  'source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'rdns', 'emails',
  'category', 'date', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkims',
]);
/** An extra field's text is cut here: it is for search, grouping and a cell, the JSON view has it whole. */
const EXTRA_TEXT_MAX = 2_000;

export function extraFields(raw: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of Object.keys(raw)) {
    if (KNOWN_FIELDS.has(key)) continue;
    const v = raw[key];
    const text = typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v) ?? '';
    out.push(key.slice(0, 200), text.length > EXTRA_TEXT_MAX ? text.slice(0, EXTRA_TEXT_MAX) : text);
  }
  return out;
}

export function toTuple(r: DmarcRecord): RowTuple {
  return [
    r.source, r.reporter, r.visibleFrom, r.returnPath, r.to ?? '', r.ipAddress, r.ipCountryCode ?? '',
    r.rdns, r.emails, r.category, r.date, r.dmarc, r.alignedSpf, r.alignedDkim, r.spf,
    r.dkims.map((d) => [d.domain, d.selector, d.result]),
    dkimAlignment(r.visibleFrom, r.dkims.map((d) => d.domain)),
    extraFields(r.raw),
  ];
}

/** The fields of a record as the binary chunk carries them (src/shared/rowCodec.ts). */
export function toRowFields(r: DmarcRecord): RowFields {
  const domains = r.dkims.map((d) => d.domain);
  return {
    scalars: [
      r.source, r.reporter, r.visibleFrom, r.returnPath, r.to ?? '', r.ipAddress, r.ipCountryCode ?? '', r.category, r.date,
      r.dmarc, r.alignedSpf, r.alignedDkim, r.spf, dkimAlignment(r.visibleFrom, domains),
    ],
    emails: r.emails,
    rdns: r.rdns,
    dkims: r.dkims.map((d) => [d.domain, d.selector, d.result] as const),
    extras: extraFields(r.raw),
  };
}

/** Rows offset … offset+count-1 as one binary chunk for the records panel's webview. */
export function encodeRows(rows: readonly DmarcRecord[], offset: number, count: number): Uint8Array {
  return encodeChunk(count, (i) => toRowFields(rows[offset + i]!));
}
