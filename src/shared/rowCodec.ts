/**
 * The records table's rows on their way from the host to the webview: one binary, columnar chunk
 * per message, no JSON on either side. Strings are dictionary-coded per chunk (a reporter or a
 * date is written once, rows carry its code), numbers travel as typed arrays, and the whole chunk
 * is one ArrayBuffer that postMessage hands over without serialising it.
 *
 * Layout (little-endian, as every platform VS Code runs on; each section 8-byte aligned):
 *   header    Uint32[16]  MAGIC, VERSION, rows, strings, string units, flags, list code counts ×3
 *   emails    Float64[rows]
 *   scalars   Code[rows] per SCALARS field: a string code
 *   lists     per LISTS field: Code[rows + 1] starts, then Code[n] string codes
 *   strings   Uint32[strings] end offsets, then Uint16[units] their UTF-16 code units
 * where Code is Uint16 when the chunk is narrow (FLAG_NARROW: at most 65,536 strings and 65,535
 * codes in each list, which a chunk of a few thousand rows always is) and Uint32 otherwise.
 * `dkims` lists hold 3 codes per signature (domain, selector, result); `extras` 2 per field
 * (name, text). Code units carry any string exactly, lone surrogates included (FLAG_WELL_FORMED
 * says none are there, so the decoder can use the fast TextDecoder).
 *
 * The webview imports this file: it must stay free of zod, tldts-icann and `vscode`.
 */

export const SCALARS = [
  'source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'category', 'date',
  'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkimAligned', 'spfReason', 'dkimReason', 'rowClass', 'override',
] as const;
export type ScalarField = (typeof SCALARS)[number];
export const S = Object.fromEntries(SCALARS.map((f, i) => [f, i])) as Record<ScalarField, number>;

export const LISTS = ['rdns', 'dkims', 'extras'] as const;
export const L = { rdns: 0, dkims: 1, extras: 2 } as const;

const MAGIC = 0x444d5243; // "DMRC"
const VERSION = 1;
const HEADER_WORDS = 16;
const FLAG_WELL_FORMED = 1;
/**
 * Every string is ASCII: the text travels as one byte a unit (half the bytes), and the webview's
 * strings are one byte a character instead of two (at a million rows, ~90 MB less).
 */
const FLAG_ASCII = 2;
/**
 * String codes and list starts are two bytes each: a third fewer bytes per row (about 115
 * instead of 170 for the API's rows), which every hop to the webview copies, compresses or
 * reads (VS Code deflates what the extension host sends; the browser inflates it and clones
 * it into the webview's frames).
 */
const FLAG_NARROW = 4;
const NARROW_MAX = 0xffff;

/** A chunk's string codes or list starts. */
export type Codes = Uint16Array | Uint32Array;

/** One row as the encoder takes it (the host builds it from a DmarcRecord). */
export interface RowFields {
  scalars: readonly string[];
  emails: number;
  rdns: readonly string[];
  /** Per signature [domain, selector, result], or the signature as a record has it. */
  dkims: readonly (readonly [string, string, string] | { readonly domain: string; readonly selector: string; readonly result: string })[];
  /** [name, text, name, text, …] */
  extras: readonly string[];
}

const align8 = (n: number): number => (n + 7) & ~7;

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return true;
  }
  return false;
}

const SURROGATE = /[\ud800-\udfff]/;
const NON_ASCII = /[^\x00-\x7f]/;

/** Scratch space of encodeChunk, grown to the largest chunk encoded so far (~100 KB for 1,250 rows), up to SCRATCH_ROWS. */
const scratch = { rows: 0, scalars: new Uint32Array(0), starts: new Uint32Array(0), emails: new Float64Array(0) };
/** encodeChunk's per-field last string and its code. */
const lastStrings: (string | undefined)[] = new Array(SCALARS.length).fill(undefined);
const lastCodes = new Uint32Array(SCALARS.length);
const asciiEncoder = new TextEncoder();
/** A larger chunk (none the panel sends) gets arrays of its own, not kept. */
const SCRATCH_ROWS = 16_384;

