/**
 * The records table's view, DOM-free: the rows (store.ts) plus the caches that make re-sorting
 * and re-filtering cheap, and one pass that applies the search, the facets, the day range and
 * the group filters, counting facet values (rows and emails) on the way.
 */
import { RowClasses } from './rowClasses';
import type { RowChunk } from '../../../src/shared/rowCodec';
import { FACETS, type ColumnId, type FacetId } from '../../../src/shared/columns';
import { countRows, extendCounts, recountField, type FacetCounts } from './facetCounts';
import { facetOptions } from './facetOptions';
import { FilterWarmUp } from './filterWarmUp';
import type { FieldIndex } from './fieldTypes';
import { Fields } from './fields';
import { ColumnRanks } from './ranker';
import { sortByRank, type Ranks, type SortSpec } from './ranks';
import { concat, flaggedInOrder, rowsOf } from './rowSets';
import { RowOrderView } from './rowOrderView';
import { RowStore } from './store';
import { allows, groupMask, type GroupFilter } from './rowFilters';
import { summarize } from './summary';
import { lazyView, rowsOfView, type View } from './view';

export type { View, GroupFilter };

const IN_TREND = 1;
const VISIBLE = 2;

export type { SortSpec };

export interface Query {
  search: string;
  facets: Partial<Record<FacetId, readonly string[]>>;
  sort?: SortSpec | undefined;
  /** Only rows dated within these instants (inclusive): the days chosen on the trend. */
  days?: { startMs: number; endMs: number } | undefined;
  /** Only rows with each of these values (AND). */
  groups?: readonly GroupFilter[] | undefined;
}

export interface Timings {
  sortMs: number;
  filterMs: number;
  /** The last compute's search (searchMask), part of filterMs. */
  searchMs: number;
}

interface ActiveFacet {
  f: number;
  field: FieldIndex;
  allowed: Uint8Array;
}

export class RecordsModel {
  readonly store = new RowStore();
  readonly fields = new Fields(this.store);
  /** Each row's class after the owner's marks, for the groups' verdicts. */
  readonly classes = new RowClasses(this.store, this.fields);

  constructor() {
    this.fields.define('verdict', { key: () => this.classes.verdictKey, build: () => this.classes.sourceVerdicts() });
  }
  private readonly ranks = new ColumnRanks(this.store);
  private sorted: { key: string; version: number; order: Uint32Array } | undefined;
  private searchCache: { query: string; version: number; generation: number; length: number; mask: Uint8Array; rows: Uint32Array } | undefined;
  /** Rows and emails per value of each facet over the first `length` rows (all of them once extended). */
  private allCounts: FacetCounts | undefined;
  /**
   * The view of every row in one sort order, with nothing filtered: clearing a search (or typing
   * a letter every row has) at a million rows reuses it instead of putting them all in order again.
   */
  private everyView: { version: number; order: Uint32Array; view: View } | undefined;
  /** Views of every row with nothing filtered (in any order): a re-sort of one is the every view of its new order. */
  private readonly unfilteredViews = new WeakSet<View>();
  /** Every row in row order (no sort, nothing filtered: also a search every row matches), extended as rows come. */
  private readonly rowOrder = new RowOrderView();
  private flagsBuf = new Uint8Array(0);
  private markBuf = new Uint8Array(0);
  readonly timings: Timings = { sortMs: 0, filterMs: 0, searchMs: 0 };

  get length(): number {
    return this.store.length;
  }

  clear(): void {
    this.store.clear();
    this.ranks.clear();
    this.sorted = undefined;
    this.searchCache = undefined;
    this.allCounts = undefined;
    this.everyView = undefined;
    this.rowOrder.clear();
  }

  /** Bytes held in typed arrays by the rows and the caches built from them (outside the JS heap). */
  bytes(): number {
    let n = this.store.bytes() + this.fields.bytes() + (this.sorted?.order.byteLength ?? 0) + (this.searchCache ? this.searchCache.mask.byteLength + this.searchCache.rows.byteLength : 0);
    n += this.ranks.bytes() + this.rowOrder.bytes();
    for (const c of [...(this.allCounts?.rows ?? []), ...(this.allCounts?.emails ?? [])]) n += c.byteLength;
    return n;
  }

  appendChunk(chunk: RowChunk, expectedTotal = 0): void {
    this.store.appendChunk(chunk, expectedTotal);
  }

  /** The sort ranks of a column, computed once per store version. */
  ranksOf(column: ColumnId): Ranks {
    return this.ranks.get(column);
  }

