/**
 * A record's row as the server sent it (`raw`), without keeping the parsed object. Most rows hold
 * nothing but the documented fields (and `from`, equal to `visibleFrom`), in one of a few key
 * orders, with values the record itself holds unchanged (fastRecord takes them as they are). For
 * those the record keeps only its RowShape, shared by every row of that key order, and `rawOf`
 * builds the row again when it is asked for (the JSON view, an export, the disk cache): equal to
 * the parsed row, its keys in the same order, so its JSON text is the same. Rows with anything
 * else (a field not documented, a signature with a field more, a value the schema had to
 * normalise) keep their parsed object.
 *
 * Why: at a million rows the parsed objects were one object of ~17 fields a row on top of the
 * record, each made young by JSON.parse and copied by the scavenges it survived; the records'
 * own rDNS arrays are copied here by array literals, which V8 allocates straight in the old
 * generation once it sees that they live on, and their signature lists are shared between the
 * records of a response (StringPool.signatures). Measured (Node 20, 1M rows of
 * the API server through RecordsBodyStream): held 676 → 568 bytes a row, garbage collection
 * 1.13 → 0.72 s, parse CPU 5.06 → 4.73 s; bench:panel at 1M, the host's heap 777 → 646 MB.
 */
import type { DkimEntry, DmarcRecord } from './types';

/**
 * The documented fields of a row (§2.3 of the API contract), and `from`, which the API's rows
 * carry as well (§2.5): kept by shape only when it is the same domain as `visibleFrom`.
 */
const WIRE_FIELDS = new Set([
  'source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'rdns', 'emails',
  'category', 'date', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkims', 'reportId', 'from',
]);
const DKIM_FIELDS = new Set(['selector', 'domain', 'result']);
/** Distinct shapes one cache keeps; rows of further shapes keep their parsed object. */
const MAX_SHAPES = 64;

/** The order of a row's keys, and of its signatures' keys. Shared by the records of that shape. */
export interface RowShape {
  readonly keys: readonly string[];
  /** `from` is one of the keys (its value is then `visibleFrom`'s). */
  readonly hasFrom: boolean;
  /** Undefined for a shape first seen on a row without signatures. */
  readonly dkimKeys: readonly string[] | undefined;
}

