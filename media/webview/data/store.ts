/**
 * The records, column by column, DOM-free. Rows arrive as tuples (src/shared/columns.ts) chunk
 * by chunk and are only appended; a reload clears them. Each row keeps its display text per
 * column, a search index over every cell (searchIndex.ts), and numeric facts in typed arrays (emails,
 * date, pass flags, disposition) for the aggregations in this folder.
 *
 * A row is known by its index: its position in the order the host sent the rows, which is the
 * host's record index.
 */
import { COLUMNS, T, type ColumnId } from '../../../src/shared/columns';
import { decodeChunk, encodeChunk, L, listOf, S, type RowChunk, type RowFields } from '../../../src/shared/rowCodec';
import { dkimText, valueLabel } from '../format';
import { SearchIndex } from './searchIndex';
import type { Facts } from './fieldTypes';

export const COL: Record<ColumnId, number> = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as Record<ColumnId, number>;

/** The empty list rows without rdns, extras or DKIM share (never modified). */
const NONE: readonly never[] = Object.freeze([]);

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

function grow<T extends Float64Array | Uint8Array>(a: T, cap: number, length: number, make: (n: number) => T): T {
  if (a.length >= cap) return a;
  const b = make(cap);
  b.set(a.subarray(0, length));
  return b;
}

