/**
 * The records, column by column, DOM-free. Rows arrive as binary chunks (src/shared/rowCodec.ts)
 * and are only appended; a reload clears them. No JS object is kept per row: each chunk becomes a
 * part whose distinct strings are held once, with one string id per row and column (the search
 * index's segment, searchIndex.ts, which is also where a cell's text is read), the chunk's lists
 * (rDNS names, DKIM signatures, extra fields) as typed arrays of string codes, and numeric facts
 * in typed arrays across all rows (emails, date, pass flags, disposition) for the aggregations in
 * this folder. A million rows take about a fifth of the memory an array of texts per column did.
 *
 * A row is known by its index: its position in the order the host sent the rows, which is the
 * host's record index.
 */
import { COLUMNS, T, type ColumnId } from '../../../src/shared/columns';
import { decodeChunk, encodeChunk, L, listOf, S, type RowChunk, type RowFields } from '../../../src/shared/rowCodec';
import { dkimText, valueLabel } from '../format';
import { NCOL, SearchIndex, type Segment } from './searchIndex';
import type { Facts } from './fieldTypes';

export const COL: Record<ColumnId, number> = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as Record<ColumnId, number>;

/** Per column, the chunk's scalar field it shows as is (-1: derived from several, see appendChunk). */
const SCALAR_OF: readonly number[] = COLUMNS.map((c) => (c in S ? S[c as keyof typeof S] : -1));

const DISPOSITION_CODE = new Map<string, number>([['none', 0], ['quarantine', 1], ['reject', 2]]);

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

function strList(v: unknown): string[] {
  return Array.isArray(v) ? v.map(str) : [];
}

/** A DKIM signature as the table keeps it. */
export interface Signature {
  domain: string;
  selector: string;
  result: string;
}

/** A tuple (src/shared/columns.ts, untrusted shape: anything missing reads as '') as the binary chunk carries it. */
function tupleFields(raw: unknown): RowFields {
  const t = (Array.isArray(raw) ? raw : []) as unknown[];
  const n = typeof t[T.emails] === 'number' ? (t[T.emails] as number) : Number(t[T.emails]);
  return {
    scalars: [
      str(t[T.source]), str(t[T.reporter]), str(t[T.visibleFrom]), str(t[T.returnPath]), str(t[T.to]), str(t[T.ipAddress]),
      str(t[T.ipCountryCode]), str(t[T.category]), str(t[T.date]), str(t[T.dmarc]), str(t[T.alignedSpf]), str(t[T.alignedDkim]),
      str(t[T.spf]), str(t[T.dkimAligned]),
    ],
    emails: n,
    rdns: strList(t[T.rdns]),
    dkims: Array.isArray(t[T.dkims])
      ? (t[T.dkims] as unknown[]).map((d) => {
          const a = Array.isArray(d) ? d : [];
          return [str(a[0]), str(a[1]), str(a[2])] as const;
        })
      : [],
    extras: strList(t[T.extras]),
  };
}

/** `d=mcsv.net s=k2 pass`: one signature as the table and the search show it. */
export function signatureText(s: Signature): string {
  return `d=${s.domain || '(none)'} s=${s.selector || '(none)'} ${valueLabel(s.result)}`;
}

/** Tuples as one binary chunk (tests and the dev harness stand in for the host with these). */
export function encodeTuples(tuples: readonly unknown[]): Uint8Array {
  return encodeChunk(tuples.length, (i) => tupleFields(tuples[i]));
}

function grow<T extends Float64Array | Uint8Array | Uint32Array>(a: T, cap: number, length: number, make: (n: number) => T): T {
  if (a.length >= cap) return a;
  const b = make(cap);
  b.set(a.subarray(0, length));
  return b;
}

/** One appended chunk: its rows' cells (a search segment) and lists. */
interface Part {
  from: number;
  seg: Segment;
  /** The chunk's strings (list codes index these). */
  strings: readonly string[];
  /** Per list (L.rdns, L.dkims, L.extras): row r's codes are codes[starts[r] … starts[r + 1]). */
  starts: Uint32Array[];
  codes: Uint32Array[];
}

export class RowStore implements Facts {
  length = 0;
  /** Bumped on every change, so caches know when they are stale. */
  version = 0;
  /** Bumped when the rows are cleared (a reload), so an append-only cache knows to start over. */
  generation = 0;
  /** Every cell's text, for the search (searchIndex.ts); also where cells are read. */
  readonly search = new SearchIndex();
  private parts: Part[] = [];
  /** Row i belongs to parts[partOf[i]]. */
  private partOf = new Uint32Array(0);
  /** Every extra field name seen. */
  readonly extraNames = new Set<string>();
  emails = new Float64Array(0);
  dateMs = new Float64Array(0);
  dmarcPass = new Uint8Array(0);
  spfAligned = new Uint8Array(0);
  dkimAligned = new Uint8Array(0);
  disposition = new Uint8Array(0);

