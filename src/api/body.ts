/**
 * A response body → normalised records (schema.ts validates each row).
 *
 *   text ──parseRecordsJsonAsync──► rows ──normaliseRows (fastRecord, else RecordSchema)──► FetchResult
 *   text pieces ──RecordsBodyStream (jsonStream.ts)──► rows as they arrive ──► FetchResult
 *
 * The event loop is never blocked for long: parseRecordsJsonAsync finds the rows without one
 * JSON.parse of the whole body (jsonScan.ts), scanning and parsing ~1 MB between yields, and
 * normaliseRows validates 5,000 rows at a time, both yielding in between. parseRecordsJson is
 * the one-shot form (one JSON.parse), which small bodies take. RecordsBodyStream does the same
 * while the body arrives (the client's path), handing out rows as soon as their text is in.
 */
import type { DmarcRecord, FetchResult, RejectedSummary } from './types';
import { ApiError, formatBytes, snippet } from './errors';
import { RecordsArrayScanner, type RecordsArrayScan } from './jsonScan';
import { RecordsStreamParser } from './jsonStream';
import { EnvelopeSchema, WarningCollector, isPlainObject, takeRow } from './schema';
import { StringPool } from './stringPool';

// ---------------------------------------------------------------------------------------------
// Body → records.

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
  /**
   * normaliseRows: share the response's common strings and signature lists between its records,
   * and hold rows of documented fields by their shape (StringPool). Default true; false only to
   * measure what sharing costs (bench:api).
   */
  share?: boolean;
}

/** A body as error messages need it: the text, or (while streaming) its start and length. */
type BodyText = string | { start: string; length: number };
/** Characters of a streamed body kept for messages (snippet() reads no further). */
const KEPT_START_CHARS = 10_000;

function invalid(contentType: string | null, text: BodyText, what: string, secret: string | undefined, advice = 'Check the base URL.'): ApiError {
  const type = snippet(contentType?.split(';')[0] ?? '', 60, secret) || 'no content type';
  const start = snippet(typeof text === 'string' ? text : text.start, 80, secret);
  return new ApiError(
    'invalid-response',
    `The server's answer is not DMARC records: ${what} (${type}, ${formatBytes(text.length)}${start ? `, starts with "${start}"` : ''}). ${advice}`,
  );
}

/** The error for a body JSON.parse rejects. No JSON.parse message or stack: it says nothing a person can act on. */
function notJson(contentType: string | null, text: BodyText, secret: string | undefined): ApiError {
  const looksCut = /^\s*[[{]/.test(typeof text === 'string' ? text : text.start);
  return looksCut ? cutOff(contentType, text, secret) : invalid(contentType, text, 'it is not JSON', secret);
}

function cutOff(contentType: string | null, text: BodyText, secret: string | undefined): ApiError {
  return invalid(contentType, text, 'the JSON is cut off or malformed', secret, 'Try again, or a shorter date range.');
}

function emptyBody(contentType: string | null, text: BodyText, secret: string | undefined): ApiError {
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
function recordsOf(json: unknown, contentType: string | null, text: BodyText, secret: string | undefined): unknown[] {
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
  const pool = options.share === false ? undefined : new StringPool();
  for (let start = 0; start < rows.length; start += chunk) {
    if (start > 0) await tick();
    if (options.signal?.aborted) throw cancelled();
    const end = Math.min(rows.length, start + chunk);
    for (let i = start; i < end; i++) takeRow(rows[i], i, records, warnings, rejected, pool);
  }
  pool?.clear();
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

/** What RecordsBodyStream hands out as rows arrive. */
export interface StreamOptions {
  /** Text to keep out of error messages (the API key), should the server echo it. */
  secret?: string;
  /**
   * Valid rows, normalised, as soon as their text is in: `offset` is the index of the first one
   * among all the valid rows of the body. Rows given out stay given out, even when the body
   * turns out broken later (`finish` throws then): the caller decides what incomplete rows mean.
   */
  onRows?: (records: DmarcRecord[], offset: number) => void;
}

/**
 * A body parsed while it arrives: `push` each piece of text as it is decoded, then `finish` for
 * the FetchResult, or the same ApiError parseRecordsJson gives for that body. Each push does work
 * in proportion to its text (a network read: well under a millisecond per 64 KB).
 */
export class RecordsBodyStream {
  private readonly parser = new RecordsStreamParser();
  private readonly records: DmarcRecord[] = [];
  private readonly warnings = new WarningCollector();
  private readonly rejected: RejectedSummary = { count: 0, samples: [] };
  private readonly pool = new StringPool();
  private seen = 0;
  private start = '';
  private length = 0;

  constructor(
    private readonly contentType: string | null,
    private readonly options: StreamOptions = {},
  ) {}

  /** Valid rows so far. */
  get count(): number {
    return this.records.length;
  }

  /** Adds text and hands out the rows it completes; with `maxChars`, only rows of about that much text (then `pending`). */
  push(text: string, maxChars?: number): void {
    if (this.start.length < KEPT_START_CHARS) this.start += text.slice(0, KEPT_START_CHARS - this.start.length);
    this.length += text.length;
    this.take(this.parser.push(text, maxChars));
  }

  /** Rows whose text is in wait for `more()`: a push with a limit stopped before them. */
  get pending(): boolean {
    return this.parser.pending;
  }

  /** Hands out the next rows a limited push left, up to `maxChars` of their text. */
  more(maxChars?: number): void {
    this.take(this.parser.more(maxChars));
  }

  private take(rows: unknown[]): void {
    if (rows.length === 0) return;
    const from = this.records.length;
    for (let i = 0; i < rows.length; i++) takeRow(rows[i], this.seen++, this.records, this.warnings, this.rejected, this.pool);
    if (this.records.length > from) this.options.onRows?.(this.records.slice(from), from);
  }

  /** The body has ended: the result, or why it is not DMARC records. */
  finish(): FetchResult {
    const { contentType } = this;
    const secret = this.options.secret;
    const body = { start: this.start, length: this.length };
    const { rows, end } = this.parser.end();
    // Only a body whose records array opened can end invalid, even when more than the kept start was whitespace.
    if (end.kind === 'invalid') throw cutOff(contentType, body, secret);
    if (end.kind === 'other') {
      // No records array: one JSON.parse says what the body is instead (and throws).
      this.take(parseRecordsJson(end.text, contentType, secret));
    } else {
      this.take(rows);
      let json: unknown;
      try {
        json = JSON.parse(end.skeleton);
      } catch {
        throw notJson(contentType, body, secret);
      }
      const bare = json === end.marker;
      if (!bare && !(isPlainObject(json) && json.dmarcRecords === end.marker)) {
        // A later `dmarcRecords` replaced the array whose rows went out (JSON.parse keeps the last key).
        throw invalid(contentType, body, 'expected {"status": "success", "dmarcRecords": [...]} or a list of records, with one dmarcRecords', secret);
      }
      if (!bare) recordsOf({ ...(json as object), dmarcRecords: [] }, contentType, body, secret);
    }
    // The rows hold the pooled strings; the pool's map of them is not needed any more.
    this.pool.clear();
    return { records: this.records, warnings: this.warnings.result(), rejected: this.rejected };
  }
}