  /**
   * Work for idle time once the rows are in, a step of a few milliseconds at a time (at least one,
   * more while `more()` says so): the search's character bits of the segments not prepared while
   * rows arrived (the first keystrokes otherwise lowercase every string: at a million rows "m" then
   * "mi" took 128 and 490 ms in Node, 8 and 111 with the bits) and its warm-up (SearchIndex.warm)
   * with that of a filtered view's summary and facet counts (filterWarmUp.ts), the ranks of the
   * cheap columns (half a second at a million rows; a sort without them makes its own, a few tens
   * of ms), the search's letter-pair filters (searchText.ts: ~0.3 s at a million rows in Node),
   * the address fields' group indexes, then the ranks of the columns with many distinct texts,
   * the fields' codes narrowed (Fields.compact: ~50 MB less at a million rows) and the filter's
   * warm-up again over them. False when nothing is left. (The pair filters came last, and with
   * Compare's million rows were not there a minute later: a second letter took 179–267 ms.)
   */
  idleNext(more: () => boolean = () => false): boolean {
    if (this.prepareSearch(more) || this.store.search.warm() || this.warmUp.next(this.store, (f) => this.fields.get(f)) || this.ranks.next(more, true)) return true;
    if (this.store.search.pairsNext(more)) return true;
    if (this.fields.prepareAddresses(more) || this.ranks.next(more)) return true;
    if (!this.fields.compact(more)) return this.warmUp.nextNarrowed(this.store, (f) => this.fields.get(f), (c) => this.ranksOf(c));
    this.warmUp.narrowed();
    return true;
  }

  private readonly warmUp = new FilterWarmUp();

  /**
   * Work for idle time while rows still arrive: the search's character bits of chunks not
   * prepared as they were read, then the address fields' indexes for the rows in so far (each
   * step extends them; rows that arrive later are added by the next). A first group-by IP address
   * or network right after a million rows otherwise built them then: ~1 s in the page. False when
   * nothing is left for now.
   */
  whileRowsArrive(more: () => boolean = () => false): boolean {
    if (this.prepareSearch(more)) return true;
    return this.fields.prepareAddresses(more);
  }

  /** The search's character bits, a step at a time while `more()` says so (also while rows arrive). False once all are there. */
  prepareSearch(more: () => boolean = () => false): boolean {
    do if (!this.store.search.prepareNext()) return false;
    while (more());
    return true;
  }

  /** Every row index in sort order (unfiltered). */
  sortedOrder(sort: SortSpec | undefined): Uint32Array {
    const s = this.store;
    const key = sort ? `${sort.column}:${sort.descending ? 'd' : 'a'}` : '';
    if (this.sorted && this.sorted.key === key && this.sorted.version === s.version) return this.sorted.order;
    const t0 = performance.now();
    let order: Uint32Array;
    if (!sort) {
      order = this.rowOrder.identity(s.length);
    } else {
      const r = this.ranksOf(sort.column);
      order = sortByRank(r.rank, r.distinct, s.length, sort.descending);
    }
    this.timings.sortMs = performance.now() - t0;
    this.sorted = { key, version: s.version, order };
    return order;
  }

  /**
   * 1 for each row with a cell containing the query (lowercased, trimmed), and those rows in
   * order; undefined when there is no query.
   */
  private searchMask(query: string): { mask: Uint8Array; rows: Uint32Array } | undefined {
    const q = query.trim().toLowerCase();
    if (q === '') return undefined;
    const s = this.store;
    const n = s.length;
    const prev = this.searchCache;
    if (prev && prev.query === q && prev.version === s.version) return prev;
    const appended = prev && prev.query === q && prev.generation === s.generation && prev.length <= n;
    // The last search's mask is taken again when it is not read (a million rows: 1 MB less for the
    // garbage collector each keystroke).
    const mask = !appended && prev && prev.mask.length === n ? prev.mask.fill(0) : new Uint8Array(n);
    let rows: Uint32Array;
    if (appended) {
      // Rows were appended: only the new ones need a look.
      mask.set(prev.mask.subarray(0, prev.length));
      s.search.search(q, prev.length, n, mask);
      rows = concat(prev.rows, rowsOf(mask, prev.length, n));
    } else if (prev && prev.version === s.version && q.includes(prev.query)) {
      // A longer query can only match rows the shorter one matched: only those are looked at.
      rows = s.search.searchRows(q, prev.rows, mask);
    } else {
      // Every row matched (a first letter they all have): they are the rows in order, unread.
      rows = s.search.search(q, 0, n, mask) ? this.rowOrder.identity(n) : rowsOf(mask, 0, n);
    }
    this.searchCache = { query: q, version: s.version, generation: s.generation, length: n, mask, rows };
    return this.searchCache;
  }

