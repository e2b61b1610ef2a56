/**
 * The records table's data, DOM-free: rows stored column-wise from the host's tuples, one
 * lowercase haystack per row for the search, facet values dictionary-coded, sort ranks computed
 * once per column, and the view (filtered + sorted row indices, facet counts, summary)
 * recomputed in a few linear passes.
 *
 * A row is known by its index: its position in the order the host sent the rows, which is the
 * host's record index. Everything here speaks in those indices.
 */
import { COLUMNS, FACETS, type ColumnId, type FacetId } from '../../src/shared/columns';
import { dkimText, EMPTY_LABEL, NO_SIGNATURES, valueLabel } from './format';

export const COL: Record<ColumnId, number> = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as Record<ColumnId, number>;
const EMAILS = COL.emails;
const DKIM = COL.dkim;
const DKIM_FACET = FACETS.indexOf('dkim');

export interface SortSpec {
  column: ColumnId;
  descending: boolean;
}

export interface Query {
  search: string;
  facets: Partial<Record<FacetId, readonly string[]>>;
  sort?: SortSpec | undefined;
}

export interface FacetOption {
  /** The value as kept in the view state and data-value: the raw result, '' for empty, '(none)' for no DKIM signature. */
  key: string;
  label: string;
  /** Rows with this value among those passing the search and every other facet. */
  count: number;
  selected: boolean;
}

export interface Summary {
  rows: number;
  emails: number;
  passEmails: number;
  /** Email-weighted: passing emails / emails; NaN without emails. */
  passRate: number;
  byCategory: { value: string; emails: number }[];
  byDisposition: { value: string; emails: number }[];
}

export interface View {
  /** Row indices in display order. */
  order: Uint32Array;
  /** Display position of each row index, -1 when filtered out. */
  posOf: Int32Array;
  facets: Record<FacetId, FacetOption[]>;
  summary: Summary;
}

/** One dictionary-coded column: each distinct value gets a small integer code. */
class Dict {
  readonly keys: string[] = [];
  private readonly index = new Map<string, number>();

  code(value: string): number {
    let c = this.index.get(value);
    if (c === undefined) {
      c = this.keys.length;
      this.index.set(value, c);
      this.keys.push(value);
    }
    return c;
  }

  find(value: string): number | undefined {
    return this.index.get(value);
  }

