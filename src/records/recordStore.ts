/**
 * The range cache between the API client and the views: asks the API for a date range at most
 * once, shares in-flight requests, answers narrower ranges from wider ones already held, and
 * keeps settled ranges on disk between sessions.
 *
 * Rules:
 * - Memory is per accountId + organizationId; the base URL and API key are not part of any key
 *   (call `invalidate` when they change).
 * - A request is answered from memory when the held ranges cover it: one covering entry (the
 *   most recently fetched if several), or else consecutive entries that together cover it (e.g.
 *   "Last 7 days" across a month boundary from the two months). The records are those of the
 *   entries with start <= dateMs <= end. Warnings and the rejected summary are those of the
 *   responses the data came from (they cannot be attributed to a date).
 * - Otherwise it waits for an in-flight request covering it, if any (a day inside a month being
 *   fetched waits for the month), else starts one. Callers share it; one caller's AbortSignal
 *   only abandons that caller's wait, and the request itself is aborted when every waiter has.
 * - Memory holds at most `maxRecords` rows: storing a range (or a fetch passing half the bound
 *   as it streams in) drops the oldest others. The newest stays even alone over the bound while
 *   its panel is open; when a panel closes (`release`) or a fetch's first rows come in, the ranges
 *   over the bound that no open panel shows (`setViews`) go too.
 * - Storing a range drops the held entries inside it that are not newer (a month read from disk
 *   does not displace a day refreshed this session). A failed request changes nothing, so a
 *   failed refresh leaves the old data in place.
 * - `get` and `peek` give each caller a fresh array; `peekRecords` a shared one, the same while
 *   the held data is, so views can memoise summaries per range.
 * - Settled ranges (see `isClosed`) are read from the DiskCache before the network and written
 *   to it after a network fetch; open ones (today, Last N days, the current month) stay in
 *   memory only.
 */
import type { DmarcRecord, FetchResult } from '../api/types';
import { DEFAULT_SETTLE_DAYS, isClosed } from './buckets';
import type { DiskCache } from './diskCache';
import { settledWithin, wakeSignal } from '../shared/busy';
import type { GetOptions, InUse, RangeData, RangeFetcher, RecordScope, RecordStoreOptions, RowsListener } from './storeTypes';
import { covering, dropOldest, fromMemory, insert, makeEntry, slice, view, type Entry, type HeldRanges } from './rangeEntries';

export type { GetOptions, InUse, RangeData, RangeFetcher, RecordScope, RecordStoreOptions, RowsListener } from './storeTypes';

/** How long a fetch's result waits for its `onComplete` callers to hand its rows on (RowsOptions). */
const HANDOFF_MAX_MS = 30_000;

interface Flight {
  start: number;
  end: number;
  /** Goes to the API for sure (a refresh, or a range the disk cannot hold). */
  fresh: boolean;
  controller: AbortController;
  /** Callers still waiting; the request is aborted when the last one with a signal gives up. */
  waiters: number;
  promise: Promise<{ entry: Entry; source: 'disk' | 'network' }>;
  /** The rows that arrived so far, in hand-outs (replayed to a caller that joins late). */
  streamed: DmarcRecord[][];
  listeners: Set<RowsListener>;
  /** The fetch's result once it is in, before it is sorted and kept. */
  completed?: FetchResult;
  onComplete: Set<(result: FetchResult) => unknown>;
}

/** What is held for one organization (HeldRanges: entries and the arrays peekRecords gave out), and its fetches. */
interface ScopeState extends HeldRanges {
  flights: Flight[];
}

export class RecordStore {
  private readonly fetcher: RangeFetcher;
  private readonly disk: DiskCache | undefined;
  private readonly noDisk: (accountId: string) => boolean;
  private readonly writeDelayMs: number;
  private readonly quiet: () => Promise<void>;
  private readonly maxRecords: number;
  private readonly now: () => Date;
  private readonly settleDays: number;
  private readonly log: (line: string) => void;
  /** accountId → organizationId → state */
  private readonly accounts = new Map<string, Map<string, ScopeState>>();
  private readonly writes = new Set<Promise<void>>();
  /** Abandons the disk write of a range that left memory (write). */
  private readonly abandon = new Map<Entry, () => void>();
  private woken = wakeSignal();
  /** The disk clears `invalidate` started, done. */
  private clearing: Promise<void> = Promise.resolve();
  /** What the open views show (`setViews`). */
  private shown: InUse = () => false;
  /** A `release` kept a range for its disk write: it is done again after each write. */
  private afterWrites = false;