  /** Rows and emails per value of each facet over every row, extended with the rows added since (facetCounts.ts). */
  private everyRow(fields: FieldIndex[]): FacetCounts {
    const s = this.store;
    let c = this.allCounts;
    if (!c || c.generation !== s.generation || c.length > s.length || c.rows.length !== fields.length) {
      c = { generation: s.generation, length: 0, rows: fields.map(() => new Uint32Array(0)), emails: fields.map(() => new Float64Array(0)) };
    }
    // The verdict of a row's source moves when the rows are judged again: its counts start over.
    const v = FACETS.indexOf('verdict');
    if (c.verdictBuild !== this.classes.buildId && c.length > 0) recountField(c, v, fields[v]!, s.emails);
    c.verdictBuild = this.classes.buildId;
    extendCounts(c, fields, s.emails, s.length);
    return (this.allCounts = c);
  }

  /**
   * The same rows in another order: a sort changes no count, so facets, summary and trend rows
   * are kept. Undefined when rows were added since `view` was computed.
   */
  resort(view: View, sort: SortSpec | undefined): View | undefined {
    const n = this.store.length;
    if ((rowsOfView.get(view) ?? view.posOf.length) !== n) return undefined;
    const order = this.sortedOrder(sort);
    let out: Uint32Array;
    if (view.order.length === n) {
      // Every row is shown: the new order is the sorted order itself (views never write to it).
      out = order;
    } else {
      // The shown rows marked in a byte a row (a million rows: 1 MB, read in the sort's order at
      // random; the positions of before were 4 MB), then taken in the new order.
      const shown = this.markBuf.length >= n ? this.markBuf.subarray(0, n).fill(0) : (this.markBuf = new Uint8Array(Math.ceil(n * 1.25))).subarray(0, n);
      const was = view.order;
      for (let k = 0; k < was.length; k++) shown[was[k]!] = 1;
      out = new Uint32Array(was.length);
      for (let k = 0, p = 0; k < n; k++) {
        const i = order[k]!;
        if (shown[i]) out[p++] = i;
      }
    }
    const sorted = lazyView(out, n, view.trendRows, () => view.facets, view.summary);
    if (this.unfilteredViews.has(view)) {
      // Every row, nothing filtered: a search every row matches (a first letter) reuses it.
      this.unfilteredViews.add(sorted);
      this.everyView = { version: this.store.version, order, view: sorted };
    }
    return sorted;
  }

