/**
 * Finds the records array in a JSON body and cuts it into pieces of whole elements, without
 * one JSON.parse of the whole body — so that a 40 MB body is parsed a little at a time
 * (schema.ts), yielding in between, instead of blocking the event loop for most of a second.
 *
 * The scanner tracks only what decides structure: where strings start and end (a quote ends a
 * string unless an odd number of backslashes precedes it) and the bracket depth outside them.
 * It does not validate JSON, and does not need to: the caller parses every piece and the rest of
 * the body (the "skeleton": the body with the array's contents cut out) with JSON.parse, and if
 * all of those parse, the whole body is valid JSON with exactly those elements:
 *
 *   body = prefix '[' p1 ',' p2 … ',' pn ']' suffix     (pieces cut at commas found here)
 *   each '[' pk ']' parses to a non-empty list (or n = 1)  ⇒  '[' p1,…,pn ']' is an array value
 *   prefix '[]' suffix is valid JSON  ⇒  putting any array value in its place keeps it valid
 *
 * Conversely, on a valid body the rules below are JSON's own, so every cut is a real boundary
 * and every part parses. Hence any failure (of the scan or of a parse) means "not JSON", and the
 * values parsed are exactly those one JSON.parse of the body would give.
 *
 * Jumps. Scanning character by character costs about a third of JSON.parse itself, which would
 * break our +50% budget for parse + validate. So inside the array, once the scanner stands on a
 * separator, it guesses where a separator a piece further on is — the next place where the text
 * between two rows recurs, e.g. `},{"source":` — and JSON.parses the stretch up to it at once.
 * If that parses, the scanner's state is still exact: a stretch that parses as complete values
 * starts and ends outside strings at the same depth, so the guessed comma is a real separator,
 * and the parsed rows are kept (they are the next piece). If it does not parse (a wrong guess, or
 * a broken body), the scanner goes on character by character and guesses again later.
 *
 * Resumable: `step(budget)` scans or jumps over about `budget` characters and returns; the
 * caller yields to the event loop between steps.
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const BOM = 0xfeff;

/** JSON's four whitespace characters (not \s: JSON.parse rejects the others). */
export function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The envelope member that holds the rows. */
export const RECORDS_KEY = 'dmarcRecords';

/**
 * Characters per piece, and the length of a jump: ~140 rows of the API. Small on purpose: the
 * piece's text ('[' + slice + ']') is copied before JSON.parse reads it, and a copy under
 * 128 KB (60K two-byte characters) is cheap young-generation memory; larger ones cost fresh
 * pages — 30 ms more per 43 MB body.
 */
export const DEFAULT_PIECE_CHARS = 60 * 1024;

/**
 * Text [from, to) of the body: one or more whole elements of the records array and the commas
 * between them, for JSON.parse('[' + text.slice(from, to) + ']'). `rows` holds that parse when
 * the scanner has already done it (a jump). Consecutive pieces are separated by one comma.
 */
export interface RecordsPiece {
  from: number;
  to: number;
  rows?: unknown[];
}

export type RecordsArrayScan =
  /**
   * The records array: `[` at `open`, `]` at `close`, its contents in pieces. The top-level
   * value starts at `start`; what follows it is left to the skeleton's JSON.parse (valid bodies
   * have only whitespace there).
   */
  | { kind: 'found'; start: number; open: number; close: number; pieces: RecordsPiece[] }
  /**
   * Nothing to split: the body does not start with `[` or `{`, or the envelope has no
   * `dmarcRecords` array. Either way it is not a list of records; one JSON.parse says why.
   */
  | { kind: 'other' }
  /** Cannot be JSON: the text ends inside a string or with brackets still open (cut off). */
  | { kind: 'invalid' };

export class RecordsArrayScanner {
  private readonly text: string;
  private readonly pieceChars: number;
  /** Where the top-level value starts (after a byte order mark and whitespace). */
  private readonly start: number;
  private pos: number;
  private depth = 0;
  private result: RecordsArrayScan | undefined;