/** Views of the scratch arrays for a chunk of `count` rows: the scalars' codes field by field, the lists' starts list by list (each starting at 0), the emails. */
function scratchFor(count: number): { scalars: Uint32Array; starts: Uint32Array; emails: Float64Array } {
  if (count > SCRATCH_ROWS) return { scalars: new Uint32Array(SCALARS.length * count), starts: new Uint32Array(LISTS.length * (count + 1)), emails: new Float64Array(count) };
  if (count > scratch.rows) {
    scratch.rows = count;
    scratch.scalars = new Uint32Array(SCALARS.length * count);
    scratch.starts = new Uint32Array(LISTS.length * (count + 1));
    scratch.emails = new Float64Array(count);
  }
  const starts = scratch.starts.subarray(0, LISTS.length * (count + 1));
  for (let l = 0; l < LISTS.length; l++) starts[l * (count + 1)] = 0;
  return { scalars: scratch.scalars.subarray(0, SCALARS.length * count), starts, emails: scratch.emails.subarray(0, count) };
}

/** Encodes `count` rows, `row(i)` giving the i-th, into one chunk (read before row(i + 1) is asked for: it may be the same object refilled). */
export function encodeChunk(count: number, row: (i: number) => RowFields): Uint8Array {
  return encodeChunkUntil(count, row).data;
}

/** How often (in rows) encodeChunkUntil asks whether to stop. */
const STOP_EVERY = 32;

/**
 * encodeChunk that may end early: every STOP_EVERY rows it asks `stop()`, and on true the chunk
 * holds the rows encoded so far (at least STOP_EVERY), `count` saying how many.
 */
export function encodeChunkUntil(count: number, row: (i: number) => RowFields, stop?: () => boolean): { data: Uint8Array; count: number } {
  const codes = new Map<string, number>();
  const strings: string[] = [];
  let units = 0;
  const code = (s: string): number => {
    let c = codes.get(s);
    if (c === undefined) {
      c = strings.length;
      codes.set(s, c);
      strings.push(s);
      units += s.length;
    }
    return c;
  };
  // The scalar codes and list starts go through scratch arrays kept between chunks (copied into
  // the chunk's one ArrayBuffer below): 22 typed arrays allocated per chunk were, at a million
  // rows in the extension host, a third of the encoder's time (each new backing store counted as
  // external memory, which brings the next garbage collection closer).
  const { scalars, starts, emails } = scratchFor(count);
  const lists: number[][] = LISTS.map(() => []);
  const emailsAt = HEADER_WORDS * 4;
  // Each field's last string and its code: most fields hold a few values (a result, a class, a
  // date), often the same as the row before, and a string compared with the same string is
  // answered without the map (its lookups were 38% of the encoder's time, 70% of them the
  // scalars'; on the API's rows half of those now skip it).
  lastStrings.fill(undefined);
  let n = count;
  for (let i = 0; i < count; i++) {
    if (stop && i > 0 && i % STOP_EVERY === 0 && stop()) {
      n = i;
      break;
    }
    const r = row(i);
    for (let f = 0; f < SCALARS.length; f++) {
      const v = r.scalars[f] ?? '';
      if (v !== lastStrings[f]) {
        lastStrings[f] = v;
        lastCodes[f] = code(v);
      }
      scalars[f * count + i] = lastCodes[f]!;
    }
    emails[i] = r.emails;
    for (const s of r.rdns) lists[0]!.push(code(s));
    for (const d of r.dkims) {
      if ('domain' in d) lists[1]!.push(code(d.domain), code(d.selector), code(d.result));
      else lists[1]!.push(code(d[0]), code(d[1]), code(d[2]));
    }
    for (const s of r.extras) lists[2]!.push(code(s));
    for (let l = 0; l < LISTS.length; l++) starts[l * (count + 1) + i + 1] = lists[l]!.length;
  }
  const narrow = strings.length <= NARROW_MAX + 1 && lists.every((l) => l.length <= NARROW_MAX);
  const cw = narrow ? 2 : 4;
  const CodeArray = narrow ? Uint16Array : Uint32Array;
  let wellFormed = true;
  // The strings' text, one string: tested and, when ASCII, written into the chunk natively.
  const joined = strings.join('');
  const ascii = !NON_ASCII.test(joined);
  if (!ascii) for (const s of strings) if (SURROGATE.test(s) && hasLoneSurrogate(s)) wellFormed = false;

  // Section offsets, in bytes.
  let at = align8(emailsAt + n * 8);
  const scalarsAt = at;
  at = align8(at + SCALARS.length * n * cw);
  const listAt: number[] = [];
  for (let l = 0; l < LISTS.length; l++) {
    listAt.push(at);
    at = align8(at + (n + 1 + lists[l]!.length) * cw);
  }
  const endsAt = at;
  at = align8(at + strings.length * 4);
  const unitsAt = at;
  at = align8(at + units * (ascii ? 1 : 2));

  const buf = new ArrayBuffer(at);
  const header = new Uint32Array(buf, 0, HEADER_WORDS);
  header.set([MAGIC, VERSION, n, strings.length, units, (wellFormed ? FLAG_WELL_FORMED : 0) | (ascii ? FLAG_ASCII : 0) | (narrow ? FLAG_NARROW : 0), lists[0]!.length, lists[1]!.length, lists[2]!.length]);
  new Float64Array(buf, emailsAt, n).set(emails.subarray(0, n));
  // The scalar sections lie one after another, as in the scratch array: one copy for all (one a
  // field when the encode stopped early: the scratch's sections are `count` rows apart).
  if (n === count) new CodeArray(buf, scalarsAt, SCALARS.length * count).set(scalars);
  else for (let f = 0; f < SCALARS.length; f++) new CodeArray(buf, scalarsAt + f * n * cw, n).set(scalars.subarray(f * count, f * count + n));
  for (let l = 0; l < LISTS.length; l++) {
    new CodeArray(buf, listAt[l]!, n + 1).set(starts.subarray(l * (count + 1), l * (count + 1) + n + 1));
    new CodeArray(buf, listAt[l]! + (n + 1) * cw, lists[l]!.length).set(lists[l]!);
  }
  const ends = new Uint32Array(buf, endsAt, strings.length);
  let p = 0;
  if (ascii) {
    // One byte a character, as UTF-8 has an ASCII text: written by the engine, not a loop here.
    asciiEncoder.encodeInto(joined, new Uint8Array(buf, unitsAt, units));
    for (let k = 0; k < strings.length; k++) ends[k] = p += strings[k]!.length;
  } else {
    const u16 = new Uint16Array(buf, unitsAt, units);
    for (let k = 0; k < strings.length; k++) {
      const s = strings[k]!;
      for (let j = 0; j < s.length; j++) u16[p++] = s.charCodeAt(j);
      ends[k] = p;
    }
  }
  return { data: new Uint8Array(buf), count: n };
}

