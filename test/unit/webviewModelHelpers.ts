/** Shared by the webview model's tests: tuples from field values, and the slow, obvious reference a view is compared with. */
import { COLUMNS, FACETS, T, type ColumnId, type FacetId, type RowTuple } from '../../src/shared/columns';
import { RecordsModel, type Query } from '../../media/webview/data/query';
import { appendTuples } from '../../media/webview/data/tuples';
import { NO_SIGNATURES } from '../../media/webview/format';
import { termOf } from '../../src/advice/vocabulary';
export type Field = keyof typeof T | 'dkim';

/** A tuple from field values; `dkim` gives the signatures' results (domain example.com, selector s1). */
export function tuple(over: Partial<Record<Field, unknown>> = {}): RowTuple {
  const base: RowTuple = ['Google', 'google.com', 'example.com', 'bounce.example.com', '', '192.0.2.1', 'US', ['mail.google.com'], 10, 'authorized', '2025-03-01T00:00:00Z', 'none', 'pass', 'pass', 'pass', [['example.com', 's1', 'pass']], 'passed', [], 'spf-aligned-pass', 'dkim-aligned-pass', 'compliant', ''];
  for (const [k, v] of Object.entries(over)) {
    if (k === 'dkim') (base as unknown[])[T.dkims] = (v as string[]).map((r) => ['example.com', 's1', r]);
    else (base as unknown[])[T[k as keyof typeof T]] = v;
  }
  return base;
}

export function modelOf(rows: unknown[]): RecordsModel {
  const m = new RecordsModel();
  appendTuples(m, rows, rows.length);
  return m;
}

const label = (r: string): string => (r === '' ? '(empty)' : r);

/** What a column shows for a tuple, written the slow and obvious way. */
export function colText(t: RowTuple, c: ColumnId): string {
  const pass = t[T.alignedSpf] === 'pass' || t[T.alignedDkim] === 'pass';
  const dk = t[T.dkims];
  switch (c) {
    case 'dmarcResult': return pass ? 'pass' : 'fail';
    case 'rdns': return t[T.rdns].join(', ');
    case 'emails': return String(t[T.emails]);
    case 'dkim': return dk.length ? `${dk.length} (${dk.map((d) => label(d[2])).join(', ')})` : '0';
    case 'dkimDomains': return dk.map((d) => `d=${d[0] || '(none)'} s=${d[1] || '(none)'} ${label(d[2])}`).join('\n');
    // The advice codes read as their labels (a code outside the vocabulary as sent).
    case 'rowClass': case 'spfReason': case 'dkimReason': return termOf(t[T[c]])?.label ?? t[T[c]];
    default: return String(t[T[c as keyof typeof T]]);
  }
}

/** The reference: what a row matches, written the slow and obvious way. */
/**
 * The verdict of each source over every row, the obvious way: emails per class (rows whose class
 * is outside the vocabulary count in none), Compliant at 98%, else the class with most failing
 * emails, ties going to Needs fixing, then Unauthenticated, then Forwarded; '' without emails.
 */
function sourceVerdicts(rows: RowTuple[]): Map<string, string> {
  const at: Record<string, number> = { compliant: 0, forwarded: 1, 'needs-fixing': 2, unauthenticated: 3 };
  const mixes = new Map<string, number[]>();
  for (const t of rows) {
    const src = String(t[T.source] ?? '');
    const mix = mixes.get(src) ?? [0, 0, 0, 0];
    mixes.set(src, mix);
    const k = Object.hasOwn(at, t[T.rowClass]) ? at[t[T.rowClass]]! : -1;
    const n = typeof t[T.emails] === 'number' ? t[T.emails] : Number(t[T.emails]);
    if (k >= 0) mix[k]! += Number.isFinite(n) && n > 0 ? n : 0;
  }
  const out = new Map<string, string>();
  for (const [src, [c, f, nf, u]] of mixes) {
    const total = c! + f! + nf! + u!;
    const v = total === 0 ? '' : c! >= 0.98 * total ? 'compliant' : nf! >= u! && nf! >= f! ? 'needs-fixing' : u! >= f! ? 'unauthenticated' : 'forwarded';
    out.set(src, v ? termOf(v)!.label : '');
  }
  return out;
}

let verdicts: { rows: RowTuple[]; bySource: Map<string, string> } | undefined;

function facetValues(t: RowTuple, f: FacetId, rows: RowTuple[]): string[] {
  if (f === 'verdict') {
    if (verdicts?.rows !== rows) verdicts = { rows, bySource: sourceVerdicts(rows) };
    return [verdicts.bySource.get(String(t[T.source] ?? '')) ?? ''];
  }
  const dk = t[T.dkims];
  if (f === 'dkim') return dk.length ? [...new Set(dk.map((d) => d[2]))] : [NO_SIGNATURES];
  if (f === 'dkimDomain') return dk.length ? [...new Set(dk.map((d) => d[0]))] : [NO_SIGNATURES];
  return [colText(t, f as ColumnId)];
}

function matchesSearch(t: RowTuple, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  const extras = t[T.extras];
  const parts = COLUMNS.map((c) => colText(t, c));
  for (let k = 0; k < extras.length; k += 2) parts.push(`${extras[k]}=${extras[k + 1]}`);
  return `${parts.join('\n')}\n`.toLowerCase().includes(needle);
}

function matchesFacet(t: RowTuple, f: FacetId, keys: readonly string[] | undefined, rows: RowTuple[]): boolean {
  if (!keys || keys.length === 0) return true;
  return facetValues(t, f, rows).some((v) => keys.includes(v));
}

export function reference(rows: RowTuple[], q: Query): { visible: number[]; counts: Record<FacetId, Map<string, number>>; emails: Record<FacetId, Map<string, number>> } {
  const visible: number[] = [];
  const counts = Object.fromEntries(FACETS.map((f) => [f, new Map<string, number>()])) as Record<FacetId, Map<string, number>>;
  const emails = Object.fromEntries(FACETS.map((f) => [f, new Map<string, number>()])) as Record<FacetId, Map<string, number>>;
  rows.forEach((t, i) => {
    if (!matchesSearch(t, q.search)) return;
    const ms = Date.parse(t[T.date]);
    if (q.days && !(ms >= q.days.startMs && ms <= q.days.endMs)) return;
    const ok = FACETS.map((f) => matchesFacet(t, f, q.facets[f], rows));
    if (ok.every(Boolean)) visible.push(i);
    for (const f of FACETS) {
      if (!FACETS.every((g, k) => g === f || ok[k])) continue;
      for (const v of facetValues(t, f, rows)) {
        counts[f].set(v, (counts[f].get(v) ?? 0) + 1);
        emails[f].set(v, (emails[f].get(v) ?? 0) + t[T.emails]);
      }
    }
  });
  return { visible, counts, emails };
}
