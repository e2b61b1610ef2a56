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

function signatures(v: unknown): Signature[] {
  if (!Array.isArray(v)) return [];
  return v.map((d) => {
    const a = Array.isArray(d) ? d : [];
    return { domain: str(a[0]), selector: str(a[1]), result: str(a[2]) };
  });
}

/** `d=mcsv.net s=k2 pass`: one signature as the table and the search show it. */
export function signatureText(s: Signature): string {
  return `d=${s.domain || '(none)'} s=${s.selector || '(none)'} ${valueLabel(s.result)}`;
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

  /** Appends tuples (untrusted shapes are coerced: a missing field reads as ''). `expectedTotal` sizes the arrays once. */
  append(tuples: readonly unknown[], expectedTotal = 0): void {
    this.ensureCapacity(Math.max(expectedTotal, this.length + tuples.length));
    const text = this.text;
    for (const raw of tuples) {
      const t = (Array.isArray(raw) ? raw : []) as unknown[];
      const i = this.length;
      const n = typeof t[T.emails] === 'number' ? (t[T.emails] as number) : Number(t[T.emails]);
      const emails = Number.isFinite(n) && n > 0 ? n : 0;
      const rdns = strList(t[T.rdns]);
      const dk = signatures(t[T.dkims]);
      const extras = strList(t[T.extras]);
      if (extras.length % 2) extras.pop();
      const alignedSpf = str(t[T.alignedSpf]);
      const alignedDkim = str(t[T.alignedDkim]);
      const pass = alignedSpf === 'pass' || alignedDkim === 'pass';
      const date = str(t[T.date]);
      const cells: Record<ColumnId, string> = {
        source: str(t[T.source]),
        ipAddress: str(t[T.ipAddress]),
        emails: String(emails),
        dmarcResult: pass ? 'pass' : 'fail',
        alignedSpf,
        alignedDkim,
        dmarc: str(t[T.dmarc]),
        date,
        category: str(t[T.category]),
        visibleFrom: str(t[T.visibleFrom]),
        dkimDomains: dk.map(signatureText).join('\n'),
        dkimAligned: str(t[T.dkimAligned]),
        returnPath: str(t[T.returnPath]),
        reporter: str(t[T.reporter]),
        to: str(t[T.to]),
        ipCountryCode: str(t[T.ipCountryCode]),
        rdns: rdns.join(', '),
        spf: str(t[T.spf]),
        dkim: dkimText(dk.map((d) => d.result)),
      };
      let hay = '';
      for (let c = 0; c < COLUMNS.length; c++) {
        const s = cells[COLUMNS[c]!];
        text[c]!.push(s);
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