/** True when `o`'s own keys are exactly `keys`, in that order. */
function hasKeys(o: object, keys: readonly string[] | undefined): boolean {
  if (!keys) return false;
  let i = 0;
  for (const k in o) {
    if (k !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

/** The keys of `o` when every one is in `allowed`; undefined otherwise. */
function keysIn(o: object, allowed: ReadonlySet<string>): string[] | undefined {
  const keys: string[] = [];
  for (const k in o) {
    if (!allowed.has(k)) return undefined;
    keys.push(k);
  }
  return keys;
}

/** How many keys two lists start with alike. */
function commonStart(a: readonly string[], b: readonly string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** The shapes of one response's rows (kept with its StringPool). */
export class ShapeCache {
  /** The shapes, by key list (to find one again), and in a list (to match rows against). */
  private readonly shapes = new Map<string, RowShape>();
  private readonly list: RowShape[] = [];
  /** common[a][b]: how many keys shapes a and b (indices in `list`) start with alike. */
  private readonly common: number[][] = [];
  /** The index of the last row's shape. */
  private last = 0;

  /**
   * The shape of a row whose documented fields the record holds unchanged, or undefined when its
   * parsed object has to be kept (a field not documented, signatures of another make).
   *
   * One pass over the row's keys: they are compared with the last row's shape, and where they
   * part, the walk goes on in a shape that starts alike and has this key there (rows of a response
   * come in a few shapes, as optional fields are sent or not).
   */
  of(row: object, dkims: readonly object[]): RowShape | undefined {
    const fields = row as Record<string, unknown>;
    const list = this.list;
    let at = list.length === 0 ? -1 : this.last;
    let i = 0;
    for (const k in row) {
      if (at < 0) break;
      if (list[at]!.keys[i] !== k) at = this.partingAt(at, i, k);
      i++;
    }
    if (at >= 0 && i !== list[at]!.keys.length) at = this.partingAt(at, i, undefined);
    if (at >= 0 && dkims.length > 0 && !signaturesFit(dkims, list[at]!.dkimKeys)) at = this.otherSignatures(at, dkims);
    if (at < 0) return this.add(row, dkims);
    this.last = at;
    const known = list[at]!;
    return !known.hasFrom || fields.from === fields.visibleFrom ? known : undefined;
  }

  /** A shape that starts as shape `at` does up to key `i` and has `key` there (undefined: has no more keys); -1 if none. */
  private partingAt(at: number, i: number, key: string | undefined): number {
    const common = this.common[at]!;
    for (let j = 0; j < this.list.length; j++) {
      if (common[j]! < i) continue;
      const keys = this.list[j]!.keys;
      if (key === undefined ? keys.length === i : keys[i] === key) return j;
    }
    return -1;
  }

  /** A shape with shape `at`'s keys whose signatures' keys fit these; -1 if none. */
  private otherSignatures(at: number, dkims: readonly object[]): number {
    const n = this.list[at]!.keys.length;
    const common = this.common[at]!;
    for (let j = 0; j < this.list.length; j++) {
      if (common[j] === n && this.list[j]!.keys.length === n && signaturesFit(dkims, this.list[j]!.dkimKeys)) return j;
    }
    return -1;
  }

  /** A row of no shape seen yet: its shape, now known, or undefined when its object has to be kept. */
  private add(row: object, dkims: readonly object[]): RowShape | undefined {
    const fields = row as Record<string, unknown>;
    const keys = keysIn(row, WIRE_FIELDS);
    if (!keys) return undefined;
    const hasFrom = keys.includes('from');
    if (hasFrom && fields.from !== fields.visibleFrom) return undefined;
    let dkimKeys: string[] | undefined;
    if (dkims.length > 0) {
      dkimKeys = keysIn(dkims[0]!, DKIM_FIELDS);
      if (!dkimKeys || dkimKeys.length !== DKIM_FIELDS.size || !signaturesFit(dkims, dkimKeys)) return undefined;
    }
    const id = `${keys.join(',')}|${dkimKeys?.join(',') ?? ''}`;
    let shape = this.shapes.get(id);
    if (!shape) {
      if (this.shapes.size >= MAX_SHAPES) return undefined;
      this.shapes.set(id, (shape = { keys, hasFrom, dkimKeys }));
      const n = this.list.length;
      const mine: number[] = [];
      for (let j = 0; j < n; j++) {
        const c = commonStart(keys, this.list[j]!.keys);
        mine.push(c);
        this.common[j]!.push(c);
      }
      mine.push(keys.length);
      this.common.push(mine);
      this.list.push(shape);
    }
    this.last = this.list.indexOf(shape);
    return shape;
  }
}

function signaturesFit(dkims: readonly object[], dkimKeys: readonly string[] | undefined): boolean {
  for (let i = 0; i < dkims.length; i++) if (!hasKeys(dkims[i]!, dkimKeys)) return false;
  return true;
}

/** The row's rDNS names in an array of the record's own (see the header). */
export function ownStrings(list: readonly string[]): string[] {
  switch (list.length) {
    case 0:
      return [];
    case 1:
      return [list[0]!];
    case 2:
      return [list[0]!, list[1]!];
    default:
      return list.slice();
  }
}

/** The row as the server sent it: the record's parsed object, or one built again from its shape. */
export function rawOf(r: DmarcRecord): Record<string, unknown> {
  if (r.raw) return r.raw;
  const shape = r.shape;
  const out: Record<string, unknown> = {};
  if (!shape) return out;
  for (const k of shape.keys) {
    out[k] = fieldOf(r, k, shape);
  }
  return out;
}

function signature(d: DkimEntry, keys: readonly string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys ?? ['selector', 'domain', 'result']) out[k] = d[k as keyof DkimEntry];
  return out;
}

/** A field of a record held by shape, as the row had it. */
function fieldOf(r: DmarcRecord, k: string, shape: RowShape): unknown {
  if (k === 'rdns') return r.rdns.slice();
  if (k === 'dkims') return r.dkims.map((d) => signature(d, shape.dkimKeys));
  if (k === 'from') return r.visibleFrom;
  return (r as unknown as Record<string, unknown>)[k];
}

/** The names of the row's fields, in its order, without building it again. */
export function rawKeys(r: DmarcRecord): readonly string[] {
  return r.raw ? Object.keys(r.raw) : (r.shape?.keys ?? []);
}

/** One field of the row as sent (undefined when it has none). */
export function rawField(r: DmarcRecord, key: string): unknown {
  if (r.raw) return Object.hasOwn(r.raw, key) ? r.raw[key] : undefined;
  return r.shape?.keys.includes(key) ? fieldOf(r, key, r.shape) : undefined;
}

/** The row's fields named in `keys` (those it has), in the order of `keys`. */
export function rawPick(r: DmarcRecord, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (r.raw ? Object.hasOwn(r.raw, k) : r.shape?.keys.includes(k)) out[k] = r.raw ? r.raw[k] : fieldOf(r, k, r.shape!);
  }
  return out;
}