/** A decoded chunk: rows read through codes into `strings`. */
export interface RowChunk {
  count: number;
  strings: string[];
  emails: Float64Array;
  /** Codes of one SCALARS field, per row. */
  scalars: Codes[];
  /** Per LISTS field: row i's codes are codes[starts[i] .. starts[i + 1]). */
  listStarts: Codes[];
  listCodes: Codes[];
  /**
   * An ASCII chunk's text as it came (views into the message: read them before it is dropped),
   * string k being units[ends[k - 1] … ends[k]) clamped as `strings` has it: the webview's search
   * takes its character bits from the bytes, much faster than from the strings. `text` is the
   * one string the strings were cut from (each a slice of it): the search looks for a query in it
   * at once rather than string by string (searchText.ts).
   */
  ascii?: { units: Uint8Array; ends: Uint32Array; text: string };
}

/** Reads a chunk; throws an Error saying what is wrong when the bytes are not one. */
export function decodeChunk(data: Uint8Array): RowChunk {
  // Typed-array views need aligned offsets: copy a chunk that arrived at an odd place.
  const bytes = data.byteOffset % 8 === 0 ? data : data.slice();
  const buf = bytes.buffer as ArrayBuffer;
  const base = bytes.byteOffset;
  const size = bytes.byteLength;
  if (size < HEADER_WORDS * 4) throw new Error('a rows chunk is too short');
  const header = new Uint32Array(buf, base, HEADER_WORDS);
  if (header[0] !== MAGIC || header[1] !== VERSION) throw new Error('a rows chunk has an unknown format');
  const count = header[2]!;
  const nStrings = header[3]!;
  const units = header[4]!;
  const wellFormed = (header[5]! & FLAG_WELL_FORMED) !== 0;
  const ascii = (header[5]! & FLAG_ASCII) !== 0;
  const narrow = (header[5]! & FLAG_NARROW) !== 0;
  const CodeArray = narrow ? Uint16Array : Uint32Array;
  const cw = narrow ? 2 : 4;
  const view = <A>(make: new (b: ArrayBuffer, o: number, n: number) => A, at: number, n: number, width: number): A => {
    if (at + n * width > size) throw new Error('a rows chunk is cut short');
    return new make(buf, base + at, n);
  };
  let at = HEADER_WORDS * 4;
  const emails = view(Float64Array, at, count, 8);
  at = align8(at + count * 8);
  const scalars: Codes[] = [];
  for (let f = 0; f < SCALARS.length; f++) scalars.push(view<Codes>(CodeArray, at + f * count * cw, count, cw));
  at = align8(at + SCALARS.length * count * cw);
  const listStarts: Codes[] = [];
  const listCodes: Codes[] = [];
  for (let l = 0; l < LISTS.length; l++) {
    const n = header[6 + l]!;
    listStarts.push(view<Codes>(CodeArray, at, count + 1, cw));
    listCodes.push(view<Codes>(CodeArray, at + (count + 1) * cw, n, cw));
    at = align8(at + (count + 1 + n) * cw);
  }
  const ends = view(Uint32Array, at, nStrings, 4);
  at = align8(at + nStrings * 4);
  const u16 = ascii ? view(Uint8Array, at, units, 1) : view(Uint16Array, at, units, 2);
  const strings = new Array<string>(nStrings);
  let text = '';
  if (wellFormed || ascii) {
    // One string for the chunk, cut at the ends (slices share it). A byte above 0x7f in an
    // "ASCII" chunk (a broken one) reads as U+FFFD, like any invalid UTF-8.
    const all = (text = new TextDecoder(ascii ? 'utf-8' : 'utf-16le').decode(u16));
    let prev = 0;
    for (let k = 0; k < nStrings; k++) {
      const end = Math.min(ends[k]!, units);
      strings[k] = all.slice(prev, end);
      prev = end;
    }
  } else {
    let prev = 0;
    for (let k = 0; k < nStrings; k++) {
      const end = Math.min(Math.max(ends[k]!, prev), units);
      let s = '';
      for (let j = prev; j < end; j += 8192) s += String.fromCharCode(...u16.subarray(j, Math.min(end, j + 8192)));
      strings[k] = s;
      prev = end;
    }
  }
  return { count, strings, emails, scalars, listStarts, listCodes, ...(ascii ? { ascii: { units: u16 as Uint8Array, ends, text } } : {}) };
}

