/**
 * Groups, DOM-free: the rows grouped by a field's values with email-weighted rates, in one pass
 * with accumulators in typed arrays indexed by value code. A multi-valued field puts a row in the
 * group of each of its distinct values; rows without a value form the group '' (code = dict.length).
 */
import { verdictOf } from '../../../src/advice/verdict';
import type { Verdict } from '../../../src/advice/vocabulary';
import type { Facts, FieldIndex } from './fieldTypes';
import { denseRanks } from './ranks';
import { drain, mergeSortSteps } from '../../../src/shared/sorts';

export interface GroupStats {
  code: number;
  key: string;
  rows: number;
  emails: number;
  passEmails: number;
  spfEmails: number;
  dkimEmails: number;
  /** Emails delivered (none), quarantined, rejected, other. */
  disposition: Float64Array;
  /** NaN when no row of the group has a date. */
  firstMs: number;
  lastMs: number;
  /** Emails per class (compliant, forwarded, needs fixing, unauthenticated), after the owner's marks. */
  mix: Float64Array;
  /** The group's verdict from its mix ('' without classes: none judged). */
  verdict: Verdict;
}

/** What the groups are judged by: each row's class index (rowClasses.ts) and the Compliant share. */
export interface Judge {
  classes: Uint8Array;
  compliant: number;
}

export interface GroupResult {
  groups: GroupStats[];
  rows: number;
  /** Over the rows given, each row once. */
  emails: number;
  /** A row may be in several groups: shares may add up to more than 100%. */
  multi: boolean;
}

export type GroupSort = 'key' | 'rows' | 'emails' | 'share' | 'pass' | 'spf' | 'dkim' | 'verdict' | 'first' | 'last';

/** Sorting by verdict, descending: what asks for action first (the tie order of verdict.ts), Compliant, then none. */
const VERDICT_RANK: Readonly<Record<Verdict, number>> = { 'needs-fixing': 4, unauthenticated: 3, forwarded: 2, compliant: 1, '': Number.NaN };

/** Whether row i has value `code` in `field` (code = dict.length: the row has no value). */
export function rowHas(field: FieldIndex, i: number, code: number): boolean {
  if (field.kind === 'single') return field.codes[i] === code;
  const s = field.start[i]!;
  const e = field.start[i + 1]!;
  if (s === e) return code === field.dict.length;
  for (let j = s; j < e; j++) if (field.codes[j] === code) return true;
  return false;
}

// Accumulators per value code, interleaved (one cache line or two per group, not one per array):
const ROWS = 0;
const EMAILS = 1;
const PASS = 2;
const SPF = 3;
const DKIM = 4;
const DISP = 5; // 5…8: none, quarantine, reject, other
const FIRST = 9;
const LAST = 10;
const MIX = 11; // 11…14: compliant, forwarded, needs fixing, unauthenticated
const STRIDE = 15;

function add(acc: Float64Array, c: number, i: number, e: number, f: Facts, cls: Uint8Array | undefined): void {
  const o = c * STRIDE;
  if (cls) {
    const k = cls[i]!;
    if (k < 4) acc[o + MIX + k]! += e;
  }
  acc[o + ROWS]!++;
  acc[o + EMAILS]! += e;
  if (f.dmarcPass[i]) acc[o + PASS]! += e;
  if (f.spfAligned[i]) acc[o + SPF]! += e;
  if (f.dkimAligned[i]) acc[o + DKIM]! += e;
  const d = f.disposition[i]!;
  acc[o + DISP + (d < 3 ? d : 3)]! += e;
  const ms = f.dateMs[i]!;
  // NaN fails both comparisons.
  if (ms < acc[o + FIRST]!) acc[o + FIRST] = ms;
  if (ms > acc[o + LAST]!) acc[o + LAST] = ms;
}

/**
 * The groups of some rows, counted but not made into objects: grouping a million rows by IP
 * address can make a million groups, and only the few lines on screen need a GroupStats (making
 * them all took ~1.4 s and as much again in garbage collection). Groups in code order, the
 * empty ones left out.
 */
export class GroupTable {
  /** The groups' order for the last sort asked for (`by` and direction): redrawing does not sort again. */
  private last: { memo: string; order: Uint32Array } | undefined;

  constructor(
    private readonly acc: Float64Array,
    private readonly dict: readonly string[],
    /** The codes of the non-empty groups, ascending. */
    private readonly codes: Uint32Array,
    readonly rows: number,
    readonly emails: number,
    readonly multi: boolean,
    /** The Compliant share the verdicts are judged by; undefined: no classes were counted. */
    private readonly compliant?: number,
  ) {}

  private verdictAt(o: number): Verdict {
    return this.compliant === undefined ? '' : verdictOf(this.acc.subarray(o + MIX, o + MIX + 4), this.compliant);
  }

  /** The code of the group of rows without a value. */
  get noneCode(): number {
    return this.dict.length;
  }