  constructor(opts: RecordStoreOptions) {
    this.fetcher = opts.fetch;
    this.disk = opts.disk;
    this.noDisk = opts.noDisk ?? (() => false);
    this.writeDelayMs = opts.writeDelayMs ?? 0;
    this.quiet = opts.quiet ?? (() => Promise.resolve());
    this.maxRecords = opts.maxRecords ?? 300_000;
    this.now = opts.now ?? (() => new Date());
    this.settleDays = opts.settleDays ?? DEFAULT_SETTLE_DAYS;
    this.log = opts.log ?? (() => undefined);
  }

  async get(scope: RecordScope, start: Date, end: Date, opts: GetOptions = {}): Promise<RangeData> {
    const s = start.getTime();
    const e = end.getTime();
    if (!(s <= e)) throw new RangeError(`Invalid range ${String(start)} – ${String(end)}`);
    const state = this.state(scope.accountId, scope.organizationId, true)!;
    if (!opts.refresh) {
      const hit = fromMemory(state, s, e);
      if (hit) return hit;
    }
    opts.signal?.throwIfAborted();
    const flight = state.flights.find((f) => f.start <= s && f.end >= e && !f.controller.signal.aborted && (f.fresh || !opts.refresh))
      ?? this.startFlight(scope, state, s, e, opts.refresh === true);
    const listener = opts.onRows;
    const complete = listener ? opts.onComplete : undefined;
    if (listener) {
      let offset = 0;
      for (const records of flight.streamed) {
        listener(records, offset);
        offset += records.length;
      }
      flight.listeners.add(listener);
    }
    if (complete) {
      if (flight.completed) complete(flight.completed);
      else flight.onComplete.add(complete);
    }
    try {
      const { entry, source } = await this.join(state, flight, opts.signal);
      return view(entry, s, e, source);
    } finally {
      if (listener) flight.listeners.delete(listener);
      if (complete) flight.onComplete.delete(complete);
    }
  }

  /** What memory holds for the range, without fetching; undefined when it is not covered. */
  peek(scope: Pick<RecordScope, 'accountId' | 'organizationId'>, start: Date, end: Date): RangeData | undefined {
    const state = this.state(scope.accountId, scope.organizationId, false);
    const s = start.getTime();
    const e = end.getTime();
    return state && s <= e ? fromMemory(state, s, e) : undefined;
  }

  /**
   * The rows memory holds for the range, like `peek` but without copying them: a shared array,
   * the same object on every call for as long as the held data of this organization does not
   * change (a fetch, a refresh or a drop gives new arrays). Callers may therefore memoise what
   * they compute from it by identity (a WeakMap), and must not modify it. Undefined when memory
   * does not cover the range. Never fetches.
   */
  peekRecords(scope: Pick<RecordScope, 'accountId' | 'organizationId'>, start: Date, end: Date): readonly DmarcRecord[] | undefined {
    const state = this.state(scope.accountId, scope.organizationId, false);
    const s = start.getTime();
    const e = end.getTime();
    if (!state || !(s <= e)) return undefined;
    const k = `${s}/${e}`;
    let records = state.views.get(k);
    if (!records) {
      const best = covering(state, s, e);
      records = best ? (s <= best.start && e >= best.end ? best.records : slice(best, s, e)) : fromMemory(state, s, e)?.records;
      if (!records) return undefined;
      state.views.set(k, records);
    }
    return records;
  }

  /**
   * Forgets an account (or one of its organizations): memory, in-flight results (still given
   * to their waiters but not kept), and disk files. For a removed account or a changed key.
   * Never rejects (a disk failure is logged).
   */
  async invalidate(accountId: string, organizationId?: string): Promise<void> {
    if (organizationId === undefined) this.accounts.delete(accountId);
    else this.accounts.get(accountId)?.delete(organizationId);
    // A write already under way would otherwise land after the clear.
    this.wakeWrites();
    const clearing = this.flush().then(() => this.disk?.clear(accountId, organizationId).catch((err: unknown) => this.log(`disk cache clear failed: ${String(err)}`)));
    // Reads of the disk wait for it: the callers do not (a command removing an account), and a
    // range asked for meanwhile must not come from the files being cleared.
    this.clearing = Promise.all([this.clearing, clearing]).then(() => undefined);
    await clearing;
  }

