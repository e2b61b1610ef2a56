/** Strings shared between the rows of one response (see StringPool); src/api/schema.ts uses it. */
import { ownStrings, ShapeCache } from './rawRow';
import { isPlainObject } from './schema';
import type { DkimEntry } from './types';

/**
 * One string for each distinct value of a response's fields with few values (reporters, domains,
 * results, dispositions, countries, DKIM domains and selectors). JSON.parse makes a new string for
 * every value of every row, and the extension host keeps a million rows. The parsed row (`raw`)
 * gets the shared strings too: the same values, so exports and the JSON view are unchanged.
 * Fields with many distinct values (addresses, dates, report ids) are left as they are: looking
 * each up cost more than sharing saved. Measured on the bench server's rows (Node, 300k rows):
 * 714 → 668 bytes a row held. With the shapes (rawRow.ts) and the shared signature lists, a
 * response's records hold 416 bytes a row against 737 without any sharing, for 0.8–1.0 µs a row
 * at 100k rows (bench:api's `sharing`, 0.17–0.25× JSON.parse of the body).
 *
 * rDNS names and return paths have a value per sender, repeated by its rows: they are shared
 * through small direct-mapped tables of the values seen last (`names`, `path`), which cost a hash
 * of the string and one comparison, where a map of every value cost twice the rest of the sharing.
 * bench:api, 100k rows: 415 → 364 bytes a row held, sharing +74 → +118–123 ms (0.33× JSON.parse);
 * bench:panel at 1M rows: the extension host's heap 939 → 814 MB (its longest block unchanged
 * within the machine's noise: 239–501 ms over six runs against 285–613).
 */
export class StringPool {
  private readonly strings = new Map<string, string>();
  /** The key orders of the response's rows (src/api/rawRow.ts). */
  readonly shapes = new ShapeCache();

  /**
   * The string to keep for `s`: `s` itself when it is short enough that JSON.parse gave it from
   * V8's string table already (see ALREADY_SHARED), else the pool's. The records and rows of a
   * response use this.
   */
  str(s: string): string {
    return s.length <= ALREADY_SHARED ? s : this.get(s);
  }

  /** The pool's string equal to `s`. */
  get(s: string): string {
    const c = this.strings.get(s);
    if (c !== undefined) return c;
    // A bound, so a response of distinct values does not hold a second copy of them all.
    if (this.strings.size >= POOL_MAX) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }

  /**
   * The pool of the response read last, emptied. V8 keeps the hidden classes of objects built
   * field by field (a pool's, its shape cache's, its shapes', its frozen signatures') only while
   * some object has them, and throws away the optimised code that relied on them when they go:
   * with no pool alive between two responses, each response was read by code being optimised
   * again (10k rows: validation 10 → 40 ms, bench:api). Kept for that alone.
   */
  private static readonly kept: { pool?: StringPool } = {};

  /** Forgets the strings and lists (rows keep theirs): once a response is read. */
  clear(): void {
    StringPool.kept.pool = this;
    this.strings.clear();
    this.signatureLists.clear();
    this.nameSlots.fill(undefined);
    this.pathSlots.fill('');
    this.byFirst.clear();
    this.buckets = 0;
  }

  /** Shared lists by their first signature's domain, then selector (at most PER_BUCKET each). */
  private readonly byFirst = new Map<string, Map<string, (readonly DkimEntry[])[]>>();
  /**
   * Buckets in byFirst (a domain and a selector each), at most LIST_MAX: a response of one domain
   * and a million selectors held an entry per selector until it was read.
   */
  private buckets = 0;
  /** Lists past a full bucket, by a key of every value (Each value with its length before it). */
  private readonly signatureLists = new Map<string, readonly DkimEntry[]>();
  /** Lists held to be shared, signatures' and rDNS names' (tests: they stay bounded). */
  get listsHeld(): number {
    let n = this.signatureLists.size;
    for (const l of this.nameSlots) if (l) n++;
    for (const selectors of this.byFirst.values()) for (const bucket of selectors.values()) n += bucket.length;
    return n;
  }

