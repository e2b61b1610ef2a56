/**
 * The records, column by column, DOM-free. Rows arrive as tuples (src/shared/columns.ts) chunk
 * by chunk and are only appended; a reload clears them. Each row keeps its display text per
 * column, one lowercase haystack for the search, and numeric facts in typed arrays (emails,
 * date, pass flags, disposition) for the aggregations in this folder.
 *
 * A row is known by its index: its position in the order the host sent the rows, which is the
 * host's record index.
 */
import { COLUMNS, T, type ColumnId } from '../../../src/shared/columns';
import { decodeChunk, encodeChunk, L, listOf, S, type RowChunk, type RowFields } from '../../../src/shared/rowCodec';
import { dkimText, valueLabel } from '../format';
import type { Facts } from './fieldTypes';

export const COL: Record<ColumnId, number> = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as Record<ColumnId, number>;

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
  readonly hay: string[] = [];
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
    this.hay.length = 0;
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
    const strings = c.strings;
    const sc = c.scalars;
    const at = (f: number, i: number): string => strings[sc[f]![i]!] ?? '';
    const listText = (l: number, i: number): string[] => Array.from(listOf(c, l, i), (code) => strings[code] ?? '');
    for (let r = 0; r < c.count; r++) {
      const i = this.length;
      const n = c.emails[r]!;
      const emails = Number.isFinite(n) && n > 0 ? n : 0;
      const rdns = listText(L.rdns, r);
      const dkCodes = listText(L.dkims, r);
      const dk: Signature[] = [];
      for (let k = 0; k + 2 < dkCodes.length; k += 3) dk.push({ domain: dkCodes[k]!, selector: dkCodes[k + 1]!, result: dkCodes[k + 2]! });
      const extras = listText(L.extras, r);
      if (extras.length % 2) extras.pop();
      const alignedSpf = at(S.alignedSpf, r);
      const alignedDkim = at(S.alignedDkim, r);
      const pass = alignedSpf === 'pass' || alignedDkim === 'pass';
      const date = at(S.date, r);
      const cells: Record<ColumnId, string> = {
        source: at(S.source, r),
        ipAddress: at(S.ipAddress, r),
        emails: String(emails),
        dmarcResult: pass ? 'pass' : 'fail',
        alignedSpf,
        alignedDkim,
        dmarc: at(S.dmarc, r),
        date,
        category: at(S.category, r),
        visibleFrom: at(S.visibleFrom, r),
        dkimDomains: dk.map(signatureText).join('\n'),
        dkimAligned: at(S.dkimAligned, r),
        returnPath: at(S.returnPath, r),
        reporter: at(S.reporter, r),
        to: at(S.to, r),
        ipCountryCode: at(S.ipCountryCode, r),
        rdns: rdns.join(', '),
        spf: at(S.spf, r),
        dkim: dkimText(dk.map((d) => d.result)),
      };
      let hay = '';
      for (let col = 0; col < COLUMNS.length; col++) {
        const s = cells[COLUMNS[col]!];
        text[col]!.push(s);
        hay += `${s}\n`;
      }
      for (let k = 0; k < extras.length; k += 2) {
        this.extraNames.add(extras[k]!);
        hay += `${extras[k]}=${extras[k + 1]}\n`;
      }
      this.hay.push(hay.toLowerCase());
      this.rdns.push(rdns);
      this.dkims.push(dk);
      this.extras.push(extras);
      this.emails[i] = emails;
      const ms = Date.parse(date);
      this.dateMs[i] = Number.isFinite(ms) ? ms : Number.NaN;
      this.dmarcPass[i] = pass ? 1 : 0;
      this.spfAligned[i] = alignedSpf === 'pass' ? 1 : 0;
      this.dkimAligned[i] = alignedDkim === 'pass' ? 1 : 0;
      this.disposition[i] = DISPOSITION_CODE.get(cells.dmarc) ?? 3;
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
