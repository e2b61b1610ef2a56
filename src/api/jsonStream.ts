/**
 * The records of a JSON body while it is still arriving: text goes in piece by piece (`push`),
 * every row whose text is complete comes out parsed, and `end()` settles the rest. Bodies of
 * 400 MB therefore never wait for their last byte to show their first rows, and are never held
 * in memory whole.
 *
 * The same reasoning as jsonScan.ts (read its header): the scanner tracks only where strings
 * start and end and the bracket depth outside them, cuts the records array's contents at the
 * commas between its elements, and JSON.parses every stretch it cuts, '[' + stretch + ']'. The
 * rest of the body, with the array replaced by a marker string (the "skeleton"), is parsed at
 * the end. If every stretch parses to a non-empty list and the skeleton parses, the body is valid
 * JSON and its array holds exactly the rows given out; and when the skeleton's `dmarcRecords` is
 * the marker, it is the array JSON.parse would have taken the rows from (a later duplicate key
 * would have replaced it: that body is refused, its rows having gone out already).
 *
 * Jumps: on a comma between rows the scanner looks for the last place in the text it holds where
 * the text between two rows recurs (`},{"source":`) and parses the stretch up to it at once. If
 * it parses, it ends at a real separator (see jsonScan.ts); if not, the scanner goes on character
 * by character and guesses again later. Text before a row is cut is kept; text already given out
 * as rows is dropped.
 */

import { randomBytes } from 'node:crypto';
import {
  BACKSLASH, BOM, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, decodeKey, isJsonSpace, OPEN_BRACE, OPEN_BRACKET, QUOTE, RECORDS_KEY,
} from './jsonScan';

/** The longest stretch parsed in one JSON.parse (~2–7 ms): a push of many megabytes is cut into these. */
const MAX_JUMP_CHARS = 1 << 20;
/** Character-by-character stretches are parsed once they are this long (or the text runs out). */
const SLOW_PIECE_CHARS = 64 * 1024;
/** A key of the envelope longer than this (escapes included) cannot be `dmarcRecords`. */
const MAX_KEY_CHARS = 100;

export type StreamEnd =
  /** The skeleton: the body with the records array replaced by `marker`, for the caller to parse and check. */
  | { kind: 'found'; skeleton: string; marker: string }
  /** Not a body with a records array (not JSON, another shape, or `dmarcRecords` not an array): the whole text, for one JSON.parse to say why. */
  | { kind: 'other'; text: string }
  /** Cannot be JSON: cut off inside a string or with brackets open, a stretch that does not parse, an empty element. */
  | { kind: 'invalid' };

/** The marker standing for the records array in the skeleton: a string a server cannot guess. */
function newMarker(): string {
  return `\u0000records-${randomBytes(16).toString('hex')}`;
}

export class RecordsStreamParser {
  /** 'start' before the first non-space character; 'before' until the records array opens; 'in' inside it; 'after' once it closed; 'other' when there is none. */
  private state: 'start' | 'before' | 'in' | 'after' | 'other' | 'invalid' = 'start';
  /** Text not given out: everything before the array opens; from the current stretch's start while in it; what follows it after. */
  private buf = '';
  /** Scan position in `buf` (never inside a string). */
  private pos = 0;
  private depth = 0;
  /** Skeleton text before the array's `[`. */
  private head = '';
  private expectKey = false;
  /** Before the array: the text scanned (see scanEnvelope), whether a string is open, its key so far. */
  private scanned: string[] = [];
  private inString = false;
  private escaped = false;
  private readingKey = false;
  private key: string | undefined;
  private lastKeyIsRecords = false;
  private valueIsRecords = false;
  private arrayDepth = 0;
  /** In the array: separators seen (an empty stretch is only an empty array), and the last one in `buf` not yet cut at, -1 if none. */
  private separators = 0;
  private lastSep = -1;
  /** What lies between two rows (`},{"source":`); undefined until known, '' for "do not jump". */
  private between: string | undefined;
  /** Characters to scan one by one before the next jump (after a wrong guess). */
  private slowLeft = 0;
  private misses = 0;
  /** Rows given out so far. */
  rows = 0;
  /** A push (or `more`) with a limit stopped at it, before rows whose text is in: `more()` gives them out. */
  pending = false;
  /** The current call's limit, and the characters given out as rows in it. */
  private limit = Infinity;
  private taken = 0;
  private readonly marker = newMarker();