/** The string of `code` in a chunk ('' for a code out of range). */
export function str(chunk: RowChunk, code: number): string {
  return chunk.strings[code] ?? '';
}

/** Row i's codes of a list field. */
export function listOf(chunk: RowChunk, l: number, i: number): Codes {
  const starts = chunk.listStarts[l]!;
  const codes = chunk.listCodes[l]!;
  const a = Math.min(starts[i] ?? 0, codes.length);
  const b = Math.min(Math.max(starts[i + 1] ?? a, a), codes.length);
  return codes.subarray(a, b);
}

/**
 * Copies of a chunk's list starts and codes in one new buffer (one allocation, not six), for the
 * webview's store, which keeps the lists but not the chunk's buffer.
 */
export function copyLists(c: RowChunk): [Codes[], Codes[]] {
  const arrays = [...c.listStarts, ...c.listCodes];
  const narrow = arrays.every((a) => a instanceof Uint16Array);
  const bytes = arrays.reduce((n, a) => n + a.length, 0) * (narrow ? 2 : 4);
  const buf = new ArrayBuffer(bytes);
  let at = 0;
  const copies = arrays.map((a) => {
    const copy: Codes = narrow ? new Uint16Array(buf, at, a.length) : new Uint32Array(buf, at, a.length);
    copy.set(a);
    at += copy.byteLength;
    return copy;
  });
  return [copies.slice(0, c.listStarts.length), copies.slice(c.listStarts.length)];
}