  get size(): number {
    return this.keys.length;
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

function growU32(a: Uint32Array, min: number): Uint32Array {
  if (a.length >= min) return a;
  const b = new Uint32Array(Math.max(min, a.length * 2, 1024));
  b.set(a);
  return b;
}

/** Rows column by column, appended chunk by chunk as the host streams them. */
export class RowStore {
  length = 0;
  /** Bumped on every change, so caches know when they are stale. */
  version = 0;
  /** Bumped when the rows are cleared (a reload), so an append-only cache knows to start over. */
  generation = 0;
  /** Display text per column (index COL[...]); `emails` as its decimal string, `dkim` as `2 (pass, fail)`. */
  readonly text: string[][] = COLUMNS.map(() => []);
  emails: Float64Array = new Float64Array(0);
  readonly dkimResults: string[][] = [];
  readonly hay: string[] = [];
  passes: Uint8Array = new Uint8Array(0);
  /** Codes of the five single-valued facets (FACETS order; the dkim slot stays empty). */
  readonly facetCodes: Uint32Array[] = FACETS.map(() => new Uint32Array(0));
  readonly dicts: Dict[] = FACETS.map(() => new Dict());
  /** The dkim facet, CSR-style: row i's distinct result codes are dkimCodes[dkimStart[i] … dkimStart[i+1]). */
  dkimStart: Uint32Array = new Uint32Array(1);
  dkimCodes: Uint32Array = new Uint32Array(0);
  private dkimUsed = 0;

  clear(): void {
    this.length = 0;
    this.version++;
    this.generation++;
    for (const t of this.text) t.length = 0;
    this.dkimResults.length = 0;
    this.hay.length = 0;
    for (let f = 0; f < FACETS.length; f++) this.dicts[f] = new Dict();
    this.dkimUsed = 0;
  }

  private ensureCapacity(n: number): void {
    if (this.emails.length >= n) return;
    const cap = Math.max(n, this.emails.length * 2, 1024);
    const e = new Float64Array(cap);
    e.set(this.emails.subarray(0, this.length));
    this.emails = e;
    const p = new Uint8Array(cap);
    p.set(this.passes.subarray(0, this.length));
    this.passes = p;
    for (let f = 0; f < FACETS.length; f++) {
      if (f === DKIM_FACET) continue;
      const c = new Uint32Array(cap);
      c.set(this.facetCodes[f]!.subarray(0, this.length));
      this.facetCodes[f] = c;
    }
    const s = new Uint32Array(cap + 1);
    s.set(this.dkimStart.subarray(0, this.length + 1));
    this.dkimStart = s;
  }

  /** Appends tuples (untrusted shapes are coerced: a missing field reads as ''). `expectedTotal` sizes the arrays once. */
  append(tuples: readonly unknown[], expectedTotal = 0): void {
    this.ensureCapacity(Math.max(expectedTotal, this.length + tuples.length));
    const facetCols = FACETS.map((f) => COL[f]);
    for (const raw of tuples) {
      const t = (Array.isArray(raw) ? raw : []) as unknown[];
      const i = this.length;
      let hay = '';
      for (let c = 0; c < COLUMNS.length; c++) {
        let s: string;
        if (c === EMAILS) {
          const n = typeof t[c] === 'number' ? (t[c] as number) : Number(t[c]);
          const e = Number.isFinite(n) ? n : 0;
          this.emails[i] = e;
          s = String(e);
        } else if (c === DKIM) {
          const list = Array.isArray(t[c]) ? (t[c] as unknown[]).map(str) : [];
          this.dkimResults.push(list);
          s = dkimText(list);
        } else {
          s = str(t[c]);
        }
        this.text[c]!.push(s);
        hay = c === 0 ? s : `${hay}\n${s}`;
      }
      this.hay.push(hay.toLowerCase());
      for (let f = 0; f < FACETS.length; f++) {
        if (f === DKIM_FACET) continue;
        this.facetCodes[f]![i] = this.dicts[f]!.code(this.text[facetCols[f]!]![i]!);
      }
      const results = this.dkimResults[i]!;
      const dict = this.dicts[DKIM_FACET]!;
      const start = this.dkimUsed;
      this.dkimCodes = growU32(this.dkimCodes, start + Math.max(1, results.length));
      if (results.length === 0) {
        this.dkimCodes[this.dkimUsed++] = dict.code(NO_SIGNATURES);
      } else {
        for (const r of results) {
          const code = dict.code(r);
          let seen = false;
          for (let j = start; j < this.dkimUsed; j++) if (this.dkimCodes[j] === code) seen = true;
          if (!seen) this.dkimCodes[this.dkimUsed++] = code;
        }
      }
      this.dkimStart[i + 1] = this.dkimUsed;
      this.passes[i] = this.text[COL.alignedSpf]![i] === 'pass' || this.text[COL.alignedDkim]![i] === 'pass' ? 1 : 0;
      this.length++;
    }
    this.version++;
  }

  cell(index: number, column: ColumnId): string {
    return this.text[COL[column]]![index] ?? '';
  }
}

const collator = new Intl.Collator(undefined);

/** Sort ranks of one column: equal values share a rank; rank order is display order ascending. */
interface Ranks {
  version: number;
  rank: Uint32Array;
  distinct: number;
}

/** The distinct values of a column, and each row's value as an id into them. */
function distinct<T>(length: number, valueOf: (i: number) => T): { uniq: T[]; code: Uint32Array; index: Map<T, number> } {
  const index = new Map<T, number>();
  const uniq: T[] = [];
  const code = new Uint32Array(length);
  for (let i = 0; i < length; i++) {
    const v = valueOf(i);
    let c = index.get(v);
    if (c === undefined) {
      c = uniq.length;
      index.set(v, c);
      uniq.push(v);
    }
    code[i] = c;
  }
  return { uniq, code, index };
}

/** Row ranks from the sorted order of the distinct values (each distinct value its own rank). */
function ranksFrom(code: Uint32Array, sortedIds: ArrayLike<number>): Ranks {
  const keyRank = new Uint32Array(sortedIds.length);
  for (let k = 0; k < sortedIds.length; k++) keyRank[sortedIds[k]!] = k;
  const rank = new Uint32Array(code.length);
  for (let i = 0; i < code.length; i++) rank[i] = keyRank[code[i]!]!;
  return { version: 0, rank, distinct: sortedIds.length };
}

/**
 * Text in Intl.Collator order. Sorting ~100k distinct strings with a collator comparator costs
 * ~200 ms, so the distinct values are first put in code-unit order (a native sort) and then
 * sorted with the collator: V8's TimSort finds the runs already in order, and the collator pass
 * costs little more than one comparison per value. The result is exactly collator order.
 */
function rankText(values: readonly string[], length: number): Ranks {
  const { uniq, code, index } = distinct(length, (i) => values[i]!);
  const sorted = uniq.slice();
  if (sorted.length >= 2000) sorted.sort();
  sorted.sort(collator.compare);
  const ids = new Uint32Array(sorted.length);
  for (let k = 0; k < sorted.length; k++) ids[k] = index.get(sorted[k]!)!;
  return ranksFrom(code, ids);
}

/**
 * Values ordered by a numeric key: dates by instant, IP addresses by address, emails by count.
 * Keys go through a native Float64Array sort, then each row finds its key's rank by binary
 * search; values without a key (NaN) come last, in text order.
 */
function rankByNumber(values: readonly string[], length: number, keyOf: (v: string) => number): Ranks {
  const keys = new Float64Array(length);
  const nan: number[] = [];
  for (let i = 0; i < length; i++) {
    const k = keyOf(values[i]!);
    keys[i] = k;
    if (Number.isNaN(k)) nan.push(i);
  }
  const sorted = keys.slice().sort();
  let u = 0;
  for (let k = 0; k < sorted.length; k++) {
    const v = sorted[k]!;
    if (Number.isNaN(v)) break;
    if (u === 0 || v !== sorted[u - 1]) sorted[u++] = v;
  }
  const rank = new Uint32Array(length);
  for (let i = 0; i < length; i++) {
    const v = keys[i]!;
    if (Number.isNaN(v)) continue;
    let lo = 0;
    let hi = u - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    rank[i] = lo;
  }
  let r = u;
  if (nan.length) {
    nan.sort((a, b) => codeUnitCompare(values[a]!, values[b]!) || a - b);
    for (let k = 0; k < nan.length; k++) {
      if (k > 0 && values[nan[k]!] !== values[nan[k - 1]!]) r++;
      rank[nan[k]!] = r;
    }
    r++;
  }
  return { version: 0, rank, distinct: r };
}

/** DKIM cells: by signature count, then by their results. Few distinct values, so a comparator sort. */
function rankDkim(values: readonly string[], length: number): Ranks {
  const { uniq, code } = distinct(length, (i) => values[i]!);
  const count = uniq.map((v) => parseInt(v, 10) || 0);
  const ids = uniq.map((_, k) => k).sort((a, b) => count[a]! - count[b]! || collator.compare(uniq[a]!, uniq[b]!));
  return ranksFrom(code, ids);
}

function codeUnitCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An IPv4 address as its 32-bit value, an IPv6 one after every IPv4 by its first 48 bits; NaN otherwise. */
export function ipSortKey(ip: string): number {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4) return ((+v4[1]! * 256 + +v4[2]!) * 256 + +v4[3]!) * 256 + +v4[4]!;
  if (!ip.includes(':') || !/^[0-9a-fA-F:.]+$/.test(ip)) return Number.NaN;
  const [head = '', tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...new Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  const g = (k: number): number => parseInt(groups[k] ?? '0', 16) || 0;
  return 2 ** 32 + (g(0) * 65536 + g(1)) * 65536 + g(2);
}

/**
 * Stable counting sort of `0…length-1` by rank: O(n + distinct). Ties keep row order, in both
 * directions.
 */
export function sortByRank(ranks: Uint32Array, distinct: number, length: number, descending: boolean): Uint32Array {
  const counts = new Uint32Array(distinct + 1);
  for (let i = 0; i < length; i++) {
    const r = descending ? distinct - 1 - ranks[i]! : ranks[i]!;
    counts[r + 1]!++;
  }
  for (let r = 0; r < distinct; r++) counts[r + 1]! += counts[r]!;
  const out = new Uint32Array(length);
  for (let i = 0; i < length; i++) {
    const r = descending ? distinct - 1 - ranks[i]! : ranks[i]!;
    out[counts[r]!++] = i;
  }
  return out;
}

export interface Timings {
  sortMs: number;
  filterMs: number;
}

/** The rows plus the caches that make re-sorting and re-filtering cheap. */
export class RecordsModel {
  readonly store = new RowStore();
  private readonly ranks = new Map<ColumnId, Ranks>();
  private sorted: { key: string; version: number; order: Uint32Array } | undefined;
  private searchCache: { query: string; version: number; generation: number; length: number; mask: Uint8Array } | undefined;
  /** How many rows carry each facet value over all rows (orders the facet options). */
  private totals: { version: number; counts: Uint32Array[] } | undefined;
  readonly timings: Timings = { sortMs: 0, filterMs: 0 };

  get length(): number {
    return this.store.length;
  }

  clear(): void {
    this.store.clear();
    this.ranks.clear();
    this.sorted = undefined;
    this.searchCache = undefined;
    this.totals = undefined;
  }

  append(tuples: readonly unknown[], expectedTotal = 0): void {
    this.store.append(tuples, expectedTotal);
  }

  /** The sort ranks of a column, computed once per store version. */
  ranksOf(column: ColumnId): Ranks {
    const s = this.store;
    const cached = this.ranks.get(column);
    if (cached && cached.version === s.version) return cached;
    let r: Ranks;
    const values = s.text[COL[column]]!;
    if (column === 'emails') r = rankByNumber(values, s.length, Number);
    else if (column === 'date') r = rankByNumber(values, s.length, Date.parse);
    else if (column === 'ipAddress') r = rankByNumber(values, s.length, ipSortKey);
    else if (column === 'dkim') r = rankDkim(values, s.length);
    else r = rankText(values, s.length);
    r.version = s.version;
    this.ranks.set(column, r);
    return r;
  }

  /** Computes the ranks of columns not yet ranked, one at a time (for idle callbacks). Returns false when all are done. */
  prerankNext(): boolean {
    for (const column of COLUMNS) {
      const cached = this.ranks.get(column);
      if (!cached || cached.version !== this.store.version) {
        this.ranksOf(column);
        return true;
      }
    }
    return false;
  }

  /** Every row index in sort order (unfiltered). */
  sortedOrder(sort: SortSpec | undefined): Uint32Array {
    const s = this.store;
    const key = sort ? `${sort.column}:${sort.descending ? 'd' : 'a'}` : '';
    if (this.sorted && this.sorted.key === key && this.sorted.version === s.version) return this.sorted.order;
    const t0 = performance.now();
    let order: Uint32Array;
    if (!sort) {
      order = new Uint32Array(s.length);
      for (let i = 0; i < s.length; i++) order[i] = i;
    } else {
      const r = this.ranksOf(sort.column);
      order = sortByRank(r.rank, r.distinct, s.length, sort.descending);
    }
    this.timings.sortMs = performance.now() - t0;
    this.sorted = { key, version: s.version, order };
    return order;
  }

  /** 1 for each row whose haystack contains the query (lowercased, trimmed); undefined when there is no query. */
  private searchMask(query: string): Uint8Array | undefined {
    const q = query.trim().toLowerCase();
    if (q === '') return undefined;
    const s = this.store;
    const prev = this.searchCache;
    let mask: Uint8Array;
    if (prev && prev.query === q && prev.version === s.version) return prev.mask;
    if (prev && prev.query === q && prev.generation === s.generation && prev.length <= s.length) {
      // Rows were appended: only the new ones need a look.
      mask = new Uint8Array(s.length);
      mask.set(prev.mask.subarray(0, prev.length));
      for (let i = prev.length; i < s.length; i++) if (s.hay[i]!.includes(q)) mask[i] = 1;
    } else if (prev && prev.version === s.version && q.includes(prev.query)) {
      // A longer query can only match rows the shorter one matched.
      mask = new Uint8Array(s.length);
      const pm = prev.mask;
      for (let i = 0; i < s.length; i++) if (pm[i] && s.hay[i]!.includes(q)) mask[i] = 1;
    } else {
      mask = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) if (s.hay[i]!.includes(q)) mask[i] = 1;
    }
    this.searchCache = { query: q, version: s.version, generation: s.generation, length: s.length, mask };
    return mask;
  }

  private facetTotals(): Uint32Array[] {
    const s = this.store;
    if (this.totals && this.totals.version === s.version) return this.totals.counts;
    const counts = FACETS.map((_, f) => new Uint32Array(s.dicts[f]!.size));
    for (let f = 0; f < FACETS.length; f++) {
      const c = counts[f]!;
      if (f === DKIM_FACET) {
        for (let j = 0; j < s.dkimStart[s.length]!; j++) c[s.dkimCodes[j]!]!++;
      } else {
        const codes = s.facetCodes[f]!;
        for (let i = 0; i < s.length; i++) c[codes[i]!]!++;
      }
    }
    this.totals = { version: s.version, counts };
    return counts;
  }

  /** The view for a query: filtered rows in sort order, facet options with counts, summary. */
  compute(query: Query): View {
    const s = this.store;
    const n = s.length;
    const order = this.sortedOrder(query.sort);
    const t0 = performance.now();
    const mask = this.searchMask(query.search);

    // Allowed codes per active facet.
    const active: number[] = [];
    const allowed: (Uint8Array | undefined)[] = FACETS.map((id, f) => {
      const keys = query.facets[id];
      if (!keys || keys.length === 0) return undefined;
      const a = new Uint8Array(s.dicts[f]!.size);
      for (const k of keys) {
        const code = s.dicts[f]!.find(k);
        if (code !== undefined) a[code] = 1;
      }
      active.push(f);
      return a;
    });
    const counts = FACETS.map((_, f) => new Uint32Array(s.dicts[f]!.size));
    const visible = new Uint8Array(n);
    const codes = s.facetCodes;
    const dkStart = s.dkimStart;
    const dkCodes = s.dkimCodes;
    const nActive = active.length;
    let visibleCount = 0;

    for (let i = 0; i < n; i++) {
      if (mask !== undefined && mask[i] === 0) continue;
      let fails = 0;
      let failed = -1;
      for (let a = 0; a < nActive; a++) {
        const f = active[a]!;
        const al = allowed[f]!;
        let ok: boolean;
        if (f === DKIM_FACET) {
          ok = false;
          for (let j = dkStart[i]!, e = dkStart[i + 1]!; j < e; j++) {
            if (al[dkCodes[j]!]) {
              ok = true;
              break;
            }
          }
        } else {
          ok = al[codes[f]![i]!] === 1;
        }
        if (!ok) {
          fails++;
          failed = f;
          if (fails > 1) break;
        }
      }
      if (fails > 1) continue;
      if (fails === 0) {
        visible[i] = 1;
        visibleCount++;
      }
      for (let f = 0; f < FACETS.length; f++) {
        if (fails === 1 && f !== failed) continue;
        if (f === DKIM_FACET) {
          const c = counts[f]!;
          for (let j = dkStart[i]!, e = dkStart[i + 1]!; j < e; j++) c[dkCodes[j]!]!++;
        } else {
          counts[f]![codes[f]![i]!]!++;
        }
      }
    }

    const out = new Uint32Array(visibleCount);
    const posOf = new Int32Array(n).fill(-1);
    let p = 0;
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      if (visible[i]) {
        posOf[i] = p;
        out[p++] = i;
      }
    }

    const summary = this.summarize(out);
    const facets = this.facetOptions(query, counts);
    this.timings.filterMs = performance.now() - t0;
    return { order: out, posOf, facets, summary };
  }