  clear(): void {
    this.length = 0;
    this.version++;
    this.generation++;
    this.search.clear();
    this.parts = [];
    this.extraNames.clear();
  }

  private ensureCapacity(n: number): void {
    if (this.emails.length >= n) return;
    const cap = Math.max(n, this.emails.length * 2, 1024);
    const len = this.length;
    const f64 = (k: number) => new Float64Array(k);
    const u8 = (k: number) => new Uint8Array(k);
    this.emails = grow(this.emails, cap, len, f64);
    this.dateMs = grow(this.dateMs, cap, len, f64);
    this.dmarcPass = grow(this.dmarcPass, cap, len, u8);
    this.spfAligned = grow(this.spfAligned, cap, len, u8);
    this.dkimAligned = grow(this.dkimAligned, cap, len, u8);
    this.disposition = grow(this.disposition, cap, len, u8);
    this.partOf = grow(this.partOf, cap, len, (k) => new Uint32Array(k));
  }

  /** Appends tuples (untrusted shapes are coerced: a missing field reads as ''), through the same binary chunk the host sends. */
  append(tuples: readonly unknown[], expectedTotal = 0): void {
    this.appendChunk(decodeChunk(encodeTuples(tuples)), expectedTotal);
  }

  /** Appends the rows of a binary chunk (src/shared/rowCodec.ts). `expectedTotal` sizes the arrays once. */
  appendChunk(c: RowChunk, expectedTotal = 0): void {
    this.ensureCapacity(Math.max(expectedTotal, this.length + c.count));
    const strings = c.strings;
    const sc = c.scalars;
    // The chunk's strings are its segment's first ids; derived texts are added to it.
    // At most: the chunk's strings, '', pass, fail, and per row a derived emails, DKIM, DKIM
    // results and rDNS text, and one per extra field.
    const maxIds = strings.length + 3 + c.count * 4 + (c.listCodes[L.extras]!.length >> 1);
    const seg = this.search.begin(this.length, c.count, strings, maxIds);
    // Copies: the chunk's buffer (and its strings' UTF-16 text) is not kept.
    const part: Part = { from: this.length, seg: seg.segment, strings, starts: c.listStarts.map((a) => a.slice()), codes: c.listCodes.map((a) => a.slice()) };
    const partIndex = this.parts.push(part) - 1;
    const emptyId = seg.add('');
    const idOf = (code: number): number => (code < strings.length ? code : emptyId);
    const times = new Map<number, number>();
    // Derived cells, once per distinct key in the chunk: their search id.
    const derived = new Map<number | string, number>();
    const cached = (key: number | string, make: () => string): number => {
      let d = derived.get(key);
      if (d === undefined) derived.set(key, (d = seg.add(make())));
      return d;
    };
    const text = (code: number): string => strings[code] ?? '';
    const passId = seg.add('pass');
    const failId = seg.add('fail');
    /** Codes fit in 17 bits: three of them make one exact number. */
    const small = strings.length < 131072;
    const B = 131072;
    for (let r = 0; r < c.count; r++) {
      const i = this.length;
      for (let col = 0; col < SCALAR_OF.length; col++) {
        const f = SCALAR_OF[col]!;
        if (f >= 0) seg.set(r, col, idOf(sc[f]![r]!));
      }
      const n = c.emails[r]!;
      const emails = Number.isFinite(n) && n > 0 ? n : 0;
      const alignedSpf = text(sc[S.alignedSpf]![r]!);
      const alignedDkim = text(sc[S.alignedDkim]![r]!);
      const pass = alignedSpf === 'pass' || alignedDkim === 'pass';
      // Derived keys: numbers for emails (e…), strings prefixed by what they are.
      seg.set(r, COL.emails, cached(`e${emails}`, () => String(emails)));
      seg.set(r, COL.dmarcResult, pass ? passId : failId);
      const dk = listOf(c, L.dkims, r);
      // One signature (the common case): keyed by its codes as one number, no key string built.
      const one = dk.length === 3 && small;
      const sigs = (): Signature[] => signaturesOf(dk, strings);
      seg.set(r, COL.dkimDomains, dk.length === 0 ? emptyId : cached(one ? (dk[0]! * B + dk[1]!) * B + dk[2]! : `d${dk.join(',')}`, () => sigs().map(signatureText).join('\n')));
      seg.set(r, COL.dkim, dk.length === 0 ? cached('k', () => dkimText([])) : cached(one ? `k${dk[2]}` : `k${dk.join(',')}`, () => dkimText(sigs().map((d) => d.result))));
      const rd = listOf(c, L.rdns, r);
      seg.set(r, COL.rdns, rd.length === 1 ? idOf(rd[0]!) : rd.length === 0 ? emptyId : cached(`n${rd.join(',')}`, () => Array.from(rd, text).join(', ')));
      const ex = listOf(c, L.extras, r);
      const pairs: number[] = [];
      for (let k = 0; k + 1 < ex.length; k += 2) {
        const name = text(ex[k]!);
        this.extraNames.add(name);
        pairs.push(cached(`x${ex[k]},${ex[k + 1]}`, () => `${name}=${text(ex[k + 1]!)}`));
      }
      seg.setExtras(r, pairs);
      this.partOf[i] = partIndex;
      this.emails[i] = emails;
      const dateCode = sc[S.date]![r]!;
      let ms = times.get(dateCode);
      if (ms === undefined) times.set(dateCode, (ms = Date.parse(text(dateCode))));
      this.dateMs[i] = Number.isFinite(ms) ? ms : Number.NaN;
      this.dmarcPass[i] = pass ? 1 : 0;
      this.spfAligned[i] = alignedSpf === 'pass' ? 1 : 0;
      this.dkimAligned[i] = alignedDkim === 'pass' ? 1 : 0;
      this.disposition[i] = DISPOSITION_CODE.get(text(sc[S.dmarc]![r]!)) ?? 3;
      this.length++;
    }
    this.version++;
  }

