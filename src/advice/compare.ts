/**
 * What changed between two periods: per group (a source, an IP, an organization…) its emails and
 * DMARC pass rate now and in the previous period of equal length, the change in emails and in
 * pass rate (points), whether the group is **new** (no emails in the previous period, nor in the
 * earlier days the caller knows of) or **gone** (emails before, none now), and its verdict before
 * and now when the caller judged both. One module for the tree, the panel's Compare, the watch
 * and the overview, so they say the same.
 *
 * A row passes DMARC when its aligned SPF or aligned DKIM passes (records/summary.ts `passes`):
 * the same email-weighted pass rate the tree and the panel show.
 *
 * The webview imports this file: it must stay free of zod, tldts-icann and `vscode`.
 */
import type { Verdict } from './vocabulary';

export const DAY_MS = 86_400_000;

/** A group's sums in one period. */
export interface Sums {
  emails: number;
  /** Emails that pass DMARC. */
  passing: number;
  verdict?: Verdict;
}

export type ChangeStatus = 'new' | 'gone' | 'kept';

export interface Change {
  key: string;
  emails: number;
  before: number;
  /** emails − before. */
  deltaEmails: number;
  /** Pass rates (0–1); undefined without emails in that period. */
  passNow: number | undefined;
  passBefore: number | undefined;
  /** (passNow − passBefore) in percentage points; undefined when either is. */
  deltaPass: number | undefined;
  status: ChangeStatus;
  verdictNow?: Verdict;
  verdictBefore?: Verdict;
}

const rate = (s: Sums | undefined): number | undefined => (s && s.emails > 0 ? s.passing / s.emails : undefined);

/**
 * Every group of either period, compared. `seenEarlier(key)` says whether the group had emails in
 * days before the previous period (where the caller has them at hand): such a group is not new.
 */
export function compareSums(now: ReadonlyMap<string, Sums>, before: ReadonlyMap<string, Sums>, seenEarlier: (key: string) => boolean = () => false): Map<string, Change> {
  const out = new Map<string, Change>();
  const add = (key: string): void => {
    if (out.has(key)) return;
    const n = now.get(key);
    const b = before.get(key);
    const emails = n?.emails ?? 0;
    const prev = b?.emails ?? 0;
    const passNow = rate(n);
    const passBefore = rate(b);
    const status: ChangeStatus = emails > 0 && prev === 0 ? (seenEarlier(key) ? 'kept' : 'new') : emails === 0 && prev > 0 ? 'gone' : 'kept';
    const c: Change = {
      key, emails, before: prev, deltaEmails: emails - prev, passNow, passBefore,
      deltaPass: passNow === undefined || passBefore === undefined ? undefined : (passNow - passBefore) * 100,
      status,
    };
    if (n?.verdict !== undefined) c.verdictNow = n.verdict;
    if (b?.verdict !== undefined) c.verdictBefore = b.verdict;
    out.set(key, c);
  };
  for (const k of now.keys()) add(k);
  for (const k of before.keys()) add(k);
  return out;
}

/** The verdict moved between two judged verdicts (a source that went from Compliant to Needs fixing). */
export const verdictMoved = (c: Change): boolean => !!c.verdictNow && !!c.verdictBefore && c.verdictNow !== c.verdictBefore;

/**
 * "Biggest drop first": the largest fall in pass rate first, then gone groups (all their mail
 * went), then the largest fall in emails; groups without a rate change after those with one;
 * ties by key.
 */
export function biggestDropFirst(a: Change, b: Change): number {
  const da = a.deltaPass ?? Infinity;
  const db = b.deltaPass ?? Infinity;
  if (da !== db) return da < db ? -1 : 1;
  if (a.deltaEmails !== b.deltaEmails) return a.deltaEmails - b.deltaEmails;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The period of equal length that ends the millisecond before `start` (bounds inclusive, like the tree's buckets). */
export function previousPeriod(start: Date, end: Date): { start: Date; end: Date } {
  const length = end.getTime() - start.getTime();
  const prevEnd = start.getTime() - 1;
  return { start: new Date(prevEnd - length), end: new Date(prevEnd) };
}

/** The fields of a row the comparison reads (a DmarcRecord has them). */
export interface ComparableRow {
  readonly emails: number;
  readonly alignedSpf: string;
  readonly alignedDkim: string;
}

/** Sums per key over rows; rows whose key is undefined are skipped. */
export function sumsBy<R extends ComparableRow>(rows: readonly R[], keyOf: (r: R) => string | undefined): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const k = keyOf(r);
    if (k === undefined) continue;
    let s = out.get(k);
    if (!s) out.set(k, (s = { emails: 0, passing: 0 }));
    s.emails += r.emails;
    if (r.alignedSpf === 'pass' || r.alignedDkim === 'pass') s.passing += r.emails;
  }
  return out;
}

/** The whole set's sums. */
export function totalOf(rows: readonly ComparableRow[]): Sums {
  let emails = 0;
  let passing = 0;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    emails += r.emails;
    if (r.alignedSpf === 'pass' || r.alignedDkim === 'pass') passing += r.emails;
  }
  return { emails, passing };
}

/** The whole period compared with the previous one (an organization's headline). */
export function compareTotals(now: readonly ComparableRow[], before: readonly ComparableRow[]): Change {
  return compareSums(new Map([['', totalOf(now)]]), new Map([['', totalOf(before)]])).get('')!;
}