  /** The view for a query: filtered rows in sort order, facet options with counts, summary. */
  compute(query: Query): View {
    const s = this.store;
    const n = s.length;
    let t0 = performance.now();
    const found = this.searchMask(query.search);
    this.timings.searchMs = performance.now() - t0;
    const gmask = groupMask(this.fields, n, query.groups);
    const nothingElse = !gmask && !query.days && !FACETS.some((id) => query.facets[id]?.length);
    if ((!found || found.rows.length === n) && nothingElse) return this.everyRowView(t0, query.sort);
    const ts = performance.now();
    const order = this.sortedOrder(query.sort);
    t0 += performance.now() - ts; // the filter's time, without the sort's
    const ev = this.everyView;
    const every = ev && ev.version === s.version && ev.order === order && nothingElse ? ev.view : undefined;
    // Nothing filtered, or a search every row matches: the rows of every row's view, in this order.
    if (every && (!found || found.rows.length === n)) return this.timed(t0, every);
    const fields = FACETS.map((f) => this.fields.get(f));
    const active: ActiveFacet[] = [];
    FACETS.forEach((id, f) => {
      const keys = query.facets[id];
      if (!keys || keys.length === 0) return;
      const field = fields[f]!;
      const allowed = new Uint8Array(field.dict.length);
      for (const k of keys) {
        const code = this.fields.find(id, k);
        if (code !== undefined) allowed[code] = 1;
      }
      active.push({ f, field, allowed });
    });
    // Per row: IN_TREND when it passes every facet, VISIBLE when it is also in the day range (one
    // array, so putting rows in sort order below reads one byte per row at random, not two).
    // With a search, only the rows it found (in row order) are looked at.
    const candidates = found?.rows;
    const nc = candidates ? candidates.length : n;
    // Reused from one compute to the next (cleared): a new million-byte array a keystroke is work
    // for the garbage collector.
    if (this.flagsBuf.length < n) this.flagsBuf = new Uint8Array(Math.ceil(n * 1.25));
    const flags = this.flagsBuf.subarray(0, n).fill(0);
    const days = query.days;
    const dlo = days ? days.startMs : 0;
    const dhi = days ? days.endMs : 0;
    const dates = s.dateMs;
    const nActive = active.length;
    // Rows counted in every facet, and rows failing exactly one facet (counted in that one only,
    // so a facet's options show what choosing them would add).
    const counted = new Uint32Array(nc);
    const near = new Uint32Array(nActive ? nc : 0);
    const nearFacet = new Uint8Array(nActive ? nc : 0);
    let visibleCount = 0;
    let trendCount = 0;
    let nearCount = 0;

    for (let k = 0; k < nc; k++) {
      const i = candidates ? candidates[k]! : k;
      if (gmask !== undefined && gmask[i] === 0) continue;
      let fails = 0;
      let failed = -1;
      for (let a = 0; a < nActive; a++) {
        const af = active[a]!;
        if (!allows(af.field, af.allowed, i)) {
          fails++;
          failed = af.f;
          if (fails > 1) break;
        }
      }
      if (fails > 1) continue;
      if (fails === 0) {
        flags[i] = IN_TREND;
        trendCount++;
      }
      // The day range narrows the table and the counts, not the trend it was chosen on.
      if (days && !(dates[i]! >= dlo && dates[i]! <= dhi)) continue;
      if (fails === 0) {
        flags[i] = IN_TREND | VISIBLE;
        counted[visibleCount++] = i;
      } else {
        near[nearCount] = i;
        nearFacet[nearCount++] = failed;
      }
    }

    // Counted one field at a time: tight loops over typed arrays. Without any filter the counts
    // are those of every row, kept and extended as rows come (clearing the search is then instant).
    // Made when first read (lazyView): after a keystroke, in the task after the frame showing its rows.
    const all = this.everyRow(fields);
    const unfiltered = visibleCount === n;
    const selected = query.facets;
    const facets = (): View['facets'] => {
      const rows: Uint32Array[] = unfiltered ? all.rows.slice() : [];
      const emails: Float64Array[] = unfiltered ? all.emails.slice() : [];
      if (!unfiltered) countRows(fields, s.emails, counted.subarray(0, visibleCount), near.subarray(0, nearCount), nearFacet, rows, emails);
      return facetOptions(FACETS, fields, all.rows, rows, emails, selected);
    };

    const out = new Uint32Array(visibleCount);
    const trendRows = new Uint32Array(trendCount);
    let p = 0;
    let q = 0;
    // A search that found few rows: those are put in order, not every row's flag read in order.
    const few = candidates && nc < n >> 3 ? flaggedInOrder(candidates, flags, trendCount, query.sort && this.ranksOf(query.sort.column), !!query.sort?.descending) : undefined;
    for (let k = 0, end = few ? few.length : n; k < end; k++) {
      const i = few ? few[k]! : order[k]!;
      const f = flags[i]!;
      if (f === 0) continue;
      trendRows[q++] = i;
      if (f & VISIBLE) out[p++] = i;
    }
    // The same rows in row order: the summary then reads the row arrays in order, not at random.
    const summary = summarize(s, counted.subarray(0, visibleCount), fields[FACETS.indexOf('category')]!, fields[FACETS.indexOf('dmarc')]!);
    const view = lazyView(out, n, trendRows, facets, summary);
    if (nothingElse && visibleCount === n) {
      this.everyView = { version: s.version, order, view };
      this.unfilteredViews.add(view);
    }
    return this.timed(t0, view);
  }

  /**
   * Every row, nothing filtered: the row-order view (extended as rows come, its summary and facet
   * counts too), in the sort's order when there is one. The table opens sorted by Emails
   * (viewState.ts DEFAULT_SORT), so this is the view while rows stream in: a ranking and a counting
   * sort per update, not a pass over every row's filters, positions and summary.
   */
  private everyRowView(t0: number, sort: SortSpec | undefined): View {
    const s = this.store;
    const fields = FACETS.map((f) => this.fields.get(f));
    const rows = this.rowOrder.view(s, fields, this.everyRow(fields));
    this.unfilteredViews.add(rows);
    if (!sort) {
      this.timings.sortMs = 0;
      return this.timed(t0, rows);
    }
    const ts = performance.now();
    const order = this.sortedOrder(sort);
    t0 += performance.now() - ts;
    const ev = this.everyView;
    if (ev && ev.version === s.version && ev.order === order) return this.timed(t0, ev.view);
    const view = lazyView(order, s.length, rows.trendRows, rows.facets, rows.summary);
    this.unfilteredViews.add(view);
    this.everyView = { version: s.version, order, view };
    return this.timed(t0, view);
  }

  private timed(t0: number, view: View): View {
    this.timings.filterMs = performance.now() - t0;
    return view;
  }
}