  /** Bytes in typed arrays (outside the JS heap that `performance.memory` reports). */
  bytes(): number {
    let n = this.search.bytes();
    for (const a of [this.emails, this.dateMs, this.dmarcPass, this.spfAligned, this.dkimAligned, this.disposition, this.partOf]) n += a.byteLength;
    for (const p of this.parts) for (const a of [...p.starts, ...p.codes]) n += a.byteLength;
    return n;
  }

  /** A cell's display text. */
  cell(index: number, column: ColumnId): string {
    return this.cellAt(index, COL[column]);
  }

  /** A cell's display text by column index (COL[...]). */
  cellAt(index: number, col: number): string {
    if (!(index >= 0 && index < this.length)) return '';
    const seg = this.parts[this.partOf[index]!]!.seg;
    return seg.dict[seg.ids[(index - seg.from) * NCOL + col]!] ?? '';
  }

  /** A column's texts, read row by row (`get(i)`). */
  column(column: ColumnId): (index: number) => string {
    const col = COL[column];
    return (i) => this.cellAt(i, col);
  }

  private list(index: number, l: number): { part: Part; codes: Uint32Array } | undefined {
    if (!(index >= 0 && index < this.length)) return undefined;
    const part = this.parts[this.partOf[index]!]!;
    const r = index - part.from;
    const starts = part.starts[l]!;
    const codes = part.codes[l]!;
    const a = Math.min(starts[r] ?? 0, codes.length);
    return { part, codes: codes.subarray(a, Math.min(Math.max(starts[r + 1] ?? a, a), codes.length)) };
  }

  /** A row's rDNS names. */
  rdns(index: number): string[] {
    const l = this.list(index, L.rdns);
    return l && l.codes.length ? Array.from(l.codes, (k) => l.part.strings[k] ?? '') : [];
  }

  /** A row's DKIM signatures. */
  dkims(index: number): Signature[] {
    const l = this.list(index, L.dkims);
    return l ? signaturesOf(l.codes, l.part.strings) : [];
  }

  /** A row's extra fields as [name, text, …]. */
  extraPairs(index: number): string[] {
    const l = this.list(index, L.extras);
    if (!l) return [];
    const out = Array.from(l.codes, (k) => l.part.strings[k] ?? '');
    if (out.length % 2) out.pop();
    return out;
  }

  /** An extra field's text on a row ('' when the row lacks it). */
  extra(index: number, name: string): string {
    const l = this.list(index, L.extras);
    if (!l) return '';
    const { codes, part } = l;
    for (let k = 0; k + 1 < codes.length; k += 2) if (part.strings[codes[k]!] === name) return part.strings[codes[k + 1]!] ?? '';
    return '';
  }
}

function signaturesOf(codes: Uint32Array, strings: readonly string[]): Signature[] {
  const out: Signature[] = [];
  for (let k = 0; k + 2 < codes.length; k += 3) out.push({ domain: strings[codes[k]!] ?? '', selector: strings[codes[k + 1]!] ?? '', result: strings[codes[k + 2]!] ?? '' });
  return out;
}
