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
import { COLUMNS, type ColumnId } from '../../../src/shared/columns';
import { copyLists, L, S, type Codes, type RowChunk } from '../../../src/shared/rowCodec';
import { dkimText, valueLabel } from '../format';
import { ADVICE_COLUMNS, ADVICE_LABELS_MAX, adviceCellIds } from './adviceLabels';
import { isoUtcMs } from './isoDate';
import { codeColumnSteps, drain } from './columnScan';
import { SearchIndex, type Segment } from './searchIndex';
import { asciiBits } from './searchBits';
import type { Facts } from './fieldTypes';
import { StringTable } from './stringTable';
import { ListIds } from './listIds';

export const COL: Record<ColumnId, number> = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as Record<ColumnId, number>;

/** [column, the chunk's scalar field it shows, …]: as is (SCALAR_COLS) or by its label (ADVICE_COLS); others are derived (appendChunk). */
const colsOf = (advice: boolean): readonly number[] => COLUMNS.flatMap((c, col) => (c in S && ADVICE_COLUMNS.has(c) === advice ? [col, S[c as keyof typeof S]] : []));
const [SCALAR_COLS, ADVICE_COLS] = [colsOf(false), colsOf(true)];

const DISPOSITION_CODE = new Map<string, number>([['none', 0], ['quarantine', 1], ['reject', 2]]);

/** A DKIM signature as the table keeps it. */
export interface Signature { domain: string; selector: string; result: string }

/** `d=mcsv.net s=k2 pass`: one signature as the table and the search show it. */
export function signatureText(s: Signature): string {
  return `d=${s.domain || '(none)'} s=${s.selector || '(none)'} ${valueLabel(s.result)}`;
}

function grow<T extends Float64Array | Uint8Array | Uint32Array>(a: T, cap: number, length: number, make: (n: number) => T): T {
  if (a.length >= cap) return a;
  const b = make(cap);
  b.set(a.subarray(0, length));
  return b;
}

/** A column's distinct texts (`uniq`, in the order first seen) and each row's among them (`code`). */
export interface ColumnCodes {
  uniq: string[];
  code: Uint32Array;
}

/** One appended chunk: its rows' cells (a search segment) and lists. */
interface Part {
  from: number;
  seg: Segment;
  /** The chunk's strings (list codes index these). */
  strings: readonly string[];
  /** Per list (L.rdns, L.dkims, L.extras): row r's codes are codes[starts[r] … starts[r + 1]). */
  starts: Codes[];
  codes: Codes[];
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
  /** Per column, its codes as far as built (see columnCodes). */
  private codes = new Map<ColumnId, { generation: number; table: StringTable; code: Uint32Array; built: number }>();
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
  /** Scratch for appendChunk, reused from chunk to chunk: distinct DKIM and rDNS lists and their cells' ids. */
  private readonly dkimLists = new ListIds();
  private readonly rdnsLists = new ListIds();
  private dkimIds = new Uint32Array(0);
  private rdnsIds = new Uint32Array(0);

