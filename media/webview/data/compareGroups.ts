/**
 * The groups table compared with the previous period, DOM-free: the groups of this period's rows
 * and of the previous period's rows (both counted by groups.ts, the same field, the same
 * filters) are compared by src/advice/compare.ts `compareSums`, the module the tree, the watch
 * and the overview use, so the panel's Δ agree with theirs to the email. Groups that sent mail
 * before and none now (gone) get a line of their own after this period's groups, with 0 emails.
 * Sorting by a change (Δ emails, Δ DMARC pass: biggest drop first, new/gone) orders both kinds.
 *
 * Each line's change is made when the line is shown: grouping 100k rows by IP address makes tens
 * of thousands of groups a period, and only the sorts by a change (and the export) need them all.
 */
import { biggestDropFirst, compareSums, type Change, type Sums } from '../../../src/advice/compare';
import { orderByValue, type GroupSort, type GroupStats, type GroupTable } from './groups';

/** The columns of the comparison a groups table sorts by. */
export type CompareSort = 'deltaEmails' | 'deltaPass' | 'change';

export const isCompareSort = (by: string): by is CompareSort => by === 'deltaEmails' || by === 'deltaPass' || by === 'change';

/** A value's code in a field's dictionary (each period's rows have their own), or undefined. */
export type FindCode = (key: string) => number | undefined;
/** The code in this period's dictionary of the previous period's value `code` (its text `key`), or undefined. */
export type MapCode = (code: number, key: string) => number | undefined;

/**
 * The previous period's codes of a field in this period's dictionary, looked up once each and
 * kept: grouped by IP address, tens of thousands of groups are matched on every recount (a
 * keystroke), which one string lookup each made 250 ms in a busy page.
 */
export class CodeMap {
  private map = new Int32Array(0);
  private key = '';

  /** `find` looks a value up in this period's dictionary; `version` changes when that dictionary may have. */
  lookup(find: FindCode, version: string): MapCode {
    if (version !== this.key) {
      this.key = version;
      this.map = new Int32Array(0);
    }
    return (code, key) => {
      if (code >= this.map.length) {
        const grown = new Int32Array(Math.max(code + 1, this.map.length * 2)).fill(-2);
        grown.set(this.map);
        this.map = grown;
      }
      let c = this.map[code]!;
      if (c === -2) this.map[code] = c = find(key) ?? -1;
      return c < 0 ? undefined : c;
    };
  }
}

/** Per group, emails and passing emails (and the verdict, when the rows were judged). */
export function sumsOfTable(t: GroupTable): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (let k = 0; k < t.count; k++) out.set(t.key(k), sumsAt(t, k));
  return out;
}

function sumsAt(t: GroupTable, k: number): Sums {
  const s = t.sums(k);
  const sums: Sums = { emails: s.emails, passing: s.passing };
  if (s.verdict) sums.verdict = s.verdict;
  return sums;
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
 * `inBefore` / `inNow` find a value's code in the other period's dictionary.
 */
export class ComparedGroups {
  /** The previous period's positions of the gone groups, by most emails before (ties in the previous period's order). */
  private readonly goneAt: Uint32Array;
  private readonly memo = new Map<number, Change>();
  private all: Map<string, Change> | undefined;
  private last: { memo: string; order: Uint32Array } | undefined;

  constructor(readonly now: GroupTable, private readonly before: GroupTable, private readonly inBefore: FindCode, inNow: MapCode) {
    // Grouped by IP address, most of one week's addresses may be gone the next: tens of thousands.
    const gone: number[] = [];
    for (let k = 0; k < before.count; k++) {
      if (!(before.emailsAt(k) > 0)) continue;
      const code = before.code(k);
      const c = code === before.noneCode ? now.noneCode : inNow(code, before.key(k));
      if (c === undefined || now.indexOf(c) < 0) gone.push(k);
    }
    const emails = Float64Array.from(gone, (k) => before.emailsAt(k));
    this.goneAt = Uint32Array.from(orderByValue(emails, true), (p) => gone[p]!);
  }

  /** Every group's change, by key (compare.ts over both periods' groups): for the sorts by a change and the export. */
  get changes(): Map<string, Change> {
    return (this.all ??= compareSums(sumsOfTable(this.now), sumsOfTable(this.before)));
  }

  /** The keys of the groups with emails before and no line now. */
  get gone(): string[] {
    return Array.from(this.goneAt, (k) => this.before.key(k));
  }

  get count(): number {
    return this.now.count + this.goneAt.length;
  }

  key(k: number): string {
    return k < this.now.count ? this.now.key(k) : this.before.key(this.goneAt[k - this.now.count]!);
  }

  stats(k: number): GroupStats {
    return k < this.now.count ? this.now.stats(k) : goneStats(this.key(k));
  }

  /** The k-th group's change (every group has one): compare.ts over its sums in either period. */
  change(k: number): Change {
    if (this.all) return this.all.get(this.key(k))!;
    let c = this.memo.get(k);
    if (c) return c;
    const key = this.key(k);
    const now = new Map<string, Sums>();
    const before = new Map<string, Sums>();
    if (k < this.now.count) {
      now.set(key, sumsAt(this.now, k));
      const code = this.now.code(k) === this.now.noneCode ? this.before.noneCode : this.inBefore(key);
      const b = code === undefined ? -1 : this.before.indexOf(code);
      if (b >= 0) before.set(key, sumsAt(this.before, b));
    } else before.set(key, sumsAt(this.before, this.goneAt[k - this.now.count]!));
    c = compareSums(now, before).get(key)!;
    this.memo.set(k, c);
    return c;
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
      void this.changes; // every change at once (one pass of compare.ts), not a line at a time
      const changes = Array.from({ length: n }, (_, k) => this.change(k));
      order = Uint32Array.from({ length: n }, (_, k) => k).sort((a, b) => (descending ? 1 : -1) * biggestDropFirst(changes[a]!, changes[b]!));
    } else {
      void this.changes;
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
