/**
 * The ranges a RecordStore holds for one organization, and how a requested range is read from
 * them (one covering entry, or consecutive ones joined). Pure functions over sorted arrays.
 */
import type { DmarcRecord, FetchResult, RecordWarning, RejectedSummary } from '../api/types';
import type { RangeData } from './storeTypes';
import { perfMark } from '../perf';

/** What is held for one organization: entries, and the shared arrays peekRecords gave out. */
export interface HeldRanges {
  entries: Entry[];
  /**
   * The shared arrays `peekRecords` gave out, per `start/end`. Emptied whenever `entries`
   * changes, so an array handed out stands for the same held data for as long as it is returned.
   */
  views: Map<string, readonly DmarcRecord[]>;
}

export interface Entry {
  start: number;
  end: number;
  /** Only rows inside [start, end], sorted by dateMs. */
  records: DmarcRecord[];
  warnings: RecordWarning[];
  rejected: RejectedSummary;
  fetchedAt: number;
  /** Insertion order, for dropping the oldest ranges first. */
  storedSeq: number;
}

let nextSeq = 0;

/** Rows sorted in one go; longer lists are sorted a slice at a time, yielding in between. */
const SORT_RUN = 32_768;
const byDate = (a: DmarcRecord, b: DmarcRecord): number => a.dateMs - b.dateMs;
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
/**
 * Rows a loop over the records goes through before it yields: ~5–10 ms over a million rows
 * scattered in the heap (a quarter of a million took 20–70 ms in the extension host at 1M rows).
 */
const SLICE = 1 << 16;

/**
 * The records by date (ties in their order), as one stable sort would give them, without holding
 * the event loop (sorting a million rows at once blocked the extension host for ~500 ms): runs of
 * SORT_RUN rows' positions sorted by their dates one at a time (Array.prototype.sort is stable),
 * then merged in pairs, a slice at a time. Plain arrays only: the radix sort of the dates it
 * replaced allocated ~20 MB of typed arrays for a million rows right after a load, while VS Code
 * still held ~60 MB of the panel's messages, and V8 started a full collection for external memory
 * (Node, the bench's million rows with 60 MB of buffers held: a pause of up to 404 ms, the radix
 * sort 540–713 ms against 150–204 without them; this one 498–519 ms, no collection, its longest
 * stall 12–14 ms). bench:panel: the host's longest block after a load in 4 of 17 runs (278–481
 * ms) before, no block over 100 ms after it in six runs since.
 */
export async function sortByDate(records: readonly DmarcRecord[]): Promise<DmarcRecord[]> {
  const n = records.length;
  if (n <= SORT_RUN) return [...records].sort(byDate);
  // The dates in one array, read in order from then on (not from rows scattered in the heap).
  const keys = new Array<number>(n);
  await sliced(n, (a, b) => {
    for (let i = a; i < b; i++) keys[i] = records[i]!.dateMs;
  });
  const byKey = (x: number, y: number): number => keys[x]! - keys[y]!;
  let runs: number[][] = [];
  for (let a = 0; a < n; a += SORT_RUN) {
    await tick();
    const run = new Array<number>(Math.min(SORT_RUN, n - a));
    for (let k = 0; k < run.length; k++) run[k] = a + k;
    runs.push(run.sort(byKey));
  }
  while (runs.length > 1) {
    const next: number[][] = [];
    for (let k = 0; k + 1 < runs.length; k += 2) next.push(await merged(runs[k]!, runs[k + 1]!, keys));
    if (runs.length % 2 === 1) next.push(runs[runs.length - 1]!);
    runs = next;
  }
  const order = runs[0]!;
  const out = new Array<DmarcRecord>(n);
  await sliced(n, (a, b) => {
    for (let k = a; k < b; k++) out[k] = records[order[k]!]!;
  });
  return out;
}

/** Two runs of positions sorted by their `keys` merged into one, `a`'s first among equal keys, a slice at a time. */
async function merged(a: readonly number[], b: readonly number[], keys: readonly number[]): Promise<number[]> {
  const out = new Array<number>(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let o = 0; o < out.length; ) {
    await tick();
    for (const end = Math.min(out.length, o + SLICE); o < end; o++) {
      out[o] = j >= b.length || (i < a.length && keys[a[i]!]! <= keys[b[j]!]!) ? a[i++]! : b[j++]!;
    }
  }
  return out;
}

/**
 * The rows of `records` (sorted by date) with from <= dateMs <= to and, if given, of `source`,
 * without holding the event loop: when the first and the last row are inside and no source is
 * asked for, `records` itself (a store's view is a fresh array already inside its range); else a
 * filter a slice at a time (a million rows filtered at once blocked the extension host ~200 ms).
 */
export async function rowsWithin(records: DmarcRecord[], from: number, to: number, source?: string): Promise<DmarcRecord[]> {
  const n = records.length;
  const inside = (r: DmarcRecord): boolean => r.dateMs >= from && r.dateMs <= to;
  if (source === undefined && (n === 0 || (inside(records[0]!) && inside(records[n - 1]!)))) return records;
  const kept: DmarcRecord[] = [];
  await sliced(n, (a, b) => {
    for (let i = a; i < b; i++) {
      const r = records[i]!;
      if (inside(r) && (source === undefined || r.source === source)) kept.push(r);
    }
  });
  return kept;
}

/** fn(from, to) over [0, n) in slices, yielding the event loop before each. */
async function sliced(n: number, fn: (from: number, to: number) => void): Promise<void> {
  for (let a = 0; a < n; a += SLICE) {
    await tick();
    fn(a, Math.min(n, a + SLICE));
  }
}