  /** Inserts an entry, then drops the oldest entries (never this one) while over maxRecords. */
  private keep(state: ScopeState, entry: Entry): void {
    insert(state, entry);
    this.fit(0, (e) => e === entry);
  }

  /** How the store asks which ranges the open views show (the records panels: src/panel/recordsPanels.ts). */
  setViews(inUse: InUse): void {
    this.shown = inUse;
  }

  /**
   * A view stopped showing its rows (a panel closed): drops the oldest ranges while the rows held
   * are over maxRecords, except those the open views still show and those whose disk write is
   * under way (looked at again when it is done: dropped now, it would be abandoned). Before, the
   * newest range stayed whatever its size until the next fetch: a closed million-row panel kept
   * ~400 MB of the extension host, which every extension shares.
   */
  release(): void {
    let waiting = false;
    this.fitUnshown(0, (entry) => this.abandon.has(entry) && (waiting = true));
    this.afterWrites = waiting;
  }

  /** `fit`, keeping what the open views show and what `keep` says. */
  private fitUnshown(arriving: number, keep: (entry: Entry) => boolean = () => false): void {
    const scopes = new Map<HeldRanges, [string, string]>();
    for (const [accountId, orgs] of this.accounts) for (const [orgId, st] of orgs) scopes.set(st, [accountId, orgId]);
    this.fit(arriving, (entry, st) => this.shown(...scopes.get(st)!, entry.start, entry.end) || keep(entry));
  }

  /** Drops the oldest ranges while the rows held and `arriving` more are over maxRecords (also while a fetch streams in: a second 1M range arrived on top of the first, 1.27 GB in use). */
  private fit(arriving: number, keep?: (entry: Entry, state: HeldRanges) => boolean): void {
    const held = [...this.accounts.values()].flatMap((orgs) => [...orgs.values()]);
    for (const gone of dropOldest(held, this.maxRecords, arriving, keep)) {
      this.log(`memory cache: dropped a range of ${gone.records.length} rows (over ${this.maxRecords})`);
      this.abandon.get(gone)?.();
    }
  }

  /** Resolves when the disk writes started so far have finished (they never reject). */
  async flush(): Promise<void> {
    await Promise.all([...this.writes]);
  }

  private state(accountId: string, organizationId: string, create: boolean): ScopeState | undefined {
    let orgs = this.accounts.get(accountId);
    if (!orgs) {
      if (!create) return undefined;
      orgs = new Map();
      this.accounts.set(accountId, orgs);
    }
    let st = orgs.get(organizationId);
    if (!st && create) {
      st = { entries: [], flights: [], views: new Map() };
      orgs.set(organizationId, st);
    }
    return st;
  }

  private isCurrent(scope: RecordScope, state: ScopeState): boolean {
    return this.accounts.get(scope.accountId)?.get(scope.organizationId) === state;
  }