  /**
   * Adds text; returns the rows now complete, in order (possibly none), or with `maxChars` only the
   * first of them, about that much text (then `pending`). Never throws: a broken body shows at `end()`.
   */
  push(text: string, maxChars = Infinity): unknown[] {
    if (this.state === 'invalid' || (text.length === 0 && !this.pending)) return [];
    this.buf += text;
    return this.step(maxChars);
  }

  /** The rows a limited push left (`pending`), up to `maxChars` of their text again. */
  more(maxChars = Infinity): unknown[] {
    return this.state === 'invalid' || !this.pending ? [] : this.step(maxChars);
  }

  private step(maxChars: number): unknown[] {
    this.pending = false;
    this.limit = maxChars;
    this.taken = 0;
    return this.scan(false);
  }

  /** The body has ended: the last rows, and what is left to check. */
  end(): { rows: unknown[]; end: StreamEnd } {
    this.pending = false;
    this.limit = Infinity;
    const rows = this.state === 'invalid' ? [] : this.scan(true);
    switch (this.state) {
      case 'after':
        return { rows, end: { kind: 'found', skeleton: this.head + JSON.stringify(this.marker) + this.buf, marker: this.marker } };
      case 'start':
      case 'before':
      case 'other':
        return { rows, end: { kind: 'other', text: this.head + this.buf } };
      default:
        return { rows: [], end: { kind: 'invalid' } };
    }
  }

  private fail(): void {
    this.state = 'invalid';
    this.buf = '';
    this.head = '';
  }

  private scan(final: boolean): unknown[] {
    const out: unknown[] = [];
    if (this.state === 'start') {
      if (this.buf.charCodeAt(0) === BOM) this.buf = this.buf.slice(1);
      let i = 0;
      while (i < this.buf.length && isJsonSpace(this.buf.charCodeAt(i))) i++;
      if (i >= this.buf.length) return out;
      const c = this.buf.charCodeAt(i);
      if (c === OPEN_BRACKET) {
        this.openArray(i, 1); // a bare array: the top-level value is the records array
      } else if (c === OPEN_BRACE) {
        this.state = 'before';
        this.expectKey = true;
        this.depth = 1;
        this.pos = i + 1;
      } else {
        this.state = 'other';
      }
    }
    if (this.state === 'before') this.scanEnvelope(final);
    if (this.state === 'in') this.scanArray(final, out);
    return out;
  }