export class RowStore implements Facts {
  length = 0;
  /** Bumped on every change, so caches know when they are stale. */
  version = 0;
  /** Bumped when the rows are cleared (a reload), so an append-only cache knows to start over. */
  generation = 0;
  /** Display text per column (index COL[...]). */
  readonly text: string[][] = COLUMNS.map(() => []);
  /** Every cell's text, for the search (searchIndex.ts). */
  readonly search = new SearchIndex();
  readonly rdns: string[][] = [];
  readonly dkims: Signature[][] = [];
  /** Extra fields per row as [name, text, …]; `extraNames` lists every name seen. */
  readonly extras: string[][] = [];
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
    for (const t of this.text) t.length = 0;
    this.search.clear();
    this.rdns.length = 0;
    this.dkims.length = 0;
    this.extras.length = 0;
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
  }

  /** Appends tuples (untrusted shapes are coerced: a missing field reads as ''), through the same binary chunk the host sends. */
  append(tuples: readonly unknown[], expectedTotal = 0): void {
    this.appendChunk(decodeChunk(encodeTuples(tuples)), expectedTotal);
  }

  /** Appends the rows of a binary chunk (src/shared/rowCodec.ts). `expectedTotal` sizes the arrays once. */
  appendChunk(c: RowChunk, expectedTotal = 0): void {
    this.ensureCapacity(Math.max(expectedTotal, this.length + c.count));
    const text = this.text;
    const search = this.search;
    const strings = c.strings;
    const sc = c.scalars;
    // The chunk's strings are its search segment's first ids; derived texts are added to it.
    const seg = search.begin(this.length, c.count, strings);
    const emptyId = seg.add('');
    const idOf = (code: number): number => (code < strings.length ? code : emptyId);
    const times = new Map<number, number>();
    const listText = (l: number, r: number): string[] => {
      const codes = listOf(c, l, r);
      if (codes.length === 0) return NONE as unknown as string[];
      const out = new Array<string>(codes.length);
      for (let k = 0; k < codes.length; k++) out[k] = strings[codes[k]!] ?? '';
      return out;
    };
    const put = (r: number, col: number, value: string, id: number): void => {
      text[col]!.push(value);
      seg.set(r, col, id);
    };
    // Derived cells, once per distinct combination in the chunk: [text, search id].
    const derived = new Map<string, [string, number]>();
    const cached = (key: string, make: () => string): [string, number] => {
      let d = derived.get(key);
      if (!d) {
        const v = make();
        derived.set(key, (d = [v, seg.add(v)]));
      }
      return d;
    };
    const emailCells = new Map<number, [string, number]>();
    const dkDomains = new Map<number | string, [string, number]>();
    const dkResults = new Map<number | string, [string, number]>();
    const cachedBy = (map: Map<number | string, [string, number]>, key: number | string, make: () => string): [string, number] => {
      let d = map.get(key);
      if (!d) {
        const v = make();
        map.set(key, (d = [v, seg.add(v)]));
      }
      return d;
    };
    /** Codes fit in 17 bits: three of them make one exact number. */
    const small = strings.length < 131072;
    for (let r = 0; r < c.count; r++) {
      const i = this.length;
      for (let col = 0; col < SCALAR_OF.length; col++) {
        const f = SCALAR_OF[col]!;
        if (f < 0) continue;
        const code = sc[f]![r]!;
        put(r, col, strings[code] ?? '', idOf(code));
      }
      const n = c.emails[r]!;
      const emails = Number.isFinite(n) && n > 0 ? n : 0;
      const alignedSpf = strings[sc[S.alignedSpf]![r]!] ?? '';
      const alignedDkim = strings[sc[S.alignedDkim]![r]!] ?? '';
      const pass = alignedSpf === 'pass' || alignedDkim === 'pass';
      const rdnsCodes = listOf(c, L.rdns, r);
      const rdns = listText(L.rdns, r);
      const dkCodes = listOf(c, L.dkims, r);
      const dk: Signature[] = [];
      for (let k = 0; k + 2 < dkCodes.length; k += 3) {
        dk.push({ domain: strings[dkCodes[k]!] ?? '', selector: strings[dkCodes[k + 1]!] ?? '', result: strings[dkCodes[k + 2]!] ?? '' });
      }
      const extras = listText(L.extras, r);
      if (extras.length % 2) extras.pop();
      let e = emailCells.get(emails);
      if (!e) {
        const v = String(emails);
        emailCells.set(emails, (e = [v, seg.add(v)]));
      }
      put(r, COL.emails, e[0], e[1]);
      const result = cached(pass ? 'p' : 'f', () => (pass ? 'pass' : 'fail'));
      put(r, COL.dmarcResult, result[0], result[1]);
      // One signature (the common case): keyed by its codes as one number, no key string built.
      const one = dkCodes.length === 3 && small;
      const dkKey = dkCodes.length === 0 ? -1 : one ? (dkCodes[0]! * 131072 + dkCodes[1]!) * 131072 + dkCodes[2]! : dkCodes.join(',');
      const domains = cachedBy(dkDomains, dkKey, () => dk.map(signatureText).join('\n'));
      put(r, COL.dkimDomains, domains[0], domains[1]);
      const results = cachedBy(dkResults, dkCodes.length === 0 ? -1 : one ? dkCodes[2]! : dkCodes.join(','), () => dkimText(dk.map((d) => d.result)));
      put(r, COL.dkim, results[0], results[1]);
      if (rdnsCodes.length === 1) put(r, COL.rdns, rdns[0]!, idOf(rdnsCodes[0]!));
      else {
        const joined = cached(`n${rdnsCodes.join(',')}`, () => rdns.join(', '));
        put(r, COL.rdns, joined[0], joined[1]);
      }
      const pairs: number[] = extras.length ? [] : (NONE as unknown as number[]);
      for (let k = 0; k < extras.length; k += 2) {
        this.extraNames.add(extras[k]!);
        pairs.push(cached(`x${extras[k]}\u0000${extras[k + 1]}`, () => `${extras[k]}=${extras[k + 1]}`)[1]);
      }
      seg.setExtras(r, pairs);
      this.rdns.push(rdns);
      this.dkims.push(dk);
      this.extras.push(extras);
      this.emails[i] = emails;
      const dateCode = sc[S.date]![r]!;
      let ms = times.get(dateCode);
      if (ms === undefined) times.set(dateCode, (ms = Date.parse(strings[dateCode] ?? '')));
      this.dateMs[i] = Number.isFinite(ms) ? ms : Number.NaN;
      this.dmarcPass[i] = pass ? 1 : 0;
      this.spfAligned[i] = alignedSpf === 'pass' ? 1 : 0;
      this.dkimAligned[i] = alignedDkim === 'pass' ? 1 : 0;
      this.disposition[i] = DISPOSITION_CODE.get(strings[sc[S.dmarc]![r]!] ?? '') ?? 3;
      this.length++;
    }
    this.version++;
  }

  cell(index: number, column: ColumnId): string {
    return this.text[COL[column]]![index] ?? '';
  }

  /** An extra field's text on a row ('' when the row lacks it). */
  extra(index: number, name: string): string {
    const e = this.extras[index];
    if (!e) return '';
    for (let k = 0; k < e.length; k += 2) if (e[k] === name) return e[k + 1]!;
    return '';
  }
}
