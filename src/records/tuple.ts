/**
 * A record as the records panel's webview receives it: a compact tuple (src/shared/columns.ts),
 * with the DKIM signatures' domains and selectors, their alignment with Header From, and the
 * fields the API sent beyond the documented ones.
 */
import { rawPick, type RowShape } from '../api/rawRow';
import type { DkimEntry, DmarcRecord } from '../api/types';
import type { RowTuple } from '../shared/columns';
import { encodeChunkUntil, SCALARS, type RowFields } from '../shared/rowCodec';
import { contextOf } from '../advice/context';
import { adviceOf } from '../advice/reasons';
import { overridesOf } from '../advice/overrides';
import { dkimAlignment } from './alignment';

/** The documented record fields; anything else the server sent is an extra field. */
export const KNOWN_FIELDS = new Set([
  'source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'rdns', 'emails',
  'category', 'date', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkims',
]);
/** An extra field's text is cut here: it is for search, grouping and a cell, the JSON view has it whole. */
const EXTRA_TEXT_MAX = 2_000;

const NO_EXTRAS: readonly string[] = Object.freeze([]);
const hasOwn = Object.prototype.hasOwnProperty;

/** [name, text, name, text, …] of the fields beyond the documented ones; one shared empty list for rows without any (most). */
function extrasOf(raw: Record<string, unknown>): readonly string[] {
  let out: string[] | undefined;
  // for…in, not Object.keys: no array of keys for each of a million rows.
  for (const key in raw) {
    if (KNOWN_FIELDS.has(key) || !hasOwn.call(raw, key)) continue;
    const v = raw[key];
    const text = typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v) ?? '';
    (out ??= []).push(key.slice(0, 200), text.length > EXTRA_TEXT_MAX ? text.slice(0, EXTRA_TEXT_MAX) : text);
  }
  return out ?? NO_EXTRAS;
}

/** Per row shape, its keys the table shows as extra fields (reportId, from). */
const shapeExtras = new WeakMap<RowShape, readonly string[]>();

/** A record's extra fields, [name, text, …]: from its parsed row, or without building it again (src/api/rawRow.ts). */
function recordExtras(r: DmarcRecord): readonly string[] {
  if (r.raw) return extrasOf(r.raw);
  const shape = r.shape;
  if (!shape) return NO_EXTRAS;
  let keys = shapeExtras.get(shape);
  if (!keys) shapeExtras.set(shape, (keys = shape.keys.filter((k) => !KNOWN_FIELDS.has(k))));
  return keys.length === 0 ? NO_EXTRAS : extrasOf(rawPick(r, keys));
}

export function extraFields(raw: Record<string, unknown>): string[] {
  const extras = extrasOf(raw);
  return extras === NO_EXTRAS ? [] : (extras as string[]);
}

export function toTuple(r: DmarcRecord): RowTuple {
  const overrides = overridesOfRecord(r);
  const a = adviceOf(r, contextOf(r, overrides));
  return [
    r.source, r.reporter, r.visibleFrom, r.returnPath, r.to ?? '', r.ipAddress, r.ipCountryCode ?? '',
    [...r.rdns], r.emails, r.category, r.date, r.dmarc, r.alignedSpf, r.alignedDkim, r.spf,
    r.dkims.map((d) => [d.domain, d.selector, d.result]),
    dkimAlignment(r.visibleFrom, r.dkims),
    [...recordExtras(r)],
    a.spf, a.dkim, a.cls, overrides?.join(', ') ?? '',
  ];
}

/** A report file's row's override reasons (undefined for API rows: they carry none). */
function overridesOfRecord(r: DmarcRecord): readonly string[] | undefined {
  return r.raw ? overridesOf(r) : undefined;
}

type Fields = { scalars: string[]; emails: number; rdns: readonly string[]; dkims: readonly DkimEntry[]; extras: readonly string[] };

/** `out` filled with a record's fields as the binary chunk carries them (src/shared/rowCodec.ts). */
function fill(r: DmarcRecord, out: Fields): RowFields {
  const s = out.scalars;
  s[0] = r.source;
  s[1] = r.reporter;
  s[2] = r.visibleFrom;
  s[3] = r.returnPath;
  s[4] = r.to ?? '';
  s[5] = r.ipAddress;
  s[6] = r.ipCountryCode ?? '';
  s[7] = r.category;
  s[8] = r.date;
  s[9] = r.dmarc;
  s[10] = r.alignedSpf;
  s[11] = r.alignedDkim;
  s[12] = r.spf;
  s[13] = dkimAlignment(r.visibleFrom, r.dkims);
  // Read once: the class weighs them, and they are a cell of their own.
  const overrides = overridesOfRecord(r);
  const a = adviceOf(r, contextOf(r, overrides));
  s[14] = a.spf;
  s[15] = a.dkim;
  s[16] = a.cls;
  s[17] = overrides?.join(', ') ?? '';
  out.emails = r.emails;
  out.rdns = r.rdns;
  out.dkims = r.dkims;
  out.extras = recordExtras(r);
  return out;
}

const blank = (): Fields => ({ scalars: new Array<string>(SCALARS.length).fill(''), emails: 0, rdns: NO_EXTRAS, dkims: [], extras: NO_EXTRAS });

/** The fields of a record as the binary chunk carries them (src/shared/rowCodec.ts). */
export function toRowFields(r: DmarcRecord): RowFields {
  return fill(r, blank());
}

/**
 * Rows offset … offset+count-1 as one binary chunk for the records panel's webview. One fields
 * object is filled again for each row (the encoder reads a row before it asks for the next):
 * at a million rows, a few million fewer objects for the extension host's collector.
 */
export function encodeRows(rows: readonly DmarcRecord[], offset: number, count: number): Uint8Array {
  return encodeRowsUntil(rows, offset, count).data;
}

/** encodeRows that may end early, when `stop()` says so (asked every few dozen rows): `count` is how many rows the chunk holds. */
export function encodeRowsUntil(rows: readonly DmarcRecord[], offset: number, count: number, stop?: () => boolean): { data: Uint8Array; count: number } {
  const fields = blank();
  return encodeChunkUntil(count, (i) => fill(rows[offset + i]!, fields), stop);
}
