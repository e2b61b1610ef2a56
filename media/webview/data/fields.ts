/**
 * Fields as dictionary-coded typed arrays (fieldTypes.ts), for facets, groups and the trend's
 * split: built on first use and extended as rows are appended, so a field costs nothing until
 * it is asked for and a streamed chunk costs only its own rows.
 */
import { GROUP_FIELDS, type ColumnId, type FacetId, type GroupField } from '../../../src/shared/columns';
import { L } from '../../../src/shared/rowCodec';
import { NO_SIGNATURES } from '../format';
import { codeColumnSteps, drain } from './columnScan';
import type { FieldCodes, FieldIndex } from './fieldTypes';
import { networkKey } from './network';
import { StringTable } from './stringTable';
import type { RowStore } from './store';

/** Any field a facet, a group-by or a split can use. */
export type FieldId = FacetId | GroupField;

/** The value of a row without any (no DKIM signature, no rDNS name). */
export const NO_VALUE = NO_SIGNATURES;

const COLUMN_FIELDS: Partial<Record<string, ColumnId>> = {
  source: 'source', ipAddress: 'ipAddress', reporter: 'reporter', visibleFrom: 'visibleFrom', returnPath: 'returnPath',
  to: 'to', ipCountryCode: 'ipCountryCode', spf: 'spf', alignedSpf: 'alignedSpf', alignedDkim: 'alignedDkim',
  dmarcResult: 'dmarcResult', category: 'category', dmarc: 'dmarc', dkimAligned: 'dkimAligned',
  rowClass: 'rowClass', spfReason: 'spfReason', dkimReason: 'dkimReason', override: 'override',
};

type MultiOf = (store: RowStore, i: number) => readonly string[];
/** Multi-valued fields that are one entry of a chunk's list: every `stride` codes, the one at `at`. */
const LIST_FIELDS: Partial<Record<string, { list: number; stride: number; at: number }>> = {
  rdns: { list: L.rdns, stride: 1, at: 0 },
  dkim: { list: L.dkims, stride: 3, at: 2 },
  dkimDomain: { list: L.dkims, stride: 3, at: 0 },
  dkimSelector: { list: L.dkims, stride: 3, at: 1 },
};
const MULTI_FIELDS: Partial<Record<string, MultiOf>> = {
  rdns: (s, i) => s.rdns(i),
  dkim: (s, i) => s.dkims(i).map((d) => d.result),
  dkimDomain: (s, i) => s.dkims(i).map((d) => d.domain),
  dkimSelector: (s, i) => s.dkims(i).map((d) => d.selector),
  dkimPair: (s, i) => s.dkims(i).map((d) => `${d.domain} s=${d.selector}`),
};

export function isMultiField(id: FieldId): boolean {
  return MULTI_FIELDS[id] !== undefined;
}

/** Whether `id` names a field (a built-in one, or `extra:<name>`). Untrusted input (saved state) goes through this. */
export function isFieldId(id: unknown): id is FieldId {
  if (typeof id !== 'string') return false;
  if (id.startsWith('extra:')) return id.length > 6 && id.length <= 206;
  return (GROUP_FIELDS as readonly string[]).includes(id) || id === 'dkim';
}

class Builder {
  private readonly table = new StringTable();
  readonly dict = this.table.dict;
  codes: FieldCodes = new Uint32Array(1024);
  start: Uint32Array | undefined;
  used = 0;
  built = 0;

  constructor(
    readonly generation: number,
    multi: boolean,
  ) {
    if (multi) this.start = new Uint32Array(1025);
  }

  code(value: string): number {
    return this.table.code(value);
  }

  find(value: string): number | undefined {
    return this.table.find(value);
  }

  /** Room for `codes` codes and `rows` rows; the codes' array, four bytes a code (what writers write into). */
  reserve(codes: number, rows: number): Uint32Array {
    // Codes are written four bytes each: a compacted array (compact()) goes back to four first.
    if (this.codes.length < codes || !(this.codes instanceof Uint32Array)) {
      const b = new Uint32Array(Math.max(codes, this.codes instanceof Uint32Array ? this.codes.length * 2 : 0));
      // A multi-valued field has `used` codes; a single-valued one a code per built row.
      b.set(this.codes.subarray(0, this.start ? this.used : this.built));
      this.codes = b;
    }
    if (this.start && this.start.length < rows + 1) {
      const b = new Uint32Array(Math.max(rows + 1, this.start.length * 2));
      b.set(this.start.subarray(0, this.built + 1));
      this.start = b;
    }
    return this.codes as Uint32Array;
  }

  /**
   * The codes in one byte each where the values are at most 256, two where at most 65,536, in an
   * array of exactly the codes used: at a million rows, 15 of the 18 fields a page builds have
   * fewer than 20 values (3 MB each saved), and a multi-valued field's array may be half unused.
   * Only once every row is in: any later write goes through reserve(), which widens it again.
   */
  compact(): number {
    const n = this.start ? this.used : this.built;
    if (this.codes.length < n) return 0;
    const k = this.dict.length;
    const Narrow = k <= 0x100 ? Uint8Array : k <= 0x10000 ? Uint16Array : Uint32Array;
    if (this.codes instanceof Narrow && this.codes.length === n) return 0;
    const before = this.codes.byteLength;
    const c = new Narrow(n);
    c.set(this.codes.subarray(0, n));
    this.codes = c;
    return before - c.byteLength;
  }

