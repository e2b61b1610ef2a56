/**
 * The wire contract (zod) and the step that turns a response body into normalised records.
 *
 *   text ──parseRecordsJsonAsync──► rows ──normaliseRows (fastRecord, else RecordSchema)──► FetchResult
 *
 * The event loop is never blocked for long: parseRecordsJsonAsync finds the rows without one
 * JSON.parse of the whole body (jsonScan.ts), scanning and parsing ~1 MB between yields, and
 * normaliseRows validates 5,000 rows at a time, both yielding in between. parseRecordsJson is
 * the one-shot form (one JSON.parse), which small bodies take.
 *
 * Tolerance, per §2.5 of the API spec and the brief:
 *  - the body may be the envelope `{status: "success", dmarcRecords: [...]}` or a bare array;
 *  - `rdns` is a list of strings; a lone string becomes a one-element list ('' becomes []);
 *  - the extra `from` field is accepted and stands in for `visibleFrom` when that is absent;
 *  - unknown fields are kept (`raw` is the row object exactly as parsed);
 *  - a value outside an enum keeps the row and is reported once per field+value (RecordWarning);
 *  - a row that is not an object, lacks a required field or has a wrong type is left out and
 *    counted in RejectedSummary; every valid row is kept.
 *
 * Speed: zod is the boundary, but running the full zod schema on each row costs 60–160% of the
 * JSON.parse time of the same body (measured at 100k rows, Node 20), over the 50% we allow
 * ourselves; the path below costs about 30% (npm run bench:api). So every row first goes through
 * `fastRecord`, a hand-written check that accepts only rows in exactly the normal form (and
 * reuses the parsed arrays instead of copying them). Any row it does not accept — odd shapes,
 * coercions, errors — goes through `RecordSchema`, which decides. The two must agree on every
 * row `fastRecord` accepts; test/unit/schema.test.ts checks that over a corpus.
 */
import * as z from 'zod';
import {
  CATEGORY_VALUES,
  DISPOSITION_VALUES,
  RESULT_VALUES,
  type DkimEntry,
  type DmarcRecord,
  type FetchResult,
  type RecordWarning,
  type RejectedSummary,
} from './types';
import { ApiError, formatBytes, snippet } from './errors';
import { parseIsoDateMs } from './url';
import { RecordsArrayScanner, type RecordsArrayScan } from './jsonScan';

// ---------------------------------------------------------------------------------------------
// Enums (closed): exactly the values of the spec.

/** §2.4: exactly the twelve values, '' included. */
export const ResultSchema = z.enum(RESULT_VALUES);
export const CategorySchema = z.enum(CATEGORY_VALUES);
export const DispositionSchema = z.enum(DISPOSITION_VALUES);

const RESULT_SET: ReadonlySet<string> = new Set(ResultSchema.options);
const CATEGORY_SET: ReadonlySet<string> = new Set(CategorySchema.options);
const DISPOSITION_SET: ReadonlySet<string> = new Set(DispositionSchema.options);

// ---------------------------------------------------------------------------------------------
// Row schema. Enum fields are "open" at the row level: any string passes the shape check, and
// membership in the closed enum above is checked afterwards so an unknown value warns instead of
// dropping the row.

const OpenEnum = z.string();
/** Optional fields: absent or null both mean "not given". */
const OptionalString = z.string().nullish();

export const DkimEntrySchema = z.looseObject({
  selector: z.string(),
  domain: z.string(),
  result: OpenEnum,
});

/** The contract is a list; a lone string (the declared type in the spec) becomes a list. */
export const RdnsSchema = z.union([
  z.array(z.string()),
  z.string().transform((s) => (s === '' ? [] : [s])),
]);

export const IsoDateSchema = z.string().refine((s) => Number.isFinite(parseIsoDateMs(s)), 'is not an ISO 8601 date');