  private startFlight(scope: RecordScope, state: ScopeState, s: number, e: number, refresh: boolean): Flight {
    const disk = this.disk && !this.noDisk(scope.accountId) && isClosed(e, this.now(), this.settleDays) ? this.disk : undefined;
    const controller = new AbortController();
    // Rows as they arrive (disk or network) to the listeners, kept for late joiners; memory bound kept.
    const onRows = (records: DmarcRecord[], offset: number): Promise<unknown> | undefined => {
      (offset === 0 ? (flight.streamed = []) : flight.streamed).push(records);
      // A fetch's first rows: over the cap, the ranges no view shows leave memory now, before the
      // new rows pile up on them (a previous million-row range still held when the next one
      // arrived: the collector traced it on the host's cores at the start of the load). A disk
      // write still under way for one is abandoned, as storing the new range would do anyway.
      if (offset === 0) this.fitUnshown(records.length);
      if (offset + records.length > this.maxRecords / 2) this.fit(offset + records.length);
      let holds: unknown[] | undefined; // the reading waits for each listener that asks it to
      for (const l of [...flight.listeners]) {
        try {
          const asked = l(records, offset);
          if (asked instanceof Promise) (holds ??= []).push(asked);
        } catch (err) {
          this.log(`a listener of streamed rows failed: ${String(err)}`);
        }
      }
      return holds && Promise.all(holds);
    };
    const run = async (): Promise<{ entry: Entry; source: 'disk' | 'network' }> => {
      if (disk && !refresh) {
        await this.clearing;
        // Rows handed on as they are read (a file found damaged later: the fetch starts over at 0).
        const stored = await disk.findCovering(scope.accountId, scope.organizationId, s, e, onRows).catch((err: unknown) => {
          this.log(`disk cache read failed: ${String(err)}`);
          return undefined;
        });
        if (stored) {
          const entry = await makeEntry(stored.start, stored.end, stored.result, stored.fetchedAt);
          if (this.isCurrent(scope, state)) this.keep(state, entry);
          return { entry, source: 'disk' };
        }
      }
      const result = await this.fetcher(scope, new Date(s), new Date(e), controller.signal, onRows);
      flight.streamed = [];
      flight.completed = result;
      const handing: unknown[] = [];
      for (const l of [...flight.onComplete]) {
        try {
          handing.push(l(result));
        } catch (err) {
          this.log(`a listener of a completed fetch failed: ${String(err)}`);
        }
      }
      flight.onComplete.clear();
      await settledWithin(handing, HANDOFF_MAX_MS);
      const entry = await makeEntry(s, e, result, this.now().getTime());
      if (this.isCurrent(scope, state)) {
        this.keep(state, entry);
        if (disk) this.write(disk, scope, entry);
      }
      return { entry, source: 'network' };
    };
    const flight: Flight = { start: s, end: e, fresh: refresh || !disk, controller, waiters: 0, promise: undefined!, streamed: [], listeners: new Set(), onComplete: new Set() };
    // Over the cap, the ranges no view shows leave memory as the fetch starts, before it allocates
    // anything (and again at its first rows, below, for the rows arriving): a closed million-row
    // panel's ranges were otherwise still held as the next load began. The collection of them
    // still comes early in that load and can pause the host (bench:panel at 1M rows: a final
    // pause of 153 ms in one run of twelve; runs 2 and 3 of another set blocked 73 and 75 ms).
    this.fitUnshown(0);
    flight.promise = run();
    state.flights.push(flight);
    const done = (): void => {
      const i = state.flights.indexOf(flight);
      if (i >= 0) state.flights.splice(i, 1);
    };
    flight.promise.then(done, done);
    return flight;
  }

  private join(state: ScopeState, flight: Flight, signal: AbortSignal | undefined): Promise<{ entry: Entry; source: 'disk' | 'network' }> {
    flight.waiters++;
    if (!signal) return flight.promise;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        flight.waiters--;
        if (flight.waiters === 0) {
          // Nobody wants it any more: stop it, and let no new caller join it.
          const i = state.flights.indexOf(flight);
          if (i >= 0) state.flights.splice(i, 1);
          flight.controller.abort(signal.reason);
        }
        reject(signal.reason);
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
        (err: unknown) => { signal.removeEventListener('abort', onAbort); reject(err); },
      );
    });
  }

  private write(disk: DiskCache, scope: RecordScope, entry: Entry): void {
    const delay = this.writeDelayMs;
    const state = this.accounts.get(scope.accountId)?.get(scope.organizationId);
    const woken = this.woken.promise;
    // A write under way pauses while views are busy again (a million rows take ~20 s of slices to
    // write, which the next large range's rows otherwise shared the host with), and is abandoned
    // when its range leaves memory meanwhile (it would hold a million rows for its own sake).
    let gone = false;
    const dropped = new Promise<void>((r) => this.abandon.set(entry, () => ((gone = true), r())));
    const quiet = async (): Promise<boolean> => (await Promise.race([this.quiet(), woken, dropped]), !gone);
    const p = (async () => {
      if (delay > 0) await Promise.race([new Promise<void>((r) => setTimeout(r, delay)), woken, dropped]);
      // Invalidated while it waited: nothing to write (the files are being cleared).
      if (!(await quiet()) || state !== this.accounts.get(scope.accountId)?.get(scope.organizationId)) return;
      await disk.write(scope.accountId, scope.organizationId, entry.start, entry.end, entry, entry.fetchedAt, quiet, Promise.race([woken, dropped]));
    })()
      .catch((err: unknown) => this.log(`disk cache write failed: ${String(err)}`))
      .finally(() => {
        this.writes.delete(p);
        this.abandon.delete(entry);
        if (this.afterWrites) this.release();
      });
    this.writes.add(p);
  }

  /** Writes waiting (their delay, quiet views) go ahead at once: `invalidate` waits for them. */
  private wakeWrites(): void {
    this.woken.resolve();
    this.woken = wakeSignal();
  }
}
