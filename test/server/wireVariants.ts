/**
 * Wire variants of the local API server: legal spellings of the same data that a real server
 * may send and the client must read the same way (issue 15, item 3). They are fault modes of
 * server.ts (`Faults` extends `WireFaults`), applied per row after the generated data is made, and
 * one per response for the body's Content-Encoding.
 */
import type * as http from 'node:http';
import type { Writable } from 'node:stream';
import * as zlib from 'node:zlib';
import type { Rng } from './data';

/**
 * ISO 8601 / RFC 3339 spellings of a row's date. All but `noMillis` and `dateOnly` name the same
 * instant as the generated `toISOString()` form; those two drop the milliseconds and the time.
 */
export const DATE_SPELLINGS = [
  'offset', // 2025-06-10T10:00:00.000+02:00
  'negativeOffset', // 2025-06-10T02:30:00.000-05:30
  'plusZero', // 2025-06-10T08:00:00.000+00:00
  'hourOffset', // 2025-06-10T11:00:00.000+03
  'basicOffset', // 2025-06-10T09:00:00.000+0100
  'noMillis', // 2025-06-10T08:00:00Z
  'micros', // 2025-06-10T08:00:00.000400Z
  'comma', // 2025-06-10T08:00:00,000Z
  'lowercase', // 2025-06-10t08:00:00.000z (RFC 3339 §5.6 allows lower case t and z)
  'space', // 2025-06-10 08:00:00.000Z (RFC 3339 §5.6 allows a space for T)
  'dateOnly', // 2025-06-10
] as const;
export type DateSpelling = (typeof DATE_SPELLINGS)[number];

export const CONTENT_ENCODINGS = ['gzip', 'deflate', 'br'] as const;
export type ContentEncoding = (typeof CONTENT_ENCODINGS)[number];

export interface WireFaults {
  /** Every row's date in this spelling; `mixed` picks one per row. */
  dateSpelling?: DateSpelling | 'mixed';
  /** Share of rows whose `from` is another domain than their `visibleFrom`. */
  fromDiffers?: number | boolean;
  /** Share of rows whose absent optional fields (to, ipCountryCode, reportId) are sent as null. */
  nullOptionals?: number | boolean;
  /** Share of rows whose `emails` is sent as a numeric string ("12"). */
  emailsString?: number | boolean;
  /** The 200 body's Content-Encoding, used only when the request's Accept-Encoding allows it. */
  contentEncoding?: ContentEncoding;
}

export const WIRE_FAULT_NAMES = ['dateSpelling', 'fromDiffers', 'nullOptionals', 'emailsString', 'contentEncoding'] as const;

/** Parses the value of a string-valued wire fault (`dateSpelling=offset`), or throws. */
export function parseWireFault(name: string, value: string): string | undefined {
  if (name === 'dateSpelling') {
    if (value === 'mixed' || (DATE_SPELLINGS as readonly string[]).includes(value)) return value;
    throw new Error(`fault "dateSpelling": one of mixed, ${DATE_SPELLINGS.join(', ')}`);
  }
  if (name === 'contentEncoding') {
    if ((CONTENT_ENCODINGS as readonly string[]).includes(value)) return value;
    throw new Error(`fault "contentEncoding": one of ${CONTENT_ENCODINGS.join(', ')}`);
  }
  return undefined;
}

const HOUR = 3_600_000;

/** `iso` (in `toISOString()` form) spelled another way. */
export function spellDate(iso: string, spelling: DateSpelling): string {
  const ms = Date.parse(iso);
  const shifted = (offsetMs: number, zone: string) => new Date(ms + offsetMs).toISOString().replace('Z', zone);
  switch (spelling) {
    case 'offset':
      return shifted(2 * HOUR, '+02:00');
    case 'negativeOffset':
      return shifted(-5.5 * HOUR, '-05:30');
    case 'plusZero':
      return iso.replace('Z', '+00:00');
    case 'hourOffset':
      return shifted(3 * HOUR, '+03');
    case 'basicOffset':
      return shifted(HOUR, '+0100');
    case 'noMillis':
      return iso.replace(/\.\d{3}Z$/, 'Z');
    case 'micros':
      return iso.replace('Z', '400Z');
    case 'comma':
      return iso.replace('.', ',');
    case 'lowercase':
      return iso.replace('T', 't').replace('Z', 'z');
    case 'space':
      return iso.replace('T', ' ');
    case 'dateOnly':
      return iso.slice(0, 10);
  }
}

function share(v: number | boolean | undefined): number {
  return v === true ? 1 : typeof v === 'number' ? v : 0;
}

const OPTIONAL_FIELDS = ['to', 'ipCountryCode', 'reportId'] as const;

/** Applies the row-level wire variants of `f` to `out` (a generated row, changed in place). */
export function applyWireVariants(out: Record<string, unknown>, f: WireFaults, r: Rng): void {
  if (f.dateSpelling && typeof out.date === 'string') {
    out.date = spellDate(out.date, f.dateSpelling === 'mixed' ? r.pick(DATE_SPELLINGS) : f.dateSpelling);
  }
  if (f.fromDiffers && typeof out.visibleFrom === 'string' && r.chance(share(f.fromDiffers))) {
    out.from = `bounces.${out.visibleFrom}`;
  }
  if (f.nullOptionals && r.chance(share(f.nullOptionals))) {
    for (const k of OPTIONAL_FIELDS) if (out[k] === undefined) out[k] = null;
  }
  if (f.emailsString && typeof out.emails === 'number' && r.chance(share(f.emailsString))) {
    out.emails = String(out.emails);
  }
}

/**
 * The encoding to answer with: `wanted` when the request's Accept-Encoding names it (or `*`)
 * with a non-zero quality, else none (identity), as RFC 9110 §12.5.3 asks of a server.
 */
export function chooseEncoding(wanted: ContentEncoding | undefined, acceptEncoding: string | undefined): ContentEncoding | undefined {
  if (!wanted || !acceptEncoding) return undefined;
  let star: boolean | undefined;
  for (const part of acceptEncoding.split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const ok = q === undefined || Number(q) > 0;
    if (token.trim() === wanted) return ok ? wanted : undefined;
    if (token.trim() === '*') star = ok;
  }
  return star ? wanted : undefined;
}

/**
 * Where a 200 body is written: `res` itself, or an encoder piped into it. `flush` pushes what the
 * encoder holds to the socket (so the first chunk reaches the client before a stall or a reset).
 */
export function bodySink(res: http.ServerResponse, encoding: ContentEncoding | undefined): { out: Writable; flush: () => Promise<void> } {
  if (!encoding) return { out: res, flush: async () => {} };
  const enc = encoding === 'gzip' ? zlib.createGzip() : encoding === 'deflate' ? zlib.createDeflate() : zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }); // a web server's usual level for dynamic bodies
  enc.pipe(res);
  res.on('close', () => enc.destroy());
  return { out: enc, flush: () => new Promise<void>((resolve) => enc.flush(() => resolve())) };
}