  /**
   * Scans the envelope up to the records array's `[` (then opens it), or to its end (no array:
   * 'other'). Each character once: the text scanned goes to `scanned` and `buf` keeps only what
   * follows, so a piece is never appended to the whole envelope and read with it again (a body of
   * 35 MB without the records array took 7 s that way, 400 MB many minutes); a string is followed
   * across pieces (`inString`, `escaped`), and a key of the envelope is kept only while it could
   * still be `dmarcRecords`.
   */
  private scanEnvelope(final: boolean): void {
    const text = this.buf;
    let i = this.pos;
    for (; i < text.length; i++) {
      if (this.inString) {
        const close = this.stringEnd(text, i);
        const end = close < 0 ? text.length : close;
        if (this.key !== undefined) this.key = this.key.length + end - i > MAX_KEY_CHARS ? undefined : this.key + text.slice(i, end);
        if (close < 0) {
          i = text.length;
          break;
        }
        this.inString = false;
        if (this.readingKey) {
          this.readingKey = false;
          // JSON.parse decodes escapes in keys ("dmarc\u0052ecords" is the same key): so do we.
          const raw = this.key;
          this.lastKeyIsRecords = raw !== undefined && (raw === RECORDS_KEY || (raw.includes('\\') && decodeKey(raw) === RECORDS_KEY));
          this.key = undefined;
        }
        i = close;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.inString = true;
        this.escaped = false;
        if (this.depth === 1) {
          if (this.expectKey) {
            this.expectKey = false;
            this.readingKey = true;
            this.key = '';
          } else this.valueIsRecords = false; // a string value
        }
        continue;
      }
      if (this.depth === 1 && !isJsonSpace(c)) {
        if (this.valueIsRecords) {
          // The first character of the value of `dmarcRecords`. Keys may repeat and JSON.parse
          // keeps the last: a later one after this array is caught by the skeleton's marker.
          this.valueIsRecords = false;
          if (c === OPEN_BRACKET) {
            const before = this.takeScanned();
            this.buf = before + text;
            this.openArray(before.length + i, 2);
            return;
          }
        }
        if (c === COLON) {
          this.valueIsRecords = this.lastKeyIsRecords;
          this.lastKeyIsRecords = false;
        } else if (c === COMMA) {
          this.expectKey = true;
        }
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --this.depth === 0) {
        this.state = 'other'; // the envelope closed without a records array
        this.buf = this.takeScanned() + text;
        return;
      }
    }
    this.scanned.push(text);
    this.buf = '';
    this.pos = 0;
    if (final) {
      this.state = 'other';
      this.buf = this.takeScanned();
    }
  }

  /** The envelope's text scanned so far, in one string; `scanned` is emptied. */
  private takeScanned(): string {
    const text = this.scanned.join('');
    this.scanned = [];
    return text;
  }

  /** Where the string being read ends in `text` (its closing quote), from `from`; -1 if it goes on. Each character once. */
  private stringEnd(text: string, from: number): number {
    for (let k = from; k < text.length; k++) {
      if (this.escaped) {
        this.escaped = false; // the character after a backslash, in this piece or the last one
        continue;
      }
      const c = text.charCodeAt(k);
      if (c === BACKSLASH) this.escaped = true;
      else if (c === QUOTE) return k;
    }
    return -1;
  }

  /** The records array's `[` is at buf[i]: the skeleton's head is what precedes it. */
  private openArray(i: number, arrayDepth: number): void {
    this.head = this.buf.slice(0, i);
    this.buf = this.buf.slice(i + 1);
    this.state = 'in';
    this.arrayDepth = arrayDepth;
    this.depth = arrayDepth;
    this.pos = 0;
    this.separators = 0;
    this.lastSep = -1;
  }

  /**
   * Gives out the rows in buf[0, to), a stretch ending at a separator or at the closing bracket,
   * and drops that text and the character at `to`. False (and the body is invalid) when the
   * stretch does not parse or is an empty element.
   */
  private cut(to: number, out: unknown[], parsed?: unknown[]): boolean {
    let rows = parsed;
    if (!rows) {
      try {
        rows = JSON.parse('[' + this.buf.slice(0, to) + ']') as unknown[];
      } catch {
        rows = undefined;
      }
    }
    // `[1,,2]`, `[1,]`, `[,1]`: an empty element. Only a whole empty array has an empty stretch.
    if (!rows || (rows.length === 0 && (this.separators > 0 || this.buf.charCodeAt(to) === COMMA))) {
      this.fail();
      return false;
    }
    for (let k = 0; k < rows.length; k++) out.push(rows[k]);
    this.rows += rows.length;
    this.taken += to + 1;
    this.buf = this.buf.slice(to + 1);
    this.pos = Math.max(0, this.pos - (to + 1));
    this.lastSep = -1;
    return true;
  }