/** One row of §2.2 (plus the tolerated `from`), producing the normalised fields of DmarcRecord. */
export const RecordSchema = z
  .object({
    source: z.string(),
    reporter: z.string(),
    // Optional here because `from` may stand in for it; the refinement below requires one of them.
    visibleFrom: z.string().optional(),
    from: z.unknown().optional(),
    returnPath: z.string(),
    to: OptionalString,
    ipAddress: z.string(),
    ipCountryCode: OptionalString,
    rdns: RdnsSchema,
    emails: z.number().nonnegative(), // zod 4 numbers are finite: NaN and ±Infinity fail
    category: OpenEnum,
    date: IsoDateSchema,
    dmarc: OpenEnum,
    alignedSpf: OpenEnum,
    alignedDkim: OpenEnum,
    spf: OpenEnum,
    dkims: z.array(DkimEntrySchema),
    reportId: OptionalString,
  })
  .refine((r) => r.visibleFrom !== undefined || typeof r.from === 'string', {
    message: 'is missing (and there is no `from` to use instead)',
    path: ['visibleFrom'],
  })
  .transform((r) => ({
    source: r.source,
    reporter: r.reporter,
    visibleFrom: r.visibleFrom ?? (r.from as string),
    returnPath: r.returnPath,
    to: r.to ?? undefined,
    ipAddress: r.ipAddress,
    ipCountryCode: r.ipCountryCode ?? undefined,
    rdns: r.rdns,
    emails: r.emails,
    category: r.category,
    date: r.date,
    dateMs: parseIsoDateMs(r.date),
    dmarc: r.dmarc,
    alignedSpf: r.alignedSpf,
    alignedDkim: r.alignedDkim,
    spf: r.spf,
    dkims: r.dkims as DkimEntry[],
    reportId: r.reportId ?? undefined,
  }));

/** The declared envelope. `status` is checked by hand so a non-success status gets its own message. */
export const EnvelopeSchema = z.looseObject({
  status: z.string().optional(),
  dmarcRecords: z.array(z.unknown()),
});

// ---------------------------------------------------------------------------------------------
// Per-row normalisation.

/**
 * Every DmarcRecord has the same properties in the same order (absent optional fields are
 * `undefined`): one hidden class for 100k objects keeps memory and property access cheap.
 */