  /** One-name rDNS lists by slot (see slotOf): the names seen last, not every name of the response. */
  private readonly nameSlots = new Array<readonly string[] | undefined>(SLOTS).fill(undefined);
  /** Return paths by slot (see slotOf). */
  private readonly pathSlots = new Array<string>(SLOTS).fill('');

  /**
   * A frozen list equal to `list` (a row's rDNS names), shared with the rows before that had the
   * same one name, or none; a list of two or more names (rare, §2.3 of the API contract) is the
   * record's own. The rows of one sending address repeat its name: each record kept a list and a
   * string of its own (two objects and a string a row). Looked up in a direct-mapped table (see the
   * header), not a map of every name.
   */
  names(list: readonly string[]): readonly string[] {
    if (list.length === 0) return NO_NAMES;
    if (list.length !== 1) return ownStrings(list);
    const name = list[0]!;
    const i = slotOf(name);
    const seen = this.nameSlots[i];
    if (seen !== undefined && seen[0] === name) return seen;
    const shared = Object.freeze([name]);
    this.nameSlots[i] = shared;
    return shared;
  }

  /** A string equal to a row's return path, shared with the rows before that had it (a table of its own, looked up as `names` is). */
  path(s: string): string {
    if (s.length <= ALREADY_SHARED) return s;
    const i = slotOf(s);
    const seen = this.pathSlots[i]!;
    if (seen === s) return seen;
    this.pathSlots[i] = s;
    return s;
  }

  /** The list given last: rows often sign as the row before. */
  private lastList: readonly DkimEntry[] = NO_SIGNATURES;

  /**
   * A frozen list equal to `list` (the row's signatures), of the pool's strings, shared by every row of
   * the response that has the same signatures. A record held by shape no longer keeps a list and
   * its objects of its own (two or three objects a row, most of them alike: the same sender signs
   * the same way). Measured: bench:panel at 1M rows, the extension host's heap 646 → 496 MB;
   * in Node (1M rows through RecordsBodyStream, 8 runs each) 159 bytes less a row held.
   * Found without building a key for the list: the last list given, else two lookups (the first
   * signature's domain and selector) and the few lists there compared value by value.
   */
  signatures(list: readonly DkimEntry[]): readonly DkimEntry[] {
    if (list.length === 0) return NO_SIGNATURES;
    if (sameSignatures(this.lastList, list)) return this.lastList;
    const first = list[0]!;
    let selectors = this.byFirst.get(first.domain);
    let bucket = selectors?.get(first.selector);
    if (bucket) {
      for (let i = 0; i < bucket.length; i++) if (sameSignatures(bucket[i]!, list)) return (this.lastList = bucket[i]!);
    }
    let shared: readonly DkimEntry[] | undefined;
    if (!bucket || bucket.length < PER_BUCKET) {
      if (!bucket && this.buckets >= LIST_MAX) {
        this.byFirst.clear();
        this.buckets = 0;
        selectors = undefined;
      }
      if (!selectors) this.byFirst.set(first.domain, (selectors = new Map()));
      if (!bucket) {
        selectors.set(first.selector, (bucket = []));
        this.buckets++;
      }
      bucket.push((shared = this.frozen(list)));
    } else {
      // A domain and selector with many ways of signing: by key.
      let key = '';
      for (let i = 0; i < list.length; i++) key += lengthPrefixed(list[i]!.domain) + lengthPrefixed(list[i]!.selector) + lengthPrefixed(list[i]!.result);
      shared = this.signatureLists.get(key);
      if (!shared) {
        if (this.signatureLists.size >= LIST_MAX) this.signatureLists.clear();
        this.signatureLists.set(key, (shared = this.frozen(list)));
      }
    }
    return (this.lastList = shared);
  }

