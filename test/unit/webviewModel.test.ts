import { strict as assert } from 'node:assert';
import { COLUMNS, FACETS, T, type ColumnId, type FacetId, type RowTuple } from '../../src/shared/columns';
import { RecordsModel, type Query } from '../../media/webview/data/query';
import { appendTuples } from '../../media/webview/data/tuples';
import { ipSortKey, rankColumn, sortByRank } from '../../media/webview/data/ranks';
import { NO_SIGNATURES } from '../../media/webview/format';
import { generateRows, rng } from '../fixtures/webview-dev/generateRows';

type Field = keyof typeof T | 'dkim';

/** A tuple from field values; `dkim` gives the signatures' results (domain example.com, selector s1). */
function tuple(over: Partial<Record<Field, unknown>> = {}): RowTuple {
  const base: RowTuple = ['Google', 'google.com', 'example.com', 'bounce.example.com', '', '192.0.2.1', 'US', ['mail.google.com'], 10, 'authorized', '2025-03-01T00:00:00Z', 'none', 'pass', 'pass', 'pass', [['example.com', 's1', 'pass']], 'yes', []];
  for (const [k, v] of Object.entries(over)) {
    if (k === 'dkim') (base as unknown[])[T.dkims] = (v as string[]).map((r) => ['example.com', 's1', r]);
    else (base as unknown[])[T[k as keyof typeof T]] = v;
  }
  return base;
}

function modelOf(rows: unknown[]): RecordsModel {
  const m = new RecordsModel();
  appendTuples(m, rows, rows.length);
  return m;
}

const label = (r: string): string => (r === '' ? '(empty)' : r);

/** What a column shows for a tuple, written the slow and obvious way. */
function colText(t: RowTuple, c: ColumnId): string {
  const pass = t[T.alignedSpf] === 'pass' || t[T.alignedDkim] === 'pass';
  const dk = t[T.dkims];
  switch (c) {
    case 'dmarcResult': return pass ? 'pass' : 'fail';
    case 'rdns': return t[T.rdns].join(', ');
    case 'emails': return String(t[T.emails]);
    case 'dkim': return dk.length ? `${dk.length} (${dk.map((d) => label(d[2])).join(', ')})` : '0';
    case 'dkimDomains': return dk.map((d) => `d=${d[0] || '(none)'} s=${d[1] || '(none)'} ${label(d[2])}`).join('\n');
    default: return String(t[T[c as keyof typeof T]]);
  }
}