function makeRecord(n: z.output<typeof RecordSchema>, raw: Record<string, unknown>): DmarcRecord {
  return {
    source: n.source,
    reporter: n.reporter,
    visibleFrom: n.visibleFrom,
    returnPath: n.returnPath,
    to: n.to,
    ipAddress: n.ipAddress,
    ipCountryCode: n.ipCountryCode,
    rdns: n.rdns,
    emails: n.emails,
    category: n.category,
    date: n.date,
    dateMs: n.dateMs,
    dmarc: n.dmarc,
    alignedSpf: n.alignedSpf,
    alignedDkim: n.alignedDkim,
    spf: n.spf,
    dkims: n.dkims,
    reportId: n.reportId,
    raw,
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function allStrings(a: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string') return false;
  return true;
}

function normalDkims(a: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const d = a[i];
    if (!isPlainObject(d) || typeof d.selector !== 'string' || typeof d.domain !== 'string' || typeof d.result !== 'string') return false;
  }
  return true;
}

/**
 * The fast path: accepts only a row already in normal form and builds its record without zod;
 * returns undefined for anything else (the caller then asks RecordSchema). The rdns and dkims
 * arrays of the parsed row are reused, not copied (records and `raw` share them; both are
 * read-only by convention).
 */
export function fastRecord(row: unknown): DmarcRecord | undefined {
  if (!isPlainObject(row)) return undefined;
  const { source, reporter, visibleFrom, returnPath, to, ipAddress, ipCountryCode, rdns, emails, category, date, dmarc, alignedSpf, alignedDkim, spf, dkims, reportId } = row;
  if (
    typeof source !== 'string' ||
    typeof reporter !== 'string' ||
    typeof visibleFrom !== 'string' ||
    typeof returnPath !== 'string' ||
    (to !== undefined && typeof to !== 'string') ||
    typeof ipAddress !== 'string' ||
    (ipCountryCode !== undefined && typeof ipCountryCode !== 'string') ||
    !Array.isArray(rdns) ||
    typeof emails !== 'number' ||
    !(emails >= 0 && emails !== Infinity) || // false for NaN too
    typeof category !== 'string' ||
    typeof date !== 'string' ||
    typeof dmarc !== 'string' ||
    typeof alignedSpf !== 'string' ||
    typeof alignedDkim !== 'string' ||
    typeof spf !== 'string' ||
    !Array.isArray(dkims) ||
    (reportId !== undefined && typeof reportId !== 'string') ||
    !allStrings(rdns) ||
    !normalDkims(dkims)
  ) {
    return undefined;
  }
  const dateMs = parseIsoDateMs(date);
  if (dateMs !== dateMs) return undefined;
  return {
    source,
    reporter,
    visibleFrom,
    returnPath,
    to,
    ipAddress,
    ipCountryCode,
    rdns: rdns as string[],
    emails,
    category,
    date,
    dateMs,
    dmarc,
    alignedSpf,
    alignedDkim,
    spf,
    dkims: dkims as DkimEntry[],
    reportId,
    raw: row,
  };
}

/** The full zod path: a record, or the reason the row is left out. */
export function zodRecord(row: unknown): { record: DmarcRecord } | { reason: string } {
  const r = RecordSchema.safeParse(row);
  if (r.success) return { record: makeRecord(r.data, row as Record<string, unknown>) };
  return { reason: describeIssue(r.error.issues[0], row) };
}

/** One row through both paths, as the parser does it. */
export function normaliseRow(row: unknown): { record: DmarcRecord } | { reason: string } {
  const fast = fastRecord(row);
  return fast ? { record: fast } : zodRecord(row);
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `"${snippet(v, 40)}"`;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return `a ${typeof v}`;
}

/** "emails should be a number, got "12"" rather than zod's generic wording. */
function describeIssue(issue: z.core.$ZodIssue | undefined, row: unknown): string {
  if (!issue) return 'invalid row';
  if (issue.path.length === 0) {
    return isPlainObject(row) ? issue.message : `the row is ${describeValue(row)}, not an object`;
  }
  const path = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
  let value: unknown = row;
  for (const p of issue.path) value = isPlainObject(value) || Array.isArray(value) ? (value as Record<PropertyKey, unknown>)[p as PropertyKey] : undefined;
  if (issue.code === 'invalid_type' || issue.code === 'invalid_union') {
    if (value === undefined) return `${path} is missing`;
    const expected = issue.code === 'invalid_type' ? issue.expected : path === 'rdns' ? 'a list of strings' : 'another type';
    return `${path} should be ${expected === 'array' ? 'a list' : expected === 'object' ? 'an object' : expected.startsWith('a') ? expected : `a ${expected}`}, got ${describeValue(value)}`;
  }
  if (issue.code === 'too_small') return `${path} is negative (${describeValue(value)})`;
  return `${path} ${issue.message.startsWith('is ') ? issue.message : `is invalid: ${issue.message}`} (${describeValue(value)})`;
}

// ---------------------------------------------------------------------------------------------
// Warnings for values outside the enums.

/** Distinct values reported per field; past that they are folded into one "other values" entry. */
const MAX_DISTINCT_PER_FIELD = 50;
const OTHER = '\u0000other';

class WarningCollector {
  private readonly byKey = new Map<string, RecordWarning>();
  private readonly distinct = new Map<string, number>();

  note(field: string, value: string, index: number): void {
    let key = `${field}\u0000${value}`;
    const w = this.byKey.get(key);
    if (w) {
      w.count++;
      return;
    }
    const n = this.distinct.get(field) ?? 0;
    if (n >= MAX_DISTINCT_PER_FIELD) {
      // A hostile or broken server could send a new value on every row: fold the rest.
      key = `${field}\u0000${OTHER}`;
      const other = this.byKey.get(key);
      if (other) other.count++;
      else this.byKey.set(key, { field, value: OTHER, count: 1, firstIndex: index, message: '' });
      return;
    }
    this.distinct.set(field, n + 1);
    this.byKey.set(key, { field, value, count: 1, firstIndex: index, message: '' });
  }

  check(rec: DmarcRecord, index: number): void {
    if (!CATEGORY_SET.has(rec.category)) this.note('category', rec.category, index);
    if (!DISPOSITION_SET.has(rec.dmarc)) this.note('dmarc', rec.dmarc, index);
    if (!RESULT_SET.has(rec.alignedSpf)) this.note('alignedSpf', rec.alignedSpf, index);
    if (!RESULT_SET.has(rec.alignedDkim)) this.note('alignedDkim', rec.alignedDkim, index);
    if (!RESULT_SET.has(rec.spf)) this.note('spf', rec.spf, index);
    const dk = rec.dkims;
    for (let i = 0; i < dk.length; i++) if (!RESULT_SET.has(dk[i]!.result)) this.note('dkims[].result', dk[i]!.result, index);
  }

  result(): RecordWarning[] {
    const out = [...this.byKey.values()];
    for (const w of out) {
      const rows = w.count === 1 ? `1 row (#${w.firstIndex})` : `${w.count} rows (first #${w.firstIndex})`;
      if (w.value === OTHER) {
        w.value = '';
        w.message = `More unknown ${w.field} values in ${rows}; rows kept.`;
      } else {
        w.message = `Unknown ${w.field} value "${snippet(w.value, 60)}" in ${rows}; rows kept.`;
      }
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Body → records.

const MAX_REJECTED_SAMPLES = 5;
/** Rows between two yields to the event loop: ~5k rows is a few milliseconds of work. */
const DEFAULT_CHUNK_ROWS = 5000;
/**
 * Characters scanned, jumped over or parsed between two yields: ~3 ms of scanning or ~7 ms of
 * JSON.parse on a modest core (2–3 and 6–7 ns per character).
 */
const SLICE_CHARS = 1 << 20;
/**
 * Up to this, one JSON.parse is faster than scanning and parsing in pieces, and short enough:
 * ~45 ms for 8 M characters (~18k rows) on the slow 2-core machine the benchmarks run on.
 */
const DEFAULT_ONE_SHOT_MAX_CHARS = 8 << 20;

export interface ParseOptions {
  signal?: AbortSignal;
  /** Rows validated between two yields to the event loop. */
  chunkRows?: number;
  /** Text to keep out of error messages (the API key), should the server echo it. */
  secret?: string;
  /** parseRecordsJsonAsync: bodies up to this many characters are parsed in one go. Default 8 M; 0 slices every body (tests). */
  oneShotMaxChars?: number;
  /** parseRecordsJsonAsync: characters of rows parsed at a time (DEFAULT_PIECE_CHARS, 60K); tests make it small. */
  pieceChars?: number;
}

function invalid(contentType: string | null, text: string, what: string, secret: string | undefined, advice = 'Check the base URL.'): ApiError {
  const type = snippet(contentType?.split(';')[0] ?? '', 60, secret) || 'no content type';
  const start = snippet(text, 80, secret);
  return new ApiError(
    'invalid-response',
    `The server's answer is not DMARC records: ${what} (${type}, ${formatBytes(text.length)}${start ? `, starts with "${start}"` : ''}). ${advice}`,
  );
}

/** The error for a body JSON.parse rejects. No JSON.parse message or stack: it says nothing a person can act on. */
function notJson(contentType: string | null, text: string, secret: string | undefined): ApiError {
  const looksCut = /^\s*[[{]/.test(text);
  return looksCut
    ? invalid(contentType, text, 'the JSON is cut off or malformed', secret, 'Try again, or a shorter date range.')
    : invalid(contentType, text, 'it is not JSON', secret);
}

function emptyBody(contentType: string | null, text: string, secret: string | undefined): ApiError {
  return invalid(contentType, text, 'the body is empty', secret);
}

/**
 * Parses the body once and finds the rows: the envelope's `dmarcRecords`, or the bare array.
 * Throws ApiError('invalid-response') naming the content type and showing the body's start.
 * One JSON.parse of the whole body, which blocks: large bodies want parseRecordsJsonAsync.
 */
export function parseRecordsJson(text: string, contentType: string | null, secret?: string): unknown[] {
  if (text.trim() === '') throw emptyBody(contentType, text, secret);
  let json: unknown;
  try {
    // fetch's text() already drops a UTF-8 byte order mark; text from elsewhere may still have one.
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw notJson(contentType, text, secret);
  }
  return recordsOf(json, contentType, text, secret);
}

/** The rows of a parsed body (the envelope's `dmarcRecords`, or the bare array), or the reason it is not DMARC records. */
function recordsOf(json: unknown, contentType: string | null, text: string, secret: string | undefined): unknown[] {
  if (Array.isArray(json)) return json;
  // The schema's z.array(z.unknown()) would walk and copy 100k rows to learn nothing more than
  // Array.isArray: check the envelope with its list emptied (same verdict, no cost).
  const rows = isPlainObject(json) ? json.dmarcRecords : undefined;
  const env = EnvelopeSchema.safeParse(Array.isArray(rows) ? { ...(json as object), dmarcRecords: [] } : json);
  if (!env.success) {
    if (isPlainObject(json) && typeof json.status === 'string' && json.status !== 'success') {
      throw serverStatus(json, secret);
    }
    throw invalid(contentType, text, 'expected {"status": "success", "dmarcRecords": [...]} or a list of records', secret);
  }
  if (env.data.status !== undefined && env.data.status !== 'success') throw serverStatus(json as Record<string, unknown>, secret);
  return (json as { dmarcRecords: unknown[] }).dmarcRecords;
}

function serverStatus(json: Record<string, unknown>, secret: string | undefined): ApiError {
  const msg = typeof json.message === 'string' ? json.message : typeof json.error === 'string' ? json.error : '';
  return new ApiError('invalid-response', `The server answered with status "${snippet(String(json.status), 40, secret)}"${msg ? `: ${snippet(msg, 300, secret)}` : ''}.`);
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function cancelled(): ApiError {
  return new ApiError('cancelled', 'Cancelled.');
}

/**
 * Validates and normalises rows in chunks, yielding to the event loop between chunks so that
 * 100k rows do not freeze the extension host. Cancellable between chunks.
 */
export async function normaliseRows(rows: unknown[], options: ParseOptions = {}): Promise<FetchResult> {
  const chunk = Math.max(1, options.chunkRows ?? DEFAULT_CHUNK_ROWS);
  const records: DmarcRecord[] = [];
  const warnings = new WarningCollector();
  const rejected: RejectedSummary = { count: 0, samples: [] };
  for (let start = 0; start < rows.length; start += chunk) {
    if (start > 0) await tick();
    if (options.signal?.aborted) throw cancelled();
    const end = Math.min(rows.length, start + chunk);
    for (let i = start; i < end; i++) {
      const row = rows[i];
      let rec = fastRecord(row);
      if (!rec) {
        const z = zodRecord(row);
        if ('reason' in z) {
          rejected.count++;
          if (rejected.samples.length < MAX_REJECTED_SAMPLES) rejected.samples.push({ index: i, reason: z.reason });
          continue;
        }
        rec = z.record;
      }
      warnings.check(rec, i);
      records.push(rec);
    }
  }
  return { records, warnings: warnings.result(), rejected };
}

/**
 * parseRecordsJson without blocking the event loop for long, however large the body: the same
 * rows (the very objects JSON.parse makes of them) or the same ApiError.
 *
 * One JSON.parse of a 40 MB body blocks for most of a second, so instead (see jsonScan.ts):
 *   1. scan the text in slices for the records array, cutting it into small pieces of whole
 *      rows (most of which the scanner parses itself as it jumps over them);
 *   2. JSON.parse the skeleton (the body with the array emptied) and the remaining pieces;
 *   3. check the envelope on the skeleton, as parseRecordsJson checks it on the whole body;
 * yielding between slices and pieces. Bodies up to `oneShotMaxChars` take parseRecordsJson.
 */
export async function parseRecordsJsonAsync(text: string, contentType: string | null, options: ParseOptions = {}): Promise<unknown[]> {
  const { signal, secret } = options;
  if (text.length <= (options.oneShotMaxChars ?? DEFAULT_ONE_SHOT_MAX_CHARS)) return parseRecordsJson(text, contentType, secret);
  if (text.trim() === '') throw emptyBody(contentType, text, secret);

  const scanner = new RecordsArrayScanner(text, { pieceChars: options.pieceChars });
  let scan: RecordsArrayScan | undefined;
  while (!(scan = scanner.step(SLICE_CHARS))) {
    await tick();
    if (signal?.aborted) throw cancelled();
  }
  if (scan.kind === 'invalid') throw notJson(contentType, text, secret);
  // Not an array or an envelope with one: not DMARC records whatever it is, and one JSON.parse
  // gives the right message for each case (not JSON, malformed, wrong shape, server status).
  if (scan.kind === 'other') return parseRecordsJson(text, contentType, secret);

  let skeleton: unknown;
  try {
    skeleton = JSON.parse(text.slice(scan.start, scan.open + 1) + text.slice(scan.close));
  } catch {
    throw notJson(contentType, text, secret);
  }
  // The array we emptied must be the one JSON.parse takes the rows from. It is, unless the
  // scanner has a bug; should that ever happen, the one-shot path still gives the right answer.
  const emptied = isPlainObject(skeleton) ? skeleton.dmarcRecords : skeleton;
  if (!Array.isArray(emptied) || emptied.length !== 0) return parseRecordsJson(text, contentType, secret);

  const rows: unknown[] = [];
  const { pieces } = scan;
  let parsed = 0; // characters parsed since the last yield
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p]!;
    let part = piece.rows; // parsed already when the scanner jumped over this piece
    if (!part) {
      if (parsed >= SLICE_CHARS) {
        await tick();
        if (signal?.aborted) throw cancelled();
        parsed = 0;
      }
      parsed += piece.to - piece.from;
      try {
        part = JSON.parse('[' + text.slice(piece.from, piece.to) + ']') as unknown[];
      } catch {
        throw notJson(contentType, text, secret);
      }
      // An empty element between commas, as in `[1,,2]` or `[1,]` (see jsonScan.ts).
      if (part.length === 0 && pieces.length > 1) throw notJson(contentType, text, secret);
    }
    for (let i = 0; i < part.length; i++) rows.push(part[i]);
  }
  // Only now, with every row parsed: a body that is not JSON gets the "malformed" error even
  // when its envelope is wrong too, as with one JSON.parse.
  recordsOf(skeleton, contentType, text, secret);
  return rows;
}

/**
 * The pure body → FetchResult step: parseRecordsJsonAsync, then normaliseRows; neither blocks
 * the event loop for long. No network, no `vscode`: usable from tests, a CLI or a worker.
 */
export async function parseRecordsBody(text: string, contentType: string | null, options: ParseOptions = {}): Promise<FetchResult> {
  return normaliseRows(await parseRecordsJsonAsync(text, contentType, options), options);
}