  private facetOptions(query: Query, counts: Uint32Array[]): Record<FacetId, FacetOption[]> {
    const s = this.store;
    const totals = this.facetTotals();
    const result = {} as Record<FacetId, FacetOption[]>;
    FACETS.forEach((id, f) => {
      const dict = s.dicts[f]!;
      const selected = new Set(query.facets[id] ?? []);
      const total = totals[f]!;
      const codes: number[] = [];
      for (let c = 0; c < dict.size; c++) if (total[c]! > 0 || selected.has(dict.keys[c]!)) codes.push(c);
      const last = (k: string): number => (k === '' || (f === DKIM_FACET && k === NO_SIGNATURES) ? 1 : 0);
      codes.sort((a, b) => last(dict.keys[a]!) - last(dict.keys[b]!) || total[b]! - total[a]! || collator.compare(dict.keys[a]!, dict.keys[b]!));
      const options: FacetOption[] = codes.map((c) => {
        const key = dict.keys[c]!;
        return { key, label: f === DKIM_FACET && key === NO_SIGNATURES ? NO_SIGNATURES : valueLabel(key), count: counts[f]![c] ?? 0, selected: selected.has(key) };
      });
      // Selected values the rows do not have (a restored view, a refreshed range) stay listed so they can be cleared.
      for (const key of selected) {
        if (dict.find(key) === undefined) options.push({ key, label: key === '' ? EMPTY_LABEL : key, count: 0, selected: true });
      }
      result[id] = options;
    });
    return result;
  }

