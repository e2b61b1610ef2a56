/**
 * Groups, DOM-free: the rows grouped by a field's values with email-weighted rates, in one pass
 * with accumulators in typed arrays indexed by value code. A multi-valued field puts a row in the
 * group of each of its values; rows without a value form the group '' (code = dict.length).
 */
import type { Facts, FieldIndex } from './fieldTypes';

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
  firstMs: number;
  lastMs: number;
}

export interface GroupResult {
  groups: GroupStats[];
  rows: number;
  /** Over the rows given, each row once. */
  emails: number;
  /** A row may be in several groups: shares may add up to more than 100%. */
  multi: boolean;
}

export type GroupSort = 'key' | 'rows' | 'emails' | 'share' | 'pass' | 'spf' | 'dkim' | 'first' | 'last';

function has(field: FieldIndex, i: number, code: number): boolean {
  if (field.kind === 'single') return field.codes[i] === code;
  const s = field.start[i]!;
  const e = field.start[i + 1]!;
  if (s === e) return code === field.dict.length;
  for (let j = s; j < e; j++) if (field.codes[j] === code) return true;
  return false;
}

export function computeGroups(rows: Uint32Array, facts: Facts, field: FieldIndex, within?: { field: FieldIndex; code: number }): GroupResult {
  const n = field.dict.length + 1;
  const count = new Uint32Array(n);
  const emails = new Float64Array(n);
  const pass = new Float64Array(n);
  const spf = new Float64Array(n);
  const dkim = new Float64Array(n);
  const disp = new Float64Array(n * 4);
  const first = new Float64Array(n).fill(Number.NaN);
  const last = new Float64Array(n).fill(Number.NaN);
  let totalRows = 0;
  let totalEmails = 0;
  const add = (c: number, i: number, e: number): void => {
    count[c]!++;
    emails[c]! += e;
    if (facts.dmarcPass[i]) pass[c]! += e;
    if (facts.spfAligned[i]) spf[c]! += e;
    if (facts.dkimAligned[i]) dkim[c]! += e;
    disp[c * 4 + Math.min(3, facts.disposition[i]!)]! += e;
    const ms = facts.dateMs[i]!;
    if (ms === ms) {
      if (!(first[c]! <= ms)) first[c] = ms;
      if (!(last[c]! >= ms)) last[c] = ms;
    }
  };
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k]!;
    if (within && !has(within.field, i, within.code)) continue;
    const e = facts.emails[i]!;
    totalRows++;
    totalEmails += e;
    if (field.kind === 'single') add(field.codes[i]!, i, e);
    else {
      const s = field.start[i]!;
      const end = field.start[i + 1]!;
      if (s === end) add(n - 1, i, e);
      for (let j = s; j < end; j++) add(field.codes[j]!, i, e);
    }
  }
  const groups: GroupStats[] = [];
  for (let c = 0; c < n; c++) {
    if (count[c] === 0) continue;
    groups.push({
      code: c,
      key: c < n - 1 ? field.dict[c]! : '',
      rows: count[c]!,
      emails: emails[c]!,
      passEmails: pass[c]!,
      spfEmails: spf[c]!,
      dkimEmails: dkim[c]!,
      disposition: disp.slice(c * 4, c * 4 + 4),
      firstMs: first[c]!,
      lastMs: last[c]!,
    });
  }
  return { groups, rows: totalRows, emails: totalEmails, multi: field.kind === 'multi' };
}

export const passRate = (g: GroupStats): number => (g.emails > 0 ? g.passEmails / g.emails : Number.NaN);
export const spfRate = (g: GroupStats): number => (g.emails > 0 ? g.spfEmails / g.emails : Number.NaN);
export const dkimRate = (g: GroupStats): number => (g.emails > 0 ? g.dkimEmails / g.emails : Number.NaN);

const collator = new Intl.Collator(undefined);

/** A stable sort; groups without a value for the key (NaN) come last in both directions. */
export function sortGroups(groups: readonly GroupStats[], by: GroupSort, descending: boolean): GroupStats[] {
  if (by === 'key') {
    const out = groups.slice().sort((a, b) => collator.compare(a.key, b.key));
    return descending ? out.reverse() : out;
  }
  const value: Record<Exclude<GroupSort, 'key'>, (g: GroupStats) => number> = {
    rows: (g) => g.rows,
    emails: (g) => g.emails,
    share: (g) => g.emails,
    pass: passRate,
    spf: spfRate,
    dkim: dkimRate,
    first: (g) => g.firstMs,
    last: (g) => g.lastMs,
  };
  const f = value[by];
  const keyed = groups.map((g, k) => ({ g, k, v: f(g) }));
  keyed.sort((a, b) => {
    const an = Number.isNaN(a.v);
    const bn = Number.isNaN(b.v);
    if (an || bn) return an === bn ? a.k - b.k : an ? 1 : -1;
    return (descending ? b.v - a.v : a.v - b.v) || a.k - b.k;
  });
  return keyed.map((x) => x.g);
}

/** The rows (in their order) that have `code` in `field`; code = dict.length means no value. */
export function rowsInGroup(rows: Uint32Array, field: FieldIndex, code: number): Uint32Array {
  const out: number[] = [];
  for (let k = 0; k < rows.length; k++) if (has(field, rows[k]!, code)) out.push(rows[k]!);
  return Uint32Array.from(out);
}
