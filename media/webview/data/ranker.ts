/**
 * The sort ranks of the records table's columns (ranks.ts), DOM-free: computed once per store
 * version, on the first sort by a column or ahead of time in idle time. Ahead of time, a column
 * is ranked a step of a few milliseconds at a time (ranks.ts rankSteps): at a million rows some
 * columns take most of a second to rank, which in one piece held the page, and a click on a
 * header with it.
 */
import { COLUMNS, type ColumnId } from '../../../src/shared/columns';
import { drain } from './columnScan';
import { rankColumn, rankSteps, type Ranks } from './ranks';
import type { RowStore } from './store';

/**
 * The order columns are ranked in ahead of time: the cheap ones first (numbers, and texts with
 * few distinct values: well under 100 ms each at a million rows), so that most columns sort at
 * once soon after the load; the texts with hundreds of thousands of distinct values (addresses,
 * return paths, rDNS names: up to 2 s each at a million rows, in steps) last.
 */
const LAST: readonly ColumnId[] = ['ipAddress', 'dkimDomains', 'returnPath', 'rdns'];
/** Volume and time first: the sorts people reach for when a report opens. */
const FIRST: readonly ColumnId[] = ['emails', 'date'];
const PRERANK_ORDER: readonly ColumnId[] = [...FIRST, ...COLUMNS.filter((c) => !LAST.includes(c) && !FIRST.includes(c)), ...LAST];

export class ColumnRanks {
  private readonly ranks = new Map<ColumnId, Ranks>();
  /** The column being ranked in idle time, and its steps so far. */
  private job: { column: ColumnId; version: number; steps: Generator<void, Ranks, void> } | undefined;

  constructor(private readonly store: RowStore) {}

  clear(): void {
    this.ranks.clear();
    this.job = undefined;
  }

  /** Bytes of the rank arrays. */
  bytes(): number {
    let n = 0;
    for (const r of this.ranks.values()) n += r.rank.byteLength;
    return n;
  }

  /** A column's ranks for the store as it is now. */
  get(column: ColumnId): Ranks {
    const s = this.store;
    const cached = this.ranks.get(column);
    if (cached && cached.version === s.version) return cached;
    // Being ranked in idle time: finished now rather than started over.
    const job = this.job?.column === column && this.job.version === s.version ? this.job : undefined;
    if (job) this.job = undefined;
    const r = job ? drain(job.steps) : rankColumn(s, column);
    r.version = s.version;
    this.ranks.set(column, r);
    return r;
  }

  /**
   * Ranks the columns not ranked yet (only the cheap ones when `cheap`), a step at a time: at
   * least one step, more while `more()` says so. False once every column asked for is ranked.
   */
  next(more: () => boolean = () => false, cheap = false): boolean {
    const s = this.store;
    do {
      if (!this.job || this.job.version !== s.version) {
        const column = PRERANK_ORDER.find((c) => this.ranks.get(c)?.version !== s.version && !(cheap && LAST.includes(c)));
        if (!column) {
          this.job = undefined;
          return false;
        }
        this.job = { column, version: s.version, steps: rankSteps(s, column) };
      }
      const job = this.job;
      const step = job.steps.next();
      if (step.done) {
        this.job = undefined;
        step.value.version = job.version;
        this.ranks.set(job.column, step.value);
      }
    } while (more());
    return true;
  }
}