  /** Non-empty groups. */
  get count(): number {
    return this.codes.length;
  }

  /** The k-th group's value code (dict.length: rows without a value). */
  code(k: number): number {
    return this.codes[k]!;
  }

  key(k: number): string {
    const c = this.codes[k]!;
    return c < this.dict.length ? this.dict[c]! : '';
  }

  /** The k-th group (in code order) whose code is `code`, or -1. */
  indexOf(code: number): number {
    let lo = 0;
    let hi = this.codes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.codes[mid]! < code) lo = mid + 1;
      else hi = mid;
    }
    return this.codes[lo] === code ? lo : -1;
  }

  /** The k-th group's emails. */
  emailsAt(k: number): number {
    return this.acc[this.codes[k]! * STRIDE + EMAILS]!;
  }

  /** The k-th group's emails, passing emails and verdict, without a GroupStats (period comparison: every group). */
  sums(k: number): { emails: number; passing: number; verdict: Verdict } {
    const o = this.codes[k]! * STRIDE;
    return { emails: this.acc[o + EMAILS]!, passing: this.acc[o + PASS]!, verdict: this.verdictAt(o) };
  }

  /** The k-th group's figures: a new object each call. */
  stats(k: number): GroupStats {
    const c = this.codes[k]!;
    const o = c * STRIDE;
    const acc = this.acc;
    const first = acc[o + FIRST]!;
    const last = acc[o + LAST]!;
    return {
      code: c,
      key: this.key(k),
      rows: acc[o + ROWS]!,
      emails: acc[o + EMAILS]!,
      passEmails: acc[o + PASS]!,
      spfEmails: acc[o + SPF]!,
      dkimEmails: acc[o + DKIM]!,
      // A view into the accumulators (far cheaper than a copy per group when there are many).
      disposition: acc.subarray(o + DISP, o + DISP + 4),
      firstMs: first === Number.POSITIVE_INFINITY ? Number.NaN : first,
      lastMs: last === Number.NEGATIVE_INFINITY ? Number.NaN : last,
      mix: acc.subarray(o + MIX, o + MIX + 4),
      verdict: this.verdictAt(o),
    };
  }

  /** The groups' positions (k) in the order of `by`, as sortGroups puts their stats. */
  sorted(by: GroupSort, descending: boolean): Uint32Array {
    const memo = `${by} ${descending}`;
    if (this.last?.memo === memo) return this.last.order;
    let order: Uint32Array;
    const n = this.count;
    if (by === 'key') order = orderByKey(n, (k) => this.key(k), descending);
    else {
      const value = new Float64Array(n);
      const acc = this.acc;
      for (let k = 0; k < n; k++) {
        const o = this.codes[k]! * STRIDE;
        const emails = acc[o + EMAILS]!;
        // As passRate, spfRate, dkimRate and the firstMs/lastMs of stats() compute them.
        value[k] =
          by === 'rows' ? acc[o + ROWS]!
          : by === 'emails' || by === 'share' ? emails
          : by === 'pass' ? (emails > 0 ? acc[o + PASS]! / emails : Number.NaN)
          : by === 'spf' ? (emails > 0 ? acc[o + SPF]! / emails : Number.NaN)
          : by === 'dkim' ? (emails > 0 ? acc[o + DKIM]! / emails : Number.NaN)
          : by === 'verdict' ? VERDICT_RANK[this.verdictAt(o)]
          : by === 'first' ? (acc[o + FIRST] === Number.POSITIVE_INFINITY ? Number.NaN : acc[o + FIRST]!)
          : acc[o + LAST] === Number.NEGATIVE_INFINITY ? Number.NaN : acc[o + LAST]!;
      }
      order = orderByValue(value, descending);
    }
    // The last order only: at a million groups each is 4 MB.
    this.last = { memo, order };
    return order;
  }
}

export function countGroups(rows: Uint32Array, facts: Facts, field: FieldIndex, within?: { field: FieldIndex; code: number }, judge?: Judge): GroupTable {
  const cls = judge?.classes;
  const dict = field.dict;
  const n = dict.length + 1;
  const acc = new Float64Array(n * STRIDE);
  for (let o = 0; o < acc.length; o += STRIDE) {
    acc[o + FIRST] = Number.POSITIVE_INFINITY;
    acc[o + LAST] = Number.NEGATIVE_INFINITY;
  }
  let totalRows = 0;
  let totalEmails = 0;
  const codes = field.codes;
  const start = field.kind === 'multi' ? field.start : undefined;
  // `stamp[c] === k + 1` when value c was already counted for the k-th row (duplicates count once).
  const stamp = start ? new Int32Array(n) : undefined;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k]!;
    if (within && !rowHas(within.field, i, within.code)) continue;
    const e = facts.emails[i]!;
    totalRows++;
    totalEmails += e;
    if (!start || !stamp) {
      add(acc, codes[i]!, i, e, facts, cls);
      continue;
    }
    const s = start[i]!;
    const end = start[i + 1]!;
    if (s === end) add(acc, n - 1, i, e, facts, cls);
    for (let j = s; j < end; j++) {
      const c = codes[j]!;
      if (stamp[c] === k + 1) continue;
      stamp[c] = k + 1;
      add(acc, c, i, e, facts, cls);
    }
  }
  let used = 0;
  for (let c = 0, o = 0; c < n; c++, o += STRIDE) if (acc[o + ROWS]) used++;
  const nonEmpty = new Uint32Array(used);
  for (let c = 0, o = 0, k = 0; c < n; c++, o += STRIDE) if (acc[o + ROWS]) nonEmpty[k++] = c;
  return new GroupTable(acc, dict, nonEmpty, totalRows, totalEmails, field.kind === 'multi', judge?.compliant);
}