  // The records array, once its `[` has been seen. `arrayDepth` is the depth of its elements;
  // `pieceStart` where the piece being scanned starts.
  private open = -1;
  private close = -1;
  private arrayDepth = -1;
  private pieces: RecordsPiece[] = [];
  private pieceStart = -1;
  /** The text between two rows to look for when jumping; undefined until the first separator, '' for "do not jump". */
  private between: string | undefined;
  /** No jump before this position; pushed further on after each wrong guess. */
  private jumpAfter = 0;
  private misses = 0;

  // Envelope level (depth 1 of a top-level object): is the next string a key, was the last key
  // `dmarcRecords`, and is the value about to start that of `dmarcRecords`?
  private readonly envelope: boolean;
  private expectKey = false;
  private lastKeyIsRecords = false;
  private valueIsRecords = false;

  constructor(text: string, options: { pieceChars?: number } = {}) {
    this.text = text;
    this.pieceChars = Math.max(1, options.pieceChars ?? DEFAULT_PIECE_CHARS);
    // fetch's text() drops a UTF-8 byte order mark; text from elsewhere may still have one
    // (schema.ts strips it the same way before its JSON.parse).
    let i = text.charCodeAt(0) === BOM ? 1 : 0;
    while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
    this.start = this.pos = i;
    const c = text.charCodeAt(i);
    this.envelope = c === OPEN_BRACE;
    if (c === OPEN_BRACKET) {
      // A bare array: the top-level value is the records array.
      this.openArray(i, 1);
    } else if (c === OPEN_BRACE) {
      this.expectKey = true;
    } else {
      this.result = { kind: 'other' };
    }
  }