  private frozen(list: readonly DkimEntry[]): readonly DkimEntry[] {
    return Object.freeze(list.map((e) => this.signature(e)));
  }

  /** A signature of the records' own (frozen, the pool's strings), whatever else the row's object held. */
  private signature(d: DkimEntry): DkimEntry {
    return Object.freeze({ selector: this.str(d.selector), domain: this.str(d.domain), result: this.str(d.result) });
  }

  /** Replaces the row's pooled fields (and its signatures' domain, selector and result) with the pool's strings. */
  internRow(row: Record<string, unknown>): void {
    // Named, not a loop over key names: a keyed access per field cost more than the pooling.
    const r = row as Partial<Record<Pooled, unknown>>;
    if (typeof r.source === 'string') r.source = this.str(r.source);
    if (typeof r.reporter === 'string') r.reporter = this.str(r.reporter);
    if (typeof r.visibleFrom === 'string') r.visibleFrom = this.str(r.visibleFrom);
    if (typeof r.returnPath === 'string') r.returnPath = this.path(r.returnPath);
    if (typeof r.ipCountryCode === 'string') r.ipCountryCode = this.str(r.ipCountryCode);
    if (typeof r.category === 'string') r.category = this.str(r.category);
    if (typeof r.dmarc === 'string') r.dmarc = this.str(r.dmarc);
    if (typeof r.alignedSpf === 'string') r.alignedSpf = this.str(r.alignedSpf);
    if (typeof r.alignedDkim === 'string') r.alignedDkim = this.str(r.alignedDkim);
    if (typeof r.spf === 'string') r.spf = this.str(r.spf);
    const dkims = row.dkims;
    if (!Array.isArray(dkims)) return;
    for (let i = 0; i < dkims.length; i++) {
      const d: unknown = dkims[i];
      if (!isPlainObject(d)) continue;
      if (typeof d.domain === 'string') d.domain = this.str(d.domain);
      if (typeof d.selector === 'string') d.selector = this.str(d.selector);
      if (typeof d.result === 'string') d.result = this.str(d.result);
    }
  }
}

/** The fields pooled (internRow names each). */
type Pooled = 'source' | 'reporter' | 'visibleFrom' | 'returnPath' | 'ipCountryCode' | 'category' | 'dmarc' | 'alignedSpf' | 'alignedDkim' | 'spf';
const POOL_MAX = 1 << 20;
/**
 * V8's JSON.parse takes string values of up to 10 characters from its string table (as it does
 * keys): every "pass", "none", "US" or "acme.com" of a body is already one string, and looking it
 * up again in the pool cost more than the rest of the pooling together (bench:api). On another
 * engine such strings are merely not shared.
 */
const ALREADY_SHARED = 10;
/**
 * At most this many buckets of lists by first signature, and lists by key (a response of
 * all-distinct lists keeps no second copy of them all).
 */
const LIST_MAX = 1 << 16;
/** Lists of one first domain and selector looked through before the others go by key. */
const PER_BUCKET = 16;
const NO_SIGNATURES: readonly DkimEntry[] = Object.freeze([]);
const NO_NAMES: readonly string[] = Object.freeze([]);
/** Slots of the direct-mapped tables of rDNS lists and return paths (a power of two). */
const SLOTS = 4096;

/**
 * A string's slot: a hash of every character (names of one domain differ in a digit or two
 * anywhere), cheaper than a Map's lookup and insertion of every name.
 */
function slotOf(s: string): number {
  let h = s.length;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return (h ^ (h >>> 9)) & (SLOTS - 1);
}

const lengthPrefixed = (s: string): string => `${s.length}:${s}`;

/** The same signatures in the same order. */
function sameSignatures(a: readonly DkimEntry[], b: readonly DkimEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.domain !== y.domain || x.selector !== y.selector || x.result !== y.result) return false;
  }
  return true;
}