/** Every group as an object (exports, tests): countGroups is what a view uses. */
export function computeGroups(rows: Uint32Array, facts: Facts, field: FieldIndex, within?: { field: FieldIndex; code: number }, judge?: Judge): GroupResult {
  const t = countGroups(rows, facts, field, within, judge);
  const groups: GroupStats[] = [];
  for (let k = 0; k < t.count; k++) groups.push(t.stats(k));
  return { groups, rows: t.rows, emails: t.emails, multi: t.multi };
}

export function passRate(g: GroupStats): number {
  return g.emails > 0 ? g.passEmails / g.emails : Number.NaN;
}
export function spfRate(g: GroupStats): number {
  return g.emails > 0 ? g.spfEmails / g.emails : Number.NaN;
}
export function dkimRate(g: GroupStats): number {
  return g.emails > 0 ? g.dkimEmails / g.emails : Number.NaN;
}

const collator = new Intl.Collator(undefined);

const NUMERIC: Record<Exclude<GroupSort, 'key'>, (g: GroupStats) => number> = {
  rows: (g) => g.rows,
  emails: (g) => g.emails,
  share: (g) => g.emails,
  pass: passRate,
  spf: spfRate,
  dkim: dkimRate,
  verdict: (g) => VERDICT_RANK[g.verdict],
  first: (g) => g.firstMs,
  last: (g) => g.lastMs,
};

/**
 * The groups sorted by `by`, stable (ties keep their order in `groups`, in both directions); keys
 * in Intl.Collator order; groups without a value to sort by (NaN) come last in both directions.
 */
export function sortGroups(groups: readonly GroupStats[], by: GroupSort, descending: boolean): GroupStats[] {
  const n = groups.length;
  let order: Uint32Array;
  if (by === 'key') order = orderByKey(n, (k) => groups[k]!.key, descending);
  else {
    const f = NUMERIC[by];
    const value = new Float64Array(n);
    for (let k = 0; k < n; k++) value[k] = f(groups[k]!);
    order = orderByValue(value, descending);
  }
  return Array.from(order, (k) => groups[k]!);
}

/** Positions 0…n-1 by their keys in Intl.Collator order, stable in both directions. */
function orderByKey(n: number, keyOf: (k: number) => string, descending: boolean): Uint32Array {
  const dir = descending ? -1 : 1;
  const keys = Array.from({ length: n }, (_, k) => keyOf(k));
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k++) order[k] = k;
  drain(mergeSortSteps(order, (a, b) => dir * collator.compare(keys[a]!, keys[b]!) < 0));
  return order;
}

/** Positions 0…n-1 by value, stable in both directions, NaN last in both. */
export function orderByValue(value: Float64Array, descending: boolean): Uint32Array {
  const n = value.length;
  // A counting sort by the rank of each value among the distinct ones: stable by construction.
  const { rank: ascending, distinct: u } = denseRanks(value);
  // Rank u holds the NaNs, last in both directions.
  const rank = new Uint32Array(n);
  const count = new Uint32Array(u + 2);
  for (let k = 0; k < n; k++) {
    const a = ascending[k]!;
    const r = a === u ? u : descending ? u - 1 - a : a;
    rank[k] = r;
    count[r + 1]!++;
  }
  for (let r = 1; r <= u + 1; r++) count[r]! += count[r - 1]!;
  const out = new Uint32Array(n);
  for (let k = 0; k < n; k++) out[count[rank[k]!]!++] = k;
  return out;
}

/** The rows (in their order) that have `code` in `field`; code = dict.length means no value. */
export function rowsInGroup(rows: Uint32Array, field: FieldIndex, code: number): Uint32Array {
  const out = new Uint32Array(rows.length);
  let n = 0;
  if (field.kind === 'single') {
    const codes = field.codes;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k]!;
      if (codes[i] === code) out[n++] = i;
    }
  } else {
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k]!;
      if (rowHas(field, i, code)) out[n++] = i;
    }
  }
  return out.slice(0, n);
}
