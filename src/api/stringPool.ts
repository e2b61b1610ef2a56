/** Strings shared between the rows of one response (see StringPool); src/api/schema.ts uses it. */
import { ShapeCache } from './rawRow';
import { isPlainObject } from './schema';
import type { DkimEntry } from './types';

/**
 * One string for each distinct value of a response's fields with few values (reporters, domains,
 * results, dispositions, countries, DKIM domains and selectors). JSON.parse makes a new string for
 * every value of every row, and the extension host keeps a million rows. The parsed row (`raw`)
 * gets the shared strings too: the same values, so exports and the JSON view are unchanged.
 * Fields with many distinct values (addresses, rDNS names, dates, return paths, report ids) are
 * left as they are: looking each up cost more than sharing saved. Measured on the bench server's
 * rows (Node, 300k rows): 714 → 668 bytes a row held, parse and validation 4.1 → 4.8 µs a row.
 */
export class StringPool {
  private readonly strings = new Map<string, string>();
  /** The key orders of the response's rows (src/api/rawRow.ts). */
  readonly shapes = new ShapeCache();

  /** The pool's string equal to `s`. */
  get(s: string): string {
    const c = this.strings.get(s);
    if (c !== undefined) return c;
    // A bound, so a response of distinct values does not hold a second copy of them all.
    if (this.strings.size >= POOL_MAX) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }

  /** Forgets the strings and lists (rows keep theirs): once a response is read. */
  clear(): void {
    this.strings.clear();
    this.signatureLists.clear();
    this.oneSignature.clear();
  }

  private readonly signatureLists = new Map<string, readonly DkimEntry[]>();
  /** Lists of one signature (most rows), by their domain (at most PER_DOMAIN each): no key to build. */
  private readonly oneSignature = new Map<string, (readonly DkimEntry[])[]>();

  /**
   * A frozen list equal to `list` (the row's signatures, pooled strings), shared by every row of
   * the response that has the same signatures. A record held by shape no longer keeps a list and
   * its objects of its own (two or three objects a row, most of them alike: the same sender signs
   * the same way). Measured: bench:panel at 1M rows, the extension host's heap 646 → 496 MB;
   * in Node (1M rows through RecordsBodyStream, 8 runs each) 159 bytes less a row held and the
   * parse's CPU no more (median 4.9 s against 5.2 s).
   */
  signatures(list: readonly DkimEntry[]): readonly DkimEntry[] {
    if (list.length === 0) return NO_SIGNATURES;
    if (list.length === 1) {
      // One lookup by domain, then the few lists of that domain compared by their (pooled) strings.
      const d = list[0]!;
      let lists = this.oneSignature.get(d.domain);
      if (lists) {
        for (let i = 0; i < lists.length; i++) {
          const e = lists[i]![0]!;
          if (e.selector === d.selector && e.result === d.result) return lists[i]!;
        }
      }
      if (!lists || lists.length < PER_DOMAIN) {
        if (!lists) {
          if (this.oneSignature.size >= LIST_MAX) this.oneSignature.clear();
          this.oneSignature.set(d.domain, (lists = []));
        }
        const shared = Object.freeze([signature(d)]);
        lists.push(shared);
        return shared;
      }
      // A domain signed many ways: by key, as longer lists are.
    }
    // Each value with its length before it: no two lists give the same key, whatever they hold.
    let key = '';
    for (let i = 0; i < list.length; i++) key += lengthPrefixed(list[i]!.domain) + lengthPrefixed(list[i]!.selector) + lengthPrefixed(list[i]!.result);
    let shared = this.signatureLists.get(key);
    if (!shared) {
      if (this.signatureLists.size >= LIST_MAX) this.signatureLists.clear();
      this.signatureLists.set(key, (shared = Object.freeze(list.map(signature))));
    }
    return shared;
  }

  /** Replaces the row's pooled fields (and its signatures' domain, selector and result) with the pool's strings. */
  internRow(row: Record<string, unknown>): void {
    // Named, not a loop over key names: a keyed access per field cost more than the pooling.
    const r = row as Partial<Record<Pooled, unknown>>;
    if (typeof r.source === 'string') r.source = this.get(r.source);
    if (typeof r.reporter === 'string') r.reporter = this.get(r.reporter);
    if (typeof r.visibleFrom === 'string') r.visibleFrom = this.get(r.visibleFrom);
    if (typeof r.ipCountryCode === 'string') r.ipCountryCode = this.get(r.ipCountryCode);
    if (typeof r.category === 'string') r.category = this.get(r.category);
    if (typeof r.dmarc === 'string') r.dmarc = this.get(r.dmarc);
    if (typeof r.alignedSpf === 'string') r.alignedSpf = this.get(r.alignedSpf);
    if (typeof r.alignedDkim === 'string') r.alignedDkim = this.get(r.alignedDkim);
    if (typeof r.spf === 'string') r.spf = this.get(r.spf);
    const dkims = row.dkims;
    if (!Array.isArray(dkims)) return;
    for (let i = 0; i < dkims.length; i++) {
      const d: unknown = dkims[i];
      if (!isPlainObject(d)) continue;
      if (typeof d.domain === 'string') d.domain = this.get(d.domain);
      if (typeof d.selector === 'string') d.selector = this.get(d.selector);
      if (typeof d.result === 'string') d.result = this.get(d.result);
    }
  }
}

/** The fields pooled (internRow names each). */
type Pooled = 'source' | 'reporter' | 'visibleFrom' | 'ipCountryCode' | 'category' | 'dmarc' | 'alignedSpf' | 'alignedDkim' | 'spf';
const POOL_MAX = 1 << 20;
/** At most this many shared lists of each kind (a response of all-distinct lists keeps no second copy of them all). */
const LIST_MAX = 1 << 16;
/** Lists of one signature looked through for a domain before its others go by key. */
const PER_DOMAIN = 16;
const NO_SIGNATURES: readonly DkimEntry[] = Object.freeze([]);

const lengthPrefixed = (s: string): string => `${s.length}:${s}`;

/** A signature of the record's own (frozen), whatever else the row's object held. */
function signature(d: DkimEntry): DkimEntry {
  return Object.freeze({ selector: d.selector, domain: d.domain, result: d.result });
}
