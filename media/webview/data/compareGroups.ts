/**
 * The groups table compared with the previous period, DOM-free: the groups of this period's rows
 * and of the previous period's rows (both counted by groups.ts, the same field, the same
 * filters) are compared by src/advice/compare.ts `compareSums`, the module the tree, the watch
 * and the overview use, so the panel's Δ agree with theirs to the email. Groups that sent mail
 * before and none now (gone) get a line of their own after this period's groups, with 0 emails.
 * Sorting by a change (Δ emails, Δ DMARC pass: biggest drop first, new/gone) orders both kinds.
 */
import { biggestDropFirst, compareSums, type Change, type Sums } from '../../../src/advice/compare';
import { orderByValue, type GroupSort, type GroupStats, type GroupTable } from './groups';

/** The columns of the comparison a groups table sorts by. */
export type CompareSort = 'deltaEmails' | 'deltaPass' | 'change';

export const isCompareSort = (by: string): by is CompareSort => by === 'deltaEmails' || by === 'deltaPass' || by === 'change';

/** Per group, emails and passing emails (and the verdict, when the rows were judged). */
export function sumsOfTable(t: GroupTable): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (let k = 0; k < t.count; k++) {
    const s = t.sums(k);
    const sums: Sums = { emails: s.emails, passing: s.passing };
    if (s.verdict) sums.verdict = s.verdict;
    out.set(t.key(k), sums);
  }
  return out;
}

/** A gone group's line: no rows and no emails now. */
function goneStats(key: string): GroupStats {
  return {
    code: -1, key, rows: 0, emails: 0, passEmails: 0, spfEmails: 0, dkimEmails: 0,
    disposition: new Float64Array(4), firstMs: Number.NaN, lastMs: Number.NaN, mix: new Float64Array(4), verdict: '',
  };
}

const STATUS_RANK: Readonly<Record<Change['status'], number>> = { new: 2, gone: 1, kept: 0 };

/**
 * This period's groups (positions 0 … now.count-1, as in `now`) and then the gone ones, each with
 * its change. Shaped like a GroupTable for the lines (groupLines.ts): `stats(k)` and `sorted()`.
 */
export class ComparedGroups {
  readonly changes: Map<string, Change>;
  /** Keys of the groups with emails before and no line now, by most emails before. */
  readonly gone: string[];
  private last: { memo: string; order: Uint32Array } | undefined;

  constructor(readonly now: GroupTable, before: GroupTable) {
    const b = sumsOfTable(before);
    this.changes = compareSums(sumsOfTable(now), b);
    const lined = new Set<string>();
    for (let k = 0; k < now.count; k++) lined.add(now.key(k));
    this.gone = [...b.keys()].filter((key) => !lined.has(key) && b.get(key)!.emails > 0).sort((x, y) => b.get(y)!.emails - b.get(x)!.emails || (x < y ? -1 : x > y ? 1 : 0));
  }

  get count(): number {
    return this.now.count + this.gone.length;
  }

  key(k: number): string {
    return k < this.now.count ? this.now.key(k) : this.gone[k - this.now.count]!;
  }

  stats(k: number): GroupStats {
    return k < this.now.count ? this.now.stats(k) : goneStats(this.gone[k - this.now.count]!);
  }

  /** The k-th group's change (every group has one). */
  change(k: number): Change {
    return this.changes.get(this.key(k))!;
  }

  /**
   * Positions in the order of `by`: this period's sorts keep their order (groups.ts) with the gone
   * groups after them; a change sorts every line. `deltaPass` descending is "biggest drop first"
   * (compare.ts biggestDropFirst), ascending its reverse.
   */
  sorted(by: GroupSort | CompareSort, descending: boolean): Uint32Array {
    const memo = `${by} ${descending}`;
    if (this.last?.memo === memo) return this.last.order;
    const n = this.count;
    let order: Uint32Array;
    if (!isCompareSort(by)) {
      order = new Uint32Array(n);
      order.set(this.now.sorted(by, descending));
      for (let k = this.now.count; k < n; k++) order[k] = k;
    } else if (by === 'deltaPass') {
      const changes = Array.from({ length: n }, (_, k) => this.change(k));
      order = Uint32Array.from({ length: n }, (_, k) => k).sort((a, b) => (descending ? 1 : -1) * biggestDropFirst(changes[a]!, changes[b]!));
    } else {
      const value = new Float64Array(n);
      for (let k = 0; k < n; k++) {
        const c = this.change(k);
        value[k] = by === 'deltaEmails' ? c.deltaEmails : STATUS_RANK[c.status];
      }
      order = orderByValue(value, descending);
    }
    this.last = { memo, order };
    return order;
  }
}