  view(): FieldIndex {
    return this.start ? { kind: 'multi', dict: this.dict, start: this.start, codes: this.codes } : { kind: 'single', dict: this.dict, codes: this.codes };
  }
}

/** Indexed in idle time: with ~one distinct address a row, the costliest fields to group by. */
const ADDRESS_FIELDS = ['ipAddress', 'ipNetwork'] as const;

/** A field made whole from every row each time its key changes (not extended row by row): the verdict of a row's source. */
export interface ComputedField {
  key(): string;
  build(): FieldIndex;
}

export class Fields {
  private readonly builders = new Map<FieldId, Builder>();
  private readonly computed = new Map<FieldId, { field: ComputedField; memo?: { key: string; index: FieldIndex } }>();
  private readonly networks = new Map<string, string>();
  /** The address field being indexed in idle time (prepareAddresses). */
  private addressJob: { generation: number; steps: Generator<void, void, void> } | undefined;

  constructor(private readonly store: RowStore) {}

  /** Makes `id` a computed field. */
  define(id: FieldId, field: ComputedField): void {
    this.computed.set(id, { field });
  }

  /** The field's index over every row stored now. */
  get(id: FieldId): FieldIndex {
    const c = this.computed.get(id);
    if (c) {
      const key = c.field.key();
      if (c.memo?.key !== key) c.memo = { key, index: c.field.build() };
      return c.memo.index;
    }
    return this.builder(id).view();
  }

  /** The code of a value in a field, if any row has it. */
  find(id: FieldId, value: string): number | undefined {
    if (this.computed.has(id)) {
      const k = this.get(id).dict.indexOf(value);
      return k < 0 ? undefined : k;
    }
    return this.builder(id).find(value);
  }

  /**
   * The fields built over every row stored now, each in its narrowest codes (Builder.compact), one
   * at a time while `more()` says so (at least one; ~1 ms a field at a million rows): for idle
   * time once the rows are all in. False when none was left to compact.
   */
  compact(more: () => boolean = () => false): boolean {
    let done = false;
    for (const b of this.builders.values()) {
      if (b.generation !== this.store.generation || b.built < this.store.length || b.compact() === 0) continue;
      done = true;
      if (!more()) break;
    }
    return done;
  }

  /** Bytes in the fields' typed arrays. */
  bytes(): number {
    let n = 0;
    for (const b of this.builders.values()) n += b.codes.byteLength + (b.start?.byteLength ?? 0);
    return n;
  }

  /** The value of a single-valued field on one row (for labels and exports). */
  valueOf(id: FieldId, row: number): string {
    const col = COLUMN_FIELDS[id];
    if (col) return this.store.cell(row, col);
    if (id === 'ipNetwork') return this.network(this.store.cell(row, 'ipAddress'));
    if (this.computed.has(id)) {
      const f = this.get(id);
      return f.kind === 'single' ? f.dict[f.codes[row]!] ?? '' : '';
    }
    if (id.startsWith('extra:')) return this.store.extra(row, id.slice(6));
    return '';
  }

  private network(ip: string): string {
    let key = this.networks.get(ip);
    if (key === undefined) {
      key = networkKey(ip);
      this.networks.set(ip, key);
    }
    return key;
  }

  /** Whether the field's index covers every row stored now. */
  isBuilt(id: FieldId): boolean {
    if (this.computed.has(id)) return this.computed.get(id)!.memo?.key === this.computed.get(id)!.field.key();
    const b = this.builders.get(id);
    return b !== undefined && b.generation === this.store.generation && b.built >= this.store.length;
  }

  /**
   * The address fields' indexes (group by IP address or network), a step at a time while
   * `more()` says so (at least one). False once they cover every row stored now.
   */
  prepareAddresses(more: () => boolean): boolean {
    do {
      if (!this.addressJob || this.addressJob.generation !== this.store.generation) {
        const id = ADDRESS_FIELDS.find((f) => !this.isBuilt(f));
        if (!id) {
          this.addressJob = undefined;
          return false;
        }
        this.addressJob = { generation: this.store.generation, steps: this.prepareSteps(id) };
      }
      if (this.addressJob.steps.next().done) this.addressJob = undefined;
    } while (more());
    return true;
  }

  /**
   * Builds an address field's index a few chunks at a time (a step yields between them), for
   * idle time: a first group-by of a million rows by address spent ~1 s building it. A `get`
   * meanwhile finishes it at once; a step after that, or after the rows changed, changes nothing.
   */
  *prepareSteps(id: 'ipAddress' | 'ipNetwork'): Generator<void, void, void> {
    const b = this.current(id);
    const n = this.store.length;
    if (b.built >= n) return;
    const codes = b.reserve(n, n);
    const code = id === 'ipNetwork' ? (ip: string) => b.code(networkKey(ip)) : (text: string) => b.code(text);
    yield* codeColumnSteps(this.store, 'ipAddress', b.built, code, codes, (done) => {
      if (this.builders.get(id) === b && b.codes === codes && b.generation === this.store.generation) b.built = Math.max(b.built, Math.min(done, n));
    });
  }