/** The reference: what a row matches, written the slow and obvious way. */
function facetValues(t: RowTuple, f: FacetId): string[] {
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

function matchesFacet(t: RowTuple, f: FacetId, keys: readonly string[] | undefined): boolean {
  if (!keys || keys.length === 0) return true;
  return facetValues(t, f).some((v) => keys.includes(v));
}

function reference(rows: RowTuple[], q: Query): { visible: number[]; counts: Record<FacetId, Map<string, number>>; emails: Record<FacetId, Map<string, number>> } {
  const visible: number[] = [];
  const counts = Object.fromEntries(FACETS.map((f) => [f, new Map<string, number>()])) as Record<FacetId, Map<string, number>>;
  const emails = Object.fromEntries(FACETS.map((f) => [f, new Map<string, number>()])) as Record<FacetId, Map<string, number>>;
  rows.forEach((t, i) => {
    if (!matchesSearch(t, q.search)) return;
    const ms = Date.parse(t[T.date]);
    if (q.days && !(ms >= q.days.startMs && ms <= q.days.endMs)) return;
    const ok = FACETS.map((f) => matchesFacet(t, f, q.facets[f]));
    if (ok.every(Boolean)) visible.push(i);
    for (const f of FACETS) {
      if (!FACETS.every((g, k) => g === f || ok[k])) continue;
      for (const v of facetValues(t, f)) {
        counts[f].set(v, (counts[f].get(v) ?? 0) + 1);
        emails[f].set(v, (emails[f].get(v) ?? 0) + t[T.emails]);
      }
    }
  });
  return { visible, counts, emails };
}

describe('webview model: rows', () => {
  it('stores tuples column-wise with display text, emails, DKIM text and pass flags', () => {
    const m = modelOf([tuple(), tuple({ dkim: ['pass', 'fail'], alignedSpf: 'fail', alignedDkim: 'fail', emails: 3 }), tuple({ dkim: [], alignedSpf: 'fail', alignedDkim: 'pass', extras: ['reportId', 'r-1'] })]);
    const s = m.store;
    assert.equal(m.length, 3);
    assert.equal(s.cell(0, 'source'), 'Google');
    assert.equal(s.cell(1, 'dkim'), '2 (pass, fail)');
    assert.equal(s.cell(2, 'dkim'), '0');
    assert.equal(s.cell(1, 'emails'), '3');
    assert.equal(s.emails[1], 3);
    assert.deepEqual([...s.dmarcPass.subarray(0, 3)], [1, 0, 1]);
    assert.equal(s.cell(1, 'dmarcResult'), 'fail');
    assert.equal(s.cell(1, 'dkimDomains'), 'd=example.com s=s1 pass\nd=example.com s=s1 fail');
    assert.equal(s.extra(2, 'reportId'), 'r-1');
    assert.deepEqual([...s.extraNames], ['reportId']);
  });

  it('reads malformed tuples as empty values instead of failing', () => {
    const m = modelOf([null, 'x', [1, null, undefined, {}, '', '', '', 'not-a-list', 'many', 'authorized', '', '', '', '', '', 'not-a-list', 5, [1, 2, 3]]]);
    assert.equal(m.length, 3);
    assert.equal(m.store.cell(0, 'source'), '');
    assert.equal(m.store.emails[2], 0);
    assert.equal(m.store.cell(2, 'source'), '1');
    assert.equal(m.store.cell(2, 'dkim'), '0');
    const v = m.compute({ search: '', facets: {} });
    assert.equal(v.order.length, 3);
  });

  it('shows empty result values as (empty) in the DKIM text', () => {
    const m = modelOf([tuple({ dkim: ['', 'pass'] })]);
    assert.equal(m.store.cell(0, 'dkim'), '2 ((empty), pass)');
  });

  it('appends chunks, and a clear starts over', () => {
    const rows = generateRows(250, 4);
    const m = new RecordsModel();
    appendTuples(m, rows.slice(0, 100), 250);
    assert.equal(m.compute({ search: 'google', facets: {} }).order.length, reference(rows.slice(0, 100), { search: 'google', facets: {} }).visible.length);
    appendTuples(m, rows.slice(100), 250);
    const q: Query = { search: 'google', facets: {}, sort: { column: 'emails', descending: true } };
    const v = m.compute(q);
    assert.equal(v.order.length, reference(rows, q).visible.length);
    assert.equal(v.summary.rows, v.order.length);
    m.clear();
    assert.equal(m.length, 0);
    appendTuples(m, rows.slice(0, 10));
    assert.equal(m.compute(q).order.length, reference(rows.slice(0, 10), q).visible.length);
  });
});

describe('webview model: fields', () => {
  it('builds the same field indexes from many small chunks as from one append (past every initial capacity)', () => {
    const rows = generateRows(5000, 31);
    const whole = modelOf(rows);
    const chunked = new RecordsModel();
    const ids = ['source', 'dkimDomain', 'rdns', 'dkimPair', 'ipNetwork', 'extra:reportId'] as const;
    for (let k = 0; k < rows.length; k += 700) {
      appendTuples(chunked, rows.slice(k, k + 700), rows.length);
      // Asked for between chunks, as a streaming panel does.
      for (const id of ids) chunked.fields.get(id);
    }
    const valuesOf = (m: RecordsModel, id: (typeof ids)[number], i: number): string[] => {
      const f = m.fields.get(id);
      if (f.kind === 'single') return [f.dict[f.codes[i]!]!];
      const out: string[] = [];
      for (let j = f.start[i]!; j < f.start[i + 1]!; j++) out.push(f.dict[f.codes[j]!]!);
      return out.sort();
    };
    for (const id of ids) {
      for (let i = 0; i < rows.length; i++) assert.deepEqual(valuesOf(chunked, id, i), valuesOf(whole, id, i), `${id} row ${i}`);
    }
    // And against the tuples themselves.
    for (let i = 0; i < rows.length; i += 37) {
      const t = rows[i]!;
      assert.deepEqual(valuesOf(chunked, 'source', i), [t[T.source]]);
      assert.deepEqual(valuesOf(chunked, 'dkimDomain', i), t[T.dkims].length ? [...new Set(t[T.dkims].map((d) => d[0]))].sort() : [NO_SIGNATURES]);
      assert.deepEqual(valuesOf(chunked, 'extra:reportId', i), [t[T.extras][1]]);
    }
    const q: Query = { search: '', facets: { dkim: ['fail'], source: ['Google', 'Mailchimp'] } };
    assert.deepEqual([...chunked.compute(q).order], reference(rows, q).visible);
  });
});

describe('webview model: search and facets', () => {
  const rows = generateRows(1500, 11);
  rows.push(tuple({ source: 'ÄÖÜ Mailer', dkim: [] }), tuple({ category: '', spf: '' }), tuple({ extras: ['reportId', 'Report-XYZ-7'] }));

  it('matches a case-insensitive, trimmed substring across every field', () => {
    const m = modelOf(rows);
    for (const q of ['GOOGLE', '  mail-1', '192.', 'äöü', '2 (pass', '(empty)', 'partially', 'zzz-nothing', 'T1', '\n', 'k2', 's=selector1', 'mcsv.net', 'reportid=report-xyz', 'r-12']) {
      const expected = reference(rows, { search: q, facets: {} }).visible;
      assert.deepEqual([...m.compute({ search: q, facets: {} }).order], expected, `query ${JSON.stringify(q)}`);
    }
  });

  it('gives the same rows when a query is typed, refined and widened (incremental search)', () => {
    const m = modelOf(rows);
    const typed = 'mail-10';
    const seq = [...typed].map((_, k) => typed.slice(0, k + 1));
    for (const q of [...seq, ...seq.reverse(), 'goo', 'google', 'oogle', '']) {
      assert.deepEqual([...m.compute({ search: q, facets: {} }).order], reference(rows, { search: q, facets: {} }).visible, q);
    }
  });

  it('keeps a search while rows are appended, and narrows it from the rows found so far', () => {
    const m = modelOf(rows.slice(0, 700));
    for (const q of ['mail', 'mail-1', 'google']) assert.deepEqual([...m.compute({ search: q, facets: {} }).order], reference(rows.slice(0, 700), { search: q, facets: {} }).visible, q);
    appendTuples(m, rows.slice(700, 1100));
    appendTuples(m, rows.slice(1100));
    for (const q of ['google', 'google.', 'mail-1', 'mail-12']) assert.deepEqual([...m.compute({ search: q, facets: {} }).order], reference(rows, { search: q, facets: {} }).visible, q);
  });

  it('a search that finds few rows puts them in the same order as the full sort, in both directions, with facets and days', () => {
    const m = modelOf(rows);
    const columns: ColumnId[] = ['emails', 'date', 'source', 'ipAddress', 'rdns', 'dkimDomains', 'dmarcResult'];
    for (const search of ['mail-12', 'mail-1', 'äöü', 'report-xyz', 'zzz-nothing']) {
      for (const column of columns) {
        for (const descending of [false, true]) {
          for (const extra of [{}, { facets: { dkim: ['pass'] } }, { days: { startMs: Date.UTC(2025, 2, 1), endMs: Date.UTC(2025, 8, 1) } }]) {
            const q: Query = { search, facets: {}, sort: { column, descending }, ...extra };
            const want = new Set(reference(rows, q).visible);
            const v = m.compute(q);
            assert.deepEqual([...v.order], [...m.sortedOrder(q.sort)].filter((i) => want.has(i)), JSON.stringify(q));
            v.order.forEach((i, p) => assert.equal(v.posOf[i], p));
          }
        }
      }
    }
  });

  it('combines values of one facet with OR and facets with AND; a DKIM value matches any signature', () => {
    const m = modelOf(rows);
    const queries: Query[] = [
      { search: '', facets: { category: ['rejected', 'quarantined'] } },
      { search: '', facets: { dkim: ['fail'] } },
      { search: '', facets: { dkim: [NO_SIGNATURES, 'pass'], dmarc: ['reject'] } },
      { search: 'google', facets: { alignedSpf: ['pass'], alignedDkim: ['fail', 'none'], spf: [''] } },
      { search: '', facets: { category: [''] } },
      { search: '', facets: { dkimDomain: ['mcsv.net', NO_SIGNATURES], source: ['Google'] } },
      { search: '', facets: { dmarcResult: ['fail'], visibleFrom: ['example.org'] } },
      { search: '', facets: {}, days: { startMs: Date.UTC(2025, 2, 1), endMs: Date.UTC(2025, 5, 1) - 1 } },
    ];
    for (const q of queries) assert.deepEqual([...m.compute(q).order], reference(rows, q).visible, JSON.stringify(q));
  });

  it('counts each option over the rows passing the search and the other facets', () => {
    const m = modelOf(rows);
    const r = rng(5);
    for (let k = 0; k < 40; k++) {
      const facets: Query['facets'] = {};
      for (const f of FACETS) {
        if (r() < 0.35) {
          const opts = m.compute({ search: '', facets: {} }).facets[f];
          facets[f] = opts.filter(() => r() < 0.4).map((o) => o.key);
        }
      }
      const q: Query = { search: r() < 0.3 ? ['google', 'mail-2', '.net', 'pass'][Math.floor(r() * 4)]! : '', facets };
      const v = m.compute(q);
      const ref = reference(rows, q);
      assert.deepEqual([...v.order], ref.visible);
      for (const f of FACETS) {
        for (const o of v.facets[f]) {
          assert.equal(o.count, ref.counts[f].get(o.key) ?? 0, `${f}=${o.key} in ${JSON.stringify(q)}`);
          assert.equal(o.emails, ref.emails[f].get(o.key) ?? 0, `emails of ${f}=${o.key}`);
        }
        for (const [key, count] of ref.counts[f]) assert.ok(v.facets[f].some((o) => o.key === key && o.count === count), `${f}=${key} listed`);
      }
    }
  });

  it('labels empty values (empty) and rows without signatures (none), and keeps selected values the rows lack', () => {
    const m = modelOf([tuple({ category: '', dkim: [] }), tuple()]);
    const v = m.compute({ search: '', facets: { spf: ['gone'] } });
    const cat = v.facets.category.find((o) => o.key === '');
    assert.equal(cat?.label, '(empty)');
    assert.equal(v.facets.dkim.find((o) => o.key === NO_SIGNATURES)?.label, '(none)');
    const gone = v.facets.spf.find((o) => o.key === 'gone');
    assert.deepEqual(gone, { key: 'gone', label: 'gone', count: 0, emails: 0, selected: true });
    assert.equal(v.order.length, 0);
    // Empty values come last.
    assert.equal(v.facets.category[v.facets.category.length - 1]!.key, '');
  });
});

describe('webview model: sort', () => {
  const collator = new Intl.Collator(undefined);

  function refSort(rows: RowTuple[], descending: boolean, cmp: (a: RowTuple, b: RowTuple) => number): number[] {
    const ids = rows.map((_, i) => i);
    // Stable in both directions: ties keep row order.
    return ids.sort((a, b) => (descending ? cmp(rows[b]!, rows[a]!) : cmp(rows[a]!, rows[b]!)) || a - b);
  }

  it('sorts text columns in Intl.Collator order, stable, both directions (also past the presort threshold)', () => {
    for (const n of [300, 5000]) {
      const rows = generateRows(n, 21);
      rows[3] = tuple({ source: 'zeta' });
      rows[4] = tuple({ source: 'Zeta' });
      rows[5] = tuple({ source: 'éclair' });
      const m = modelOf(rows);
      for (const column of ['source', 'rdns', 'returnPath', 'category'] as ColumnId[]) {
        for (const descending of [false, true]) {
          const got = [...m.compute({ search: '', facets: {}, sort: { column, descending } }).order];
          assert.deepEqual(got, refSort(rows, descending, (a, b) => collator.compare(colText(a, column), colText(b, column))), `${column} ${descending} n=${n}`);
        }
      }
    }
  });

  it('sorts emails by number, dates by instant, IP addresses by address, DKIM by signature count', () => {
    const rows = [
      tuple({ emails: 10, date: '2025-03-02T00:00:00Z', ipAddress: '10.0.0.2', dkim: ['pass', 'pass'] }),
      tuple({ emails: 9, date: '2025-03-01T23:00:00-02:00', ipAddress: '9.255.255.255', dkim: [] }),
      tuple({ emails: 100, date: 'not a date', ipAddress: '2001:db8::1', dkim: ['fail'] }),
      tuple({ emails: 9, date: '2025-03-01T12:00:00Z', ipAddress: '10.0.0.10', dkim: Array(10).fill('pass') }),
      tuple({ emails: 1, date: '2025-03-01T12:00:00.000Z', ipAddress: 'unknown', dkim: ['none'] }),
    ];
    const m = modelOf(rows);
    const order = (column: ColumnId, descending = false): number[] => [...m.compute({ search: '', facets: {}, sort: { column, descending } }).order];
    assert.deepEqual(order('emails'), [4, 1, 3, 0, 2]);
    assert.deepEqual(order('emails', true), [2, 0, 1, 3, 4]);
    // 12:00Z twice (same instant, text order), then 01T23:00-02:00 = 02T01:00Z after 02T00:00Z; unparseable last.
    assert.deepEqual(order('date'), [3, 4, 0, 1, 2]);
    assert.deepEqual(order('ipAddress'), [1, 0, 3, 2, 4]);
    assert.deepEqual(order('dkim'), [1, 2, 4, 0, 3]);
  });

  it('keeps ties in row order when descending (stable)', () => {
    const rows = [tuple({ emails: 5 }), tuple({ emails: 7 }), tuple({ emails: 5 }), tuple({ emails: 7 }), tuple({ emails: 5 })];
    const m = modelOf(rows);
    assert.deepEqual([...m.compute({ search: '', facets: {}, sort: { column: 'emails', descending: true } }).order], [1, 3, 0, 2, 4]);
    assert.deepEqual([...m.compute({ search: '', facets: {}, sort: { column: 'emails', descending: false } }).order], [0, 2, 4, 1, 3]);
  });

  it('sorts then filters: the view is the sorted order restricted to matching rows', () => {
    const rows = generateRows(800, 8);
    const m = modelOf(rows);
    const q: Query = { search: 'mail', facets: { category: ['authorized'] }, sort: { column: 'ipAddress', descending: true } };
    const sorted = [...m.sortedOrder(q.sort)];
    const visible = new Set(reference(rows, q).visible);
    const v = m.compute(q);
    assert.deepEqual([...v.order], sorted.filter((i) => visible.has(i)));
    for (let p = 0; p < v.order.length; p++) assert.equal(v.posOf[v.order[p]!], p);
    assert.equal([...v.posOf].filter((p) => p >= 0).length, v.order.length);
  });

  it('re-sorts a computed view to exactly what a full compute gives, and declines once rows were appended', () => {
    const rows = generateRows(900, 21);
    const m = modelOf(rows);
    const base: Query = { search: 'mail', facets: { category: ['authorized', 'rejected'] }, days: { startMs: Date.UTC(2025, 2, 1), endMs: Date.UTC(2025, 8, 1) } };
    let view = m.compute({ ...base, sort: { column: 'source', descending: false } });
    for (const sort of [{ column: 'emails' as const, descending: true }, { column: 'ipAddress' as const, descending: false }, undefined]) {
      const resorted = m.resort(view, sort)!;
      const full = m.compute({ ...base, sort });
      assert.deepEqual([...resorted.order], [...full.order]);
      assert.deepEqual([...resorted.posOf], [...full.posOf]);
      assert.deepEqual(resorted.summary, full.summary);
      assert.deepEqual(resorted.facets, full.facets);
      view = resorted;
    }
    appendTuples(m, [rows[0]!]);
    assert.equal(m.resort(view, { column: 'emails', descending: false }), undefined);
  });

  it('re-sorts after rows are appended', () => {
    const m = new RecordsModel();
    appendTuples(m, [tuple({ emails: 5 }), tuple({ emails: 1 })]);
    const sort = { column: 'emails' as const, descending: false };
    assert.deepEqual([...m.compute({ search: '', facets: {}, sort }).order], [1, 0]);
    appendTuples(m, [tuple({ emails: 0 })]);
    assert.deepEqual([...m.compute({ search: '', facets: {}, sort }).order], [2, 1, 0]);
  });

  it('counting sort by rank is stable', () => {
    const ranks = new Uint32Array([2, 0, 1, 0, 2, 1]);
    assert.deepEqual([...sortByRank(ranks, 3, 6, false)], [1, 3, 2, 5, 0, 4]);
    assert.deepEqual([...sortByRank(ranks, 3, 6, true)], [0, 4, 2, 5, 1, 3]);
  });

  it('orders IP addresses: IPv4 numerically, IPv6 after, anything else last', () => {
    assert.ok(ipSortKey('9.0.0.0') < ipSortKey('10.0.0.0'));
    assert.ok(ipSortKey('255.255.255.255') < ipSortKey('::1'));
    assert.ok(ipSortKey('2001:db8::1') < ipSortKey('2001:db9::'));
    assert.ok(Number.isNaN(ipSortKey('host.example')));
  });

  it('can rank every column ahead of time, a step at a time', () => {
    const m = modelOf(generateRows(50, 2));
    let steps = 0;
    while (m.idleNext()) steps++;
    assert.ok(steps >= COLUMNS.length, `${steps} steps`);
    // Nothing is left, and every column's ranks are the ones computed at once.
    assert.equal(m.idleNext(), false);
    for (const c of COLUMNS) assert.deepStrictEqual(m.ranksOf(c).rank, rankColumn(m.store, c).rank, c);
  });
});

describe('webview model: summary', () => {
  it('weights the DMARC pass rate by emails and sums emails by category and disposition', () => {
    const rows = [
      tuple({ emails: 30, alignedSpf: 'pass', alignedDkim: 'fail', category: 'authorized', dmarc: 'none' }),
      tuple({ emails: 10, alignedSpf: 'fail', alignedDkim: 'pass', category: 'authorized', dmarc: 'none' }),
      tuple({ emails: 60, alignedSpf: 'fail', alignedDkim: 'fail', category: 'rejected', dmarc: 'reject' }),
    ];
    const m = modelOf(rows);
    const s = m.compute({ search: '', facets: {} }).summary;
    assert.equal(s.rows, 3);
    assert.equal(s.emails, 100);
    assert.equal(s.passEmails, 40);
    assert.equal(s.passRate, 0.4);
    assert.deepEqual(s.byCategory, [{ value: 'rejected', emails: 60 }, { value: 'authorized', emails: 40 }]);
    assert.deepEqual(s.byDisposition, [{ value: 'reject', emails: 60 }, { value: 'none', emails: 40 }]);
    const f = m.compute({ search: '', facets: { category: ['authorized'] } }).summary;
    assert.equal(f.emails, 40);
    assert.equal(f.passRate, 1);
    assert.deepEqual(f.byCategory, [{ value: 'authorized', emails: 40 }]);
  });

  it("a view of every row is kept per sort order until rows are added, and it is that of a fresh model", () => {
    const rows = generateRows(300, 5);
    const m = modelOf(rows.slice(0, 200));
    const sort = { column: 'emails' as const, descending: true };
    const all = m.compute({ search: '', facets: {}, sort });
    // A search every row matches is a view of every row: the same view, not counted or ordered again.
    const every = m.compute({ search: '.', facets: {}, sort });
    assert.equal(every.order.length, 200);
    assert.equal(every, all);
    assert.equal(m.compute({ search: '', facets: {}, sort }), all);
    assert.deepEqual(all, modelOf(rows.slice(0, 200)).compute({ search: '', facets: {}, sort }));
    // Another order, a facet, or a day range: computed.
    const other = m.compute({ search: '', facets: {}, sort: { column: 'date', descending: false } });
    assert.notEqual(other, all);
    assert.deepEqual(other, modelOf(rows.slice(0, 200)).compute({ search: '', facets: {}, sort: { column: 'date', descending: false } }));
    assert.ok(m.compute({ search: '', facets: { category: ['authorized'] }, sort }).summary.rows < 200);
    // Rows added: counted again, as a fresh model counts them.
    appendTuples(m, rows.slice(200));
    const after = m.compute({ search: '', facets: {}, sort });
    assert.equal(after.summary.rows, 300);
    assert.deepEqual(after, modelOf(rows).compute({ search: '', facets: {}, sort }));
  });

  it('has no pass rate without emails', () => {
    const s = modelOf([]).compute({ search: '', facets: {} }).summary;
    assert.equal(s.rows, 0);
    assert.ok(Number.isNaN(s.passRate));
  });
});