  /** Rows, emails, email-weighted pass rate and emails by category and disposition of these rows. */
  summarize(rows: Uint32Array): Summary {
    const s = this.store;
    const catF = FACETS.indexOf('category');
    const dispF = FACETS.indexOf('dmarc');
    const catCodes = s.facetCodes[catF]!;
    const dispCodes = s.facetCodes[dispF]!;
    const byCat = new Float64Array(s.dicts[catF]!.size);
    const byDisp = new Float64Array(s.dicts[dispF]!.size);
    let emails = 0;
    let passEmails = 0;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k]!;
      const e = s.emails[i]!;
      emails += e;
      if (s.passes[i]) passEmails += e;
      byCat[catCodes[i]!]! += e;
      byDisp[dispCodes[i]!]! += e;
    }
    const list = (sums: Float64Array, keys: string[]) =>
      keys.map((value, c) => ({ value, emails: sums[c]! })).filter((x) => x.emails > 0).sort((a, b) => b.emails - a.emails || collator.compare(a.value, b.value));
    return {
      rows: rows.length,
      emails,
      passEmails,
      passRate: emails > 0 ? passEmails / emails : Number.NaN,
      byCategory: list(byCat, s.dicts[catF]!.keys),
      byDisposition: list(byDisp, s.dicts[dispF]!.keys),
    };
  }
}