  private builder(id: FieldId): Builder {
    const b = this.current(id);
    if (b.built < this.store.length) this.extend(id, b);
    return b;
  }

  /** The field's builder for the rows as they are (a new one when they were replaced), not extended. */
  private current(id: FieldId): Builder {
    const s = this.store;
    let b = this.builders.get(id);
    if (!b || b.generation !== s.generation) {
      b = new Builder(s.generation, isMultiField(id));
      this.builders.set(id, b);
      if (id === 'ipNetwork') this.networks.clear();
    }
    return b;
  }

  private extend(id: FieldId, b: Builder): void {
    const s = this.store;
    const n = s.length;
    const multi = MULTI_FIELDS[id];
    if (!multi) {
      const codes = b.reserve(n, n);
      const col = COLUMN_FIELDS[id];
      // A column's value (or an address's network) is looked up once per distinct text of each
      // chunk, not once per row: at a million rows, a million map lookups fewer per field.
      if (col) drain(codeColumnSteps(s, col, b.built, (text) => b.code(text), codes));
      else if (id === 'ipNetwork') drain(codeColumnSteps(s, 'ipAddress', b.built, (ip) => b.code(networkKey(ip)), codes));
      else for (let i = b.built; i < n; i++) codes[i] = b.code(this.valueOf(id, i));
      b.built = n;
      return;
    }
    const list = LIST_FIELDS[id];
    if (list) {
      this.extendList(b, list);
      return;
    }
    const start = () => b.start!;
    for (let i = b.built; i < n; i++) {
      const values = multi(s, i);
      const out = b.reserve(b.used + Math.max(1, values.length), i + 1);
      const first = b.used;
      if (values.length === 0) out[b.used++] = b.code(NO_VALUE);
      for (const v of values) {
        const c = b.code(v);
        let seen = false;
        for (let j = first; j < b.used; j++) if (out[j] === c) seen = true;
        if (!seen) out[b.used++] = c;
      }
      start()[i + 1] = b.used;
      // reserve() copies what is built so far when it grows the arrays.
      b.built = i + 1;
    }
  }

  /**
   * A multi-valued field read straight from the chunks' lists: each chunk's string looked up
   * once, no signature objects or arrays per row (what `MULTI_FIELDS` gives, value for value:
   * distinct values per row in order, NO_VALUE for a row without any). While a million rows
   * stream in, the DKIM result and domain facets were built from ~2 objects a row.
   */
  private extendList(b: Builder, spec: { list: number; stride: number; at: number }): void {
    const { stride, at } = spec;
    let local = new Int32Array(0);
    let noValue = -1;
    for (const part of this.store.listParts(spec.list, b.built)) {
      const { codes, strings } = part;
      const nStr = strings.length;
      if (local.length < nStr + 1) local = new Int32Array(Math.max(nStr + 1, local.length * 2));
      // local[k]: the code of strings[k] (k = nStr: of '', for codes past the strings), -1 not yet.
      local.fill(-1, 0, nStr + 1);
      // At most one code per value and one per row without any.
      const out = b.reserve(b.used + Math.ceil(codes.length / stride) + part.count, part.from + part.count);
      noValue = listRows(b, part, stride, at, local, out, noValue);
      b.built = part.from + part.count;
    }
  }
}

/**
 * extendList's rows of one part; gives the code of NO_VALUE (-1 while none was needed). A function
 * of its own: as loops inside the method, V8 compiled the row loop on its own (on-stack
 * replacement) and bailed out of that code each time it ended, once per chunk (1,014 times over a
 * million rows in bench:search with --trace-deopt), the rest then run in the interpreter.
 */
function listRows(b: Builder, part: { from: number; count: number; starts: ArrayLike<number>; codes: ArrayLike<number>; strings: readonly string[] }, stride: number, at: number, local: Int32Array, out: Uint32Array, noValue: number): number {
  const { starts, codes, strings } = part;
  const nStr = strings.length;
  const start = b.start!;
  for (let r = Math.max(0, b.built - part.from); r < part.count; r++) {
    const a = Math.min(starts[r] ?? 0, codes.length);
    const e = Math.min(Math.max(starts[r + 1] ?? a, a), codes.length);
    const first = b.used;
    if (e - a < stride) {
      if (noValue < 0) noValue = b.code(NO_VALUE);
      out[b.used++] = noValue;
    }
    for (let k = a; k + stride <= e; k += stride) {
      const sk = Math.min(codes[k + at]!, nStr);
      let c = local[sk]!;
      if (c < 0) c = local[sk] = b.code(strings[sk] ?? '');
      let seen = false;
      for (let j = first; j < b.used; j++) if (out[j] === c) seen = true;
      if (!seen) out[b.used++] = c;
    }
    start[part.from + r + 1] = b.used;
  }
  return noValue;
}