export async function makeEntry(start: number, end: number, result: FetchResult, fetchedAt: number): Promise<Entry> {
  let records = result.records;
  let inside = true;
  let sorted = true;
  // In slices, like the sort: one pass over a million rows scattered in the heap, right as the
  // body ended, was ~50 ms of the extension host's longest block (and the filter as much again).
  const all = records;
  await sliced(all.length, (a, b) => {
    for (let i = a; i < b; i++) {
      const t = all[i]!.dateMs;
      if (!(t >= start && t <= end)) inside = false;
      else if (i > 0 && t < all[i - 1]!.dateMs) sorted = false;
    }
  });
  if (!inside) {
    const kept: DmarcRecord[] = [];
    await sliced(all.length, (a, b) => {
      for (let i = a; i < b; i++) {
        const r = all[i]!;
        if (r.dateMs >= start && r.dateMs <= end) kept.push(r);
      }
    });
    records = kept;
  }
  if (!sorted || !inside) {
    perfMark('sortStart', { rows: records.length });
    records = await sortByDate(records);
    perfMark('sortEnd', { rows: records.length });
  }
  return { start, end, records, warnings: result.warnings, rejected: result.rejected, fetchedAt, storedSeq: ++nextSeq };
}

/**
 * Drops the oldest entries of `held` (never those `keep` says to keep) while their rows and
 * `extra` more are over `max`. Returns the entries dropped, oldest first.
 */
export function dropOldest(held: readonly HeldRanges[], max: number, extra = 0, keep?: (entry: Entry, state: HeldRanges) => boolean): Entry[] {
  const all: { state: HeldRanges; entry: Entry }[] = [];
  let total = extra;
  for (const state of held) {
    for (const entry of state.entries) {
      all.push({ state, entry });
      total += entry.records.length;
    }
  }
  const dropped: Entry[] = [];
  if (total <= max) return dropped;
  all.sort((a, b) => a.entry.storedSeq - b.entry.storedSeq);
  for (const { state, entry } of all) {
    if (total <= max) break;
    if (keep?.(entry, state)) continue;
    state.entries = state.entries.filter((x) => x !== entry);
    state.views.clear();
    total -= entry.records.length;
    dropped.push(entry);
  }
  return dropped;
}

/** Adds an entry, dropping the held ones inside its range that it supersedes (not newer ones). */
export function insert(state: HeldRanges, entry: Entry): void {
  state.entries = state.entries.filter((x) => !(x.start >= entry.start && x.end <= entry.end && x.fetchedAt <= entry.fetchedAt));
  state.entries.push(entry);
  state.views.clear();
}

/** Index of the first record with dateMs >= t (records sorted by dateMs). */
export function lowerBound(records: readonly DmarcRecord[], t: number): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (records[mid]!.dateMs < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function slice(entry: Entry, s: number, e: number): DmarcRecord[] {
  if (s <= entry.start && e >= entry.end) return entry.records.slice();
  return entry.records.slice(lowerBound(entry.records, s), lowerBound(entry.records, e + 1));
}

export function view(entry: Entry, s: number, e: number, fromCache: RangeData['fromCache']): RangeData {
  return { records: slice(entry, s, e), warnings: entry.warnings, rejected: entry.rejected, fetchedAt: entry.fetchedAt, fromCache };
}

/** The held entry covering the whole range, the most recently fetched if several. */
export function covering(state: HeldRanges, s: number, e: number): Entry | undefined {
  let best: Entry | undefined;
  for (const x of state.entries) {
    if (x.start <= s && x.end >= e && (!best || x.fetchedAt > best.fetchedAt)) best = x;
  }
  return best;
}

export function fromMemory(state: HeldRanges, s: number, e: number): RangeData | undefined {
  const best = covering(state, s, e);
  if (best) return view(best, s, e, 'memory');

  // Consecutive entries covering the range together: from the cursor, the one reaching furthest.
  const pieces: { entry: Entry; from: number; to: number }[] = [];
  for (let cursor = s; cursor <= e;) {
    let pick: Entry | undefined;
    for (const x of state.entries) {
      if (x.start <= cursor && x.end >= cursor && (!pick || x.end > pick.end)) pick = x;
    }
    if (!pick) return undefined;
    pieces.push({ entry: pick, from: cursor, to: Math.min(pick.end, e) });
    cursor = pick.end + 1;
  }
  const records: DmarcRecord[] = [];
  for (const p of pieces) for (const r of slice(p.entry, p.from, p.to)) records.push(r);
  return {
    records,
    warnings: mergeWarnings(pieces.map((p) => p.entry.warnings)),
    rejected: {
      count: pieces.reduce((n, p) => n + p.entry.rejected.count, 0),
      samples: pieces.flatMap((p) => p.entry.rejected.samples).slice(0, 10),
    },
    fetchedAt: Math.min(...pieces.map((p) => p.entry.fetchedAt)),
    fromCache: 'memory',
  };
}

function mergeWarnings(lists: RecordWarning[][]): RecordWarning[] {
  const byKey = new Map<string, RecordWarning>();
  for (const list of lists) {
    for (const w of list) {
      const key = `${w.field}\u0000${w.value}`;
      const had = byKey.get(key);
      if (had) byKey.set(key, { ...had, count: had.count + w.count });
      else byKey.set(key, w);
    }
  }
  return [...byKey.values()];
}
