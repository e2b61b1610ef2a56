/**
 * The ranges a RecordStore holds for one organization, and how a requested range is read from
 * them (one covering entry, or consecutive ones joined). Pure functions over sorted arrays.
 */
import type { DmarcRecord, FetchResult, RecordWarning, RejectedSummary } from '../api/types';
import type { RangeData } from './recordStore';

/** What is held for one organization: entries, and the shared arrays peekRecords gave out. */
export interface HeldRanges {
  entries: Entry[];
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

/** Rows sorted in one go; longer lists are sorted in runs of this many and merged, yielding in between. */
const SORT_RUN = 32_768;
const byDate = (a: DmarcRecord, b: DmarcRecord): number => a.dateMs - b.dateMs;
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * The records by date (ties in their order), as one stable sort would give them, without holding
 * the event loop: sorting a million rows at once blocked the extension host for ~500 ms. Integer
 * dates (all that the API and the report reader give) are sorted by their digits (a stable radix
 * sort of row positions on typed arrays, 14 bits a pass: about 30 ms for a million rows where
 * comparing the records took a second); anything else in runs of comparisons, merged.
 */
export async function sortByDate(records: readonly DmarcRecord[]): Promise<DmarcRecord[]> {
  if (records.length <= SORT_RUN) return [...records].sort(byDate);
  return (await radixByDate(records)) ?? (await mergeByDate(records));
}

const RADIX_BITS = 14;
const RADIX = 1 << RADIX_BITS;
/** Rows a loop of the radix sort goes through before it yields (~5 ms). */
const SLICE = 1 << 18;

/** fn(from, to) over [0, n) in slices, yielding the event loop before each. */
async function sliced(n: number, fn: (from: number, to: number) => void): Promise<void> {
  for (let a = 0; a < n; a += SLICE) {
    await tick();
    fn(a, Math.min(n, a + SLICE));
  }
}

/** Undefined when a date is not an integer or the dates span more than 2^42 ms (139 years). */
async function radixByDate(records: readonly DmarcRecord[]): Promise<DmarcRecord[] | undefined> {
  const n = records.length;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const t = records[i]!.dateMs;
    if (!Number.isInteger(t)) return undefined;
    if (t < min) min = t;
    if (t > max) max = t;
  }
  const span = max - min;
  if (!(span < 2 ** 42)) return undefined;
  const rel = new Float64Array(n);
  let order = new Uint32Array(n);
  await sliced(n, (a, b) => {
    for (let i = a; i < b; i++) {
      rel[i] = records[i]!.dateMs - min;
      order[i] = i;
    }
  });
  let next = new Uint32Array(n);
  const counts = new Uint32Array(RADIX);
  // Least significant digit first: each pass is stable, so ties keep their positions.
  for (let scale = 1; scale <= span; scale *= RADIX) {
    counts.fill(0);
    await sliced(n, (a, b) => {
      for (let i = a; i < b; i++) counts[Math.floor(rel[i]! / scale) % RADIX]!++;
    });
    let sum = 0;
    for (let d = 0; d < RADIX; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    const from = order;
    const to = next;
    await sliced(n, (a, b) => {
      for (let k = a; k < b; k++) {
        const i = from[k]!;
        to[counts[Math.floor(rel[i]! / scale) % RADIX]!++] = i;
      }
    });
    [order, next] = [next, order];
  }
  const out = new Array<DmarcRecord>(n);
  const sortedOrder = order;
  await sliced(n, (a, b) => {
    for (let k = a; k < b; k++) out[k] = records[sortedOrder[k]!]!;
  });
  return out;
}

/** Runs of SORT_RUN rows sorted by comparing, then merged pairwise, yielding in between. */
async function mergeByDate(records: readonly DmarcRecord[]): Promise<DmarcRecord[]> {
  let runs: DmarcRecord[][] = [];
  for (let i = 0; i < records.length; i += SORT_RUN) {
    runs.push(records.slice(i, i + SORT_RUN).sort(byDate));
    await tick();
  }
  while (runs.length > 1) {
    const next: DmarcRecord[][] = [];
    for (let k = 0; k < runs.length; k += 2) next.push(k + 1 < runs.length ? await merge(runs[k]!, runs[k + 1]!) : runs[k]!);
    runs = next;
  }
  return runs[0]!;
}

/** Merges two sorted runs, `a`'s rows first on ties (stable), yielding every 64k rows. */
async function merge(a: DmarcRecord[], b: DmarcRecord[]): Promise<DmarcRecord[]> {
  const out = new Array<DmarcRecord>(a.length + b.length);
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < a.length && j < b.length) {
    out[o++] = b[j]!.dateMs < a[i]!.dateMs ? b[j++]! : a[i++]!;
    if ((o & 0xffff) === 0) await tick();
  }
  while (i < a.length) out[o++] = a[i++]!;
  while (j < b.length) out[o++] = b[j++]!;
  return out;
}

export async function makeEntry(start: number, end: number, result: FetchResult, fetchedAt: number): Promise<Entry> {
  let records = result.records;
  let inside = true;
  let sorted = true;
  for (let i = 0; i < records.length; i++) {
    const t = records[i]!.dateMs;
    if (!(t >= start && t <= end)) inside = false;
    else if (i > 0 && t < records[i - 1]!.dateMs) sorted = false;
  }
  if (!inside) records = records.filter((r) => r.dateMs >= start && r.dateMs <= end);
  if (!sorted || !inside) records = await sortByDate(records);
  return { start, end, records, warnings: result.warnings, rejected: result.rejected, fetchedAt, storedSeq: ++nextSeq };
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