  clear(): void {
    this.length = 0;
    this.version++;
    this.generation++;
    this.search.clear();
    this.parts = [];
    this.codes.clear();
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

  /** Appends the rows of a binary chunk (src/shared/rowCodec.ts). `expectedTotal` sizes the arrays once. */
  appendChunk(c: RowChunk, expectedTotal = 0): void {
    this.ensureCapacity(Math.max(expectedTotal, this.length + c.count));
    const strings = c.strings;
    const nStr = strings.length;
    const sc = c.scalars;
    // The chunk's strings are its segment's first ids; derived texts are added to it. At most: the
    // chunk's strings, '', pass, fail, per row a derived emails, DKIM, DKIM results and rDNS text,
    // one per extra field, and the advice codes' labels.
    const maxIds = nStr + 3 + c.count * 4 + (c.listCodes[L.extras]!.length >> 1) + ADVICE_LABELS_MAX;
    // The search's character bits of the chunk's strings, from its bytes (ASCII chunks: all the
    // API's rows, nearly): ~0.14 ms a chunk in Node, half what reading the strings takes.
    const bits = c.ascii && asciiBits(c.ascii.units, c.ascii.ends);
    const w = this.search.begin(this.length, c.count, strings, maxIds, bits, bits ? c.ascii!.text : undefined);
    const seg = w.segment;
    // Copies: the chunk's buffer is not kept (its strings' text is: they are slices of it).
    const [starts, codes] = copyLists(c);
    const partIndex = this.parts.push({ from: this.length, seg, strings, starts, codes }) - 1;
    const emptyId = w.add('');
    const passId = w.add('pass');
    const failId = w.add('fail');
    // Facts per string of the chunk, once, instead of string comparisons per row.
    const isPass = new Uint8Array(nStr);
    const disp = new Uint8Array(nStr);
    for (let k = 0; k < nStr; k++) {
      const t = strings[k]!;
      // Short strings only: hashing every long text of the chunk for a map lookup was the
      // costliest line of reading a chunk.
      isPass[k] = t.length === 4 && t === 'pass' ? 1 : 0;
      disp[k] = t.length <= 10 ? DISPOSITION_CODE.get(t) ?? 3 : 3;
    }
    const dates = new Float64Array(nStr);
    const dateKnown = new Uint8Array(nStr);
    const text = (code: number): string => strings[code] ?? '';
    // Derived cells, once per distinct value or list in the chunk: their search id.
    const emailIds = new Map<number, number>();
    const ids = seg.ids;
    const M = nStr + 1;
    const [rdS, dkS, exS] = starts as [Codes, Codes, Codes];
    const [rdC, dkC, exC] = codes as [Codes, Codes, Codes];
    const dkimLists = this.dkimLists;
    dkimLists.reset(dkC, c.count);
    /** Per DKIM list entry: its signatures' cell, then its results' cell (search ids). */
    const dkimIds = (this.dkimIds = grow(this.dkimIds, 2 * c.count, 0, (k) => new Uint32Array(k)));
    // Rows with several rDNS names are rare: their table is made on the first.
    let rdnsLists: ListIds | undefined;
    const rdnsIds = (this.rdnsIds = grow(this.rdnsIds, c.count, 0, (k) => new Uint32Array(k)));
    const pairIds = new Map<number, number>();
    let emptyDkim = -1;
    const scalarCols = SCALAR_COLS;
    const adviceId = adviceCellIds(strings, emptyId, (label) => w.add(label));
    const spfCodes = sc[S.alignedSpf]!;
    const dkimCodes = sc[S.alignedDkim]!;
    const dateCodes = sc[S.date]!;
    const dmarcCodes = sc[S.dmarc]!;
    const cnt = c.count;
    for (let r = 0; r < c.count; r++) {
      const i = this.length;
      for (let k = 0; k < scalarCols.length; k += 2) {
        const code = sc[scalarCols[k + 1]!]![r]!;
        ids[scalarCols[k]! * cnt + r] = code < nStr ? code : emptyId;
      }
      for (let k = 0; k < ADVICE_COLS.length; k += 2) ids[ADVICE_COLS[k]! * cnt + r] = adviceId(sc[ADVICE_COLS[k + 1]!]![r]!);
      const n = c.emails[r]!;
      const emails = Number.isFinite(n) && n > 0 ? n : 0;
      let e = emailIds.get(emails);
      if (e === undefined) emailIds.set(emails, (e = w.add(String(emails))));
      ids[COL.emails * cnt + r] = e;
      const spfPass = isPass[spfCodes[r]!] ?? 0;
      const dkimPass = isPass[dkimCodes[r]!] ?? 0;
      const pass = spfPass | dkimPass;
      ids[COL.dmarcResult * cnt + r] = pass ? passId : failId;
      // Row r's list spans, clamped (a broken chunk cannot read past its lists).
      const da = Math.min(dkS[r]!, dkC.length);
      const db = Math.min(Math.max(dkS[r + 1]!, da), dkC.length);
      if (db === da) {
        ids[COL.dkimDomains * cnt + r] = emptyId;
        if (emptyDkim < 0) emptyDkim = w.add(dkimText([]));
        ids[COL.dkim * cnt + r] = emptyDkim;
      } else {
        const size = dkimLists.size;
        const e = dkimLists.entry(da, db);
        if (e === size) {
          const signatures = signaturesOf(dkC.subarray(da, db), strings);
          dkimIds[2 * e] = w.add(signatures.map(signatureText).join('\n'));
          dkimIds[2 * e + 1] = w.add(dkimText(signatures.map((x) => x.result)));
        }
        ids[COL.dkimDomains * cnt + r] = dkimIds[2 * e]!;
        ids[COL.dkim * cnt + r] = dkimIds[2 * e + 1]!;
      }
      const ra = Math.min(rdS[r]!, rdC.length);
      const rb = Math.min(Math.max(rdS[r + 1]!, ra), rdC.length);
      if (rb - ra === 1) ids[COL.rdns * cnt + r] = rdC[ra]! < nStr ? rdC[ra]! : emptyId;
      else if (rb === ra) ids[COL.rdns * cnt + r] = emptyId;
      else {
        if (!rdnsLists) (rdnsLists = this.rdnsLists).reset(rdC, c.count);
        const size = rdnsLists.size;
        const e = rdnsLists.entry(ra, rb);
        if (e === size) rdnsIds[e] = w.add(Array.from(rdC.subarray(ra, rb), text).join(', '));
        ids[COL.rdns * cnt + r] = rdnsIds[e]!;
      }
      const xa = Math.min(exS[r]!, exC.length);
      const xb = Math.min(Math.max(exS[r + 1]!, xa), exC.length);
      for (let k = xa; k + 1 < xb; k += 2) {
        const nameCode = Math.min(exC[k]!, nStr);
        const valueCode = Math.min(exC[k + 1]!, nStr);
        const key = nameCode * M + valueCode;
        let x = pairIds.get(key);
        if (x === undefined) {
          const name = text(nameCode);
          this.extraNames.add(name);
          pairIds.set(key, (x = w.add(`${name}=${text(valueCode)}`)));
        }
        seg.extraIds.push(x);
      }
      seg.extraStart[r + 1] = seg.extraIds.length;
      this.partOf[i] = partIndex;
      this.emails[i] = emails;
      const dateCode = dateCodes[r]!;
      if (dateCode < nStr && !dateKnown[dateCode]) {
        dateKnown[dateCode] = 1;
        dates[dateCode] = isoUtcMs(text(dateCode));
      }
      const ms = dateCode < nStr ? dates[dateCode]! : Number.NaN;
      this.dateMs[i] = Number.isFinite(ms) ? ms : Number.NaN;
      this.dmarcPass[i] = pass;
      this.spfAligned[i] = spfPass;
      this.dkimAligned[i] = dkimPass;
      this.disposition[i] = disp[dmarcCodes[r]!] ?? 3;
      this.length++;
    }
    // With those bits, the rest of the segment's preparation (the derived texts' bits, each
    // column's distinct ids) is cheap enough to do now: the first keystrokes after a load do not
    // wait for idle time, which sorts and repaints take first (bench:panel at a million rows:
    // "m" then "mi" met unprepared segments, 89–114 and 503–516 ms in the page).
    if (bits) seg.prepare();
    this.version++;
  }

  /** Bytes in typed arrays (outside the JS heap that `performance.memory` reports). */
  bytes(): number {
    let n = this.search.bytes();
    for (const a of [this.emails, this.dateMs, this.dmarcPass, this.spfAligned, this.dkimAligned, this.disposition, this.partOf]) n += a.byteLength;
    for (const p of this.parts) for (const a of [...p.starts, ...p.codes]) n += a.byteLength;
    for (const c of this.codes.values()) n += c.code.byteLength;
    return n;
  }

  /** A cell's display text. */
  cell(index: number, column: ColumnId): string {
    return this.cellAt(index, COL[column]);
  }

  /** A cell's display text by column index (COL[...]). */
  cellAt(index: number, col: number): string {
    if (!this.has(index)) return '';
    const seg = this.parts[this.partOf[index]!]!.seg;
    return seg.dict[seg.ids[col * seg.count + (index - seg.from)]!] ?? '';
  }

  /**
   * A column's distinct texts and each row's code among them, kept per column and extended as
   * rows arrive (unless `keep` is false and they are not kept already). Read through the
   * segments' string ids, so a text is looked up once per chunk that has it, not once per row.
   * Do not modify.
   */
  columnCodes(column: ColumnId, keep = true): ColumnCodes {
    return drain(this.columnCodesSteps(column, keep));
  }

  /** columnCodes a few chunks at a time (a step yields between them): for work in idle time. */
  *columnCodesSteps(column: ColumnId, keep = true): Generator<void, ColumnCodes, void> {
    let c = this.codes.get(column);
    if (!c || c.generation !== this.generation) {
      c = { generation: this.generation, table: new StringTable(), code: new Uint32Array(0), built: 0 };
      // Kept only when asked (4 bytes a row): a sort needs them once, for its ranks.
      if (keep) this.codes.set(column, c);
    }
    if (c.built < this.length) {
      const { table } = c;
      const code = (c.code = grow(c.code, Math.max(this.emails.length, this.length), c.built, (k) => new Uint32Array(k)));
      const built = c;
      // Left half-way, the rows built so far stay built.
      yield* codeColumnSteps(this, column, c.built, (text) => table.code(text), code, (n) => (built.built = n));
    }
    return { uniq: c.table.dict, code: c.code.subarray(0, this.length) };
  }

  /** The segments of the chunks appended, in row order (their rows' cells: searchIndex.ts). */
  segments(): readonly Segment[] {
    return this.parts.map((p) => p.seg);
  }

  /** The position among segments() of the one holding row `index`. */
  segmentOf(index: number): number {
    return this.has(index) ? this.partOf[index]! : this.parts.length;
  }

  /** A column's texts, read row by row (`get(i)`). */
  column(column: ColumnId): (index: number) => string {
    const col = COL[column];
    return (i) => this.cellAt(i, col);
  }

  /** Whether `index` is a row's (a whole number below the length). */
  private has(index: number): boolean {
    return Number.isInteger(index) && index >= 0 && index < this.length;
  }

  private list(index: number, l: number): { part: Part; codes: Codes } | undefined {
    if (!this.has(index)) return undefined;
    const part = this.parts[this.partOf[index]!]!;
    const r = index - part.from;
    const starts = part.starts[l]!;
    const codes = part.codes[l]!;
    const a = Math.min(starts[r] ?? 0, codes.length);
    return { part, codes: codes.subarray(a, Math.min(Math.max(starts[r + 1] ?? a, a), codes.length)) };
  }

  /**
   * The chunks from the one holding row `from` on, with list `l` (L.rdns, L.dkims, L.extras):
   * row (from + r)'s codes are codes[starts[r] … starts[r + 1]) into `strings` (clamp them: a
   * broken chunk's may run past). For the fields' one pass a chunk (fields.ts). Do not modify.
   */
  listParts(l: number, from: number): { from: number; count: number; starts: Codes; codes: Codes; strings: readonly string[] }[] {
    const out = [];
    for (let p = this.segmentOf(from); p < this.parts.length; p++) {
      const part = this.parts[p]!;
      out.push({ from: part.from, count: part.seg.count, starts: part.starts[l]!, codes: part.codes[l]!, strings: part.strings });
    }
    return out;
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

function signaturesOf(codes: Codes, strings: readonly string[]): Signature[] {
  const out: Signature[] = [];
  for (let k = 0; k + 2 < codes.length; k += 3) out.push({ domain: strings[codes[k]!] ?? '', selector: strings[codes[k + 1]!] ?? '', result: strings[codes[k + 2]!] ?? '' });
  return out;
}