  /** Scans (or jumps over) about `budget` more characters. Returns the outcome once the scan is over, else undefined. */
  step(budget: number): RecordsArrayScan | undefined {
    if (this.result) return this.result;
    const text = this.text;
    const stop = Math.min(text.length, this.pos + Math.max(1, budget));
    // Hot state in locals; written back at the end of the slice.
    let depth = this.depth;
    let i = this.pos;
    for (; i < stop; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        // Most of a body is string contents: jump to the closing quote with indexOf (a native
        // scan, several times faster than a charCodeAt loop). The run of backslashes before a
        // quote cannot reach past the opening quote. A string that never ends: cut off.
        let q = i;
        for (;;) {
          q = text.indexOf('"', q + 1);
          if (q < 0) return this.finish({ kind: 'invalid' });
          let b = q - 1;
          while (text.charCodeAt(b) === BACKSLASH) b--;
          if ((q - b) % 2 === 1) break; // an even number of backslashes: not escaped
        }
        if (depth === 1 && this.envelope) this.envelopeString(i, q);
        i = q;
        continue;
      }
      if (depth === 1 && this.envelope && !isJsonSpace(c)) this.envelopeToken(i, c);
      switch (c) {
        case COMMA:
          if (depth === this.arrayDepth) {
            const next = this.separator(i);
            if (next > i) i = next - 1; // jumped over parsed rows: carry on at the separator after them
          }
          break;
        case OPEN_BRACKET:
        case OPEN_BRACE:
          depth++;
          break;
        case CLOSE_BRACKET:
        case CLOSE_BRACE:
          if (depth === this.arrayDepth) {
            // `[… }` can never be JSON; saying so here keeps `close` a real `]`.
            if (c !== CLOSE_BRACKET) return this.finish({ kind: 'invalid' });
            this.close = i;
            this.arrayDepth = -1;
            this.pieces.push({ from: this.pieceStart, to: i });
          }
          if (--depth === 0) {
            this.pos = i + 1;
            return this.finish(
              this.open >= 0 && this.close >= 0
                ? { kind: 'found', start: this.start, open: this.open, close: this.close, pieces: this.pieces }
                : { kind: 'other' },
            );
          }
          break;
      }
    }
    this.pos = i;
    this.depth = depth;
    // Out of text with the top-level value still open: cut off (or garbage).
    if (i >= text.length) return this.finish({ kind: 'invalid' });
    return undefined;
  }

  /** Scans to the end in one go (tests, small bodies). */
  scanAll(): RecordsArrayScan {
    let r: RecordsArrayScan | undefined;
    while (!(r = this.step(1 << 30)));
    return r;
  }

  private finish(r: RecordsArrayScan): RecordsArrayScan {
    this.result = r;
    return r;
  }

  private openArray(i: number, arrayDepth: number): void {
    this.open = i;
    this.close = -1;
    this.arrayDepth = arrayDepth;
    this.pieces = [];
    this.pieceStart = i + 1;
    this.between = undefined;
    this.jumpAfter = 0;
    this.misses = 0;
  }

  /**
   * A comma at `s` between two elements of the records array. Ends the current piece when it is
   * long enough (or before a jump), then tries to jump. Returns the separator it jumped to, or -1.
   */
  private separator(s: number): number {
    const text = this.text;
    this.between ??= betweenRows(text, s);
    const jump = this.between !== '' && s >= this.jumpAfter;
    // pieceStart > s right after a jump: the piece up to this comma is already recorded.
    if (this.pieceStart <= s && (jump || s - this.pieceStart >= this.pieceChars)) {
      this.pieces.push({ from: this.pieceStart, to: s });
      this.pieceStart = s + 1;
    }
    if (!jump) return -1;
    // `between` starts with the `}` that ends a row: the separator is the character after it.
    const guess = text.indexOf(this.between!, s + this.pieceChars);
    if (guess < 0) {
      this.between = ''; // no more rows like that ahead: scan the rest
      return -1;
    }
    let rows: unknown[] | undefined;
    try {
      rows = JSON.parse('[' + text.slice(s + 1, guess + 1) + ']') as unknown[];
    } catch {
      // A wrong guess, or not JSON: the character-by-character scan will tell.
    }
    if (!rows || rows.length === 0) {
      // Scan on, and guess again later: twice as far on after each miss, so that bodies where
      // guesses keep missing waste little.
      this.jumpAfter = s + this.pieceChars * 2 ** ++this.misses;
      return -1;
    }
    this.pieces.push({ from: s + 1, to: guess + 1, rows });
    this.pieceStart = guess + 2;
    return guess + 1;
  }

  /** A non-space character outside strings at depth 1 of the envelope (for a string: its opening quote). */
  private envelopeToken(i: number, c: number): void {
    if (this.valueIsRecords) {
      // The first character of the value of `dmarcRecords`. Keys may repeat and JSON.parse
      // keeps the last, so a later `dmarcRecords` replaces an earlier one.
      this.valueIsRecords = false;
      if (c === OPEN_BRACKET) {
        this.openArray(i, 2);
      } else {
        this.open = -1;
        this.pieces = [];
      }
    }
    if (c === COLON) {
      this.valueIsRecords = this.lastKeyIsRecords;
      this.lastKeyIsRecords = false;
    } else if (c === COMMA) {
      this.expectKey = true;
    }
  }

  /** A string at depth 1 of the envelope, its quotes at `open` and `close`: a key, or a member's value. */
  private envelopeString(open: number, close: number): void {
    if (!this.expectKey) {
      this.envelopeToken(open, QUOTE);
      return;
    }
    this.expectKey = false;
    const raw = this.text.slice(open + 1, close);
    // JSON.parse decodes escapes in keys ("dmarc\u0052ecords" is the same key): so do we.
    this.lastKeyIsRecords = raw === RECORDS_KEY || (raw.includes('\\') && decodeKey(raw) === RECORDS_KEY);
  }
}

/** A key's raw text decoded as JSON.parse would (escapes), undefined when it is not a valid string. */
export function decodeKey(raw: string): string | undefined {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined; // not a valid string: the skeleton's JSON.parse will say the body is malformed
  }
}

/**
 * What to look for when jumping: the text around the first separator (at `s`) from the `}` that
 * ends the first row to the colon after the next row's first key, e.g. `},{"source":` or, pretty
 * printed, `},\n  {\n    "source":`. Rows of one response share their first key, so this recurs
 * between rows and rarely elsewhere. '' (do not jump) when the rows are not objects like that.
 */
function betweenRows(text: string, s: number): string {
  if (text.charCodeAt(s - 1) !== CLOSE_BRACE) return '';
  const m = /^,[ \t\n\r]*\{[ \t\n\r]*"[^"\\]{1,64}"[ \t\n\r]*:/.exec(text.slice(s, s + 200));
  return m ? '}' + m[0] : '';
}