  private scanArray(final: boolean, out: unknown[]): void {
    for (;;) {
      // At the start of a row after a separator: jump over as many whole rows as the text holds.
      if (this.pos === 0 && this.separators > 0 && this.slowLeft <= 0 && this.between !== '') {
        const text = this.buf;
        if (this.taken >= this.limit && text.length > 0) {
          this.pending = true; // the call's limit: the rest at the next `more()`
          return;
        }
        this.between ??= betweenRows(text, final);
        if (this.between === undefined) return; // too little text to tell yet
        if (this.between !== '') {
          // With a limit: the last row ending within it, else the first ending after it.
          const room = this.limit - this.taken;
          let guess = text.lastIndexOf(this.between, Math.min(room, MAX_JUMP_CHARS));
          if (guess <= 0 && room < MAX_JUMP_CHARS) guess = text.slice(0, MAX_JUMP_CHARS).indexOf(this.between, room);
          if (guess > 0) {
            let rows: unknown[] | undefined;
            try {
              rows = JSON.parse('[' + text.slice(0, guess + 1) + ']') as unknown[];
            } catch {
              // A wrong guess, or not JSON: the character-by-character scan will tell.
            }
            if (rows && rows.length > 0) {
              this.separators++;
              this.cut(guess + 1, out, rows);
              continue;
            }
            // Scan on, and guess again later: further on after each miss.
            this.slowLeft = SLOW_PIECE_CHARS * 2 ** Math.min(20, ++this.misses);
          } else if (!final && text.length < MAX_JUMP_CHARS) {
            return; // no whole row after this one yet: wait for more text
          }
        }
      }
      // Character by character, to a separator worth cutting at, or the end of the text.
      const text = this.buf;
      let depth = this.depth;
      let i = this.pos;
      let jumpNext = false;
      for (; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === QUOTE) {
          const q = closingQuote(text, i);
          if (q < 0) break; // the string goes on in text still to come
          i = q;
          continue;
        }
        if (c === OPEN_BRACKET || c === OPEN_BRACE) {
          depth++;
        } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
          if (depth === this.arrayDepth) {
            // `[… }` can never be JSON. Else the end of the array: its last stretch, and what
            // follows it belongs to the skeleton.
            if (c !== CLOSE_BRACKET || !this.cut(i, out)) {
              this.fail();
              return;
            }
            this.state = 'after';
            this.pos = 0;
            return;
          }
          depth--;
        } else if (c === COMMA && depth === this.arrayDepth) {
          this.separators++;
          this.lastSep = i;
          if (this.slowLeft - (i - this.pos) <= 0 && this.between !== '') {
            jumpNext = true;
            break;
          }
        }
      }
      this.slowLeft -= i - this.pos;
      this.pos = i;
      this.depth = depth;
      // Give out the whole rows seen so far (up to the last separator).
      if (this.lastSep >= 0 && !this.cut(this.lastSep, out)) return;
      if (jumpNext) continue;
      if (final) this.fail(); // the text ended inside the array: cut off
      return;
    }
  }
}

/** The closing quote of the string opening at `i`, or -1 when the text ends first. */
function closingQuote(text: string, i: number): number {
  let q = i;
  for (;;) {
    q = text.indexOf('"', q + 1);
    if (q < 0) return -1;
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - b) % 2 === 1) return q;
  }
}

/**
 * What lies between two rows, from the `}` that ends one to the colon after the next one's first
 * key (`},{"source":`), read at the start of a row. Undefined while the text is too short to
 * tell; '' (do not jump) when rows are not objects like that.
 */
function betweenRows(text: string, final: boolean): string | undefined {
  const m = /^[ \t\n\r]*\{[ \t\n\r]*"[^"\\]{1,64}"[ \t\n\r]*:/.exec(text.slice(0, 200));
  if (m) return '},' + m[0];
  return text.length >= 200 || final ? '' : undefined;
}
