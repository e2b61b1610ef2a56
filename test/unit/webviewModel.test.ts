import { strict as assert } from 'node:assert';
import { FACETS, T, type ColumnId } from '../../src/shared/columns';
import { RecordsModel, type Query } from '../../media/webview/data/query';
import { appendTuples } from '../../media/webview/data/tuples';
import { NO_SIGNATURES } from '../../media/webview/format';
import { generateRows, rng } from '../fixtures/webview-dev/generateRows';
import { modelOf, reference, tuple } from './webviewModelHelpers';

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

  it('idle time builds the address fields\' indexes, the same as one built at once; a group-by meanwhile finishes it, and the rows replaced start it over', () => {
    const rows = generateRows(40_000, 7);
    // In chunks, as the panel sends them: the idle steps yield between chunks.
    const chunked = (list: typeof rows): RecordsModel => {
      const m = new RecordsModel();
      for (let k = 0; k < list.length; k += 1250) appendTuples(m, list.slice(k, k + 1250), list.length);
      return m;
    };
    const reference = modelOf(rows);
    const same = (m: RecordsModel, id: 'ipAddress' | 'ipNetwork'): void => {
      const a = m.fields.get(id);
      const b = reference.fields.get(id);
      assert.ok(a.kind === 'single' && b.kind === 'single');
      for (let i = 0; i < rows.length; i++) assert.equal(a.dict[a.codes[i]!], b.dict[b.codes[i]!], `${id} row ${i}`);
    };
    const idle = chunked(rows);
    let steps = 0;
    while (idle.idleNext()) steps++;
    assert.ok(steps > 10, `in steps (${steps})`);
    assert.ok(idle.fields.isBuilt('ipAddress') && idle.fields.isBuilt('ipNetwork'), 'both built once idle work is done');
    same(idle, 'ipAddress');
    same(idle, 'ipNetwork');
    // A group-by half-way through: built at once, and the idle steps after it change nothing.
    const half = chunked(rows);
    while (!half.fields.isBuilt('ipAddress') && half.idleNext()) {
      // Cheap ranks and the search first; stop once the address steps have begun.
      if ((half.fields as unknown as { builders: Map<string, { built: number }> }).builders.get('ipAddress')?.built) break;
    }
    assert.equal(half.fields.isBuilt('ipAddress'), false, 'stopped half-way');
    same(half, 'ipAddress');
    while (half.idleNext());
    same(half, 'ipAddress');
    same(half, 'ipNetwork');
    // Rows replaced mid-way: the new rows get their own index.
    const replaced = chunked(rows);
    while (!(replaced.fields as unknown as { builders: Map<string, { built: number }> }).builders.get('ipAddress')?.built && replaced.idleNext());
    const other = generateRows(3000, 8);
    replaced.clear();
    appendTuples(replaced, other, other.length);
    while (replaced.idleNext());
    const fresh = modelOf(other);
    const f = replaced.fields.get('ipAddress');
    const g = fresh.fields.get('ipAddress');
    assert.ok(f.kind === 'single' && g.kind === 'single');
    for (let i = 0; i < other.length; i++) assert.equal(f.dict[f.codes[i]!], g.dict[g.codes[i]!]);
    // While rows arrive: idle steps between appends build the indexes for the rows in so far, a
    // group-by meanwhile extends them, and the rows appended after each step are added by the next.
    const streaming = new RecordsModel();
    let between = 0;
    for (let k = 0; k < rows.length; k += 1250) {
      appendTuples(streaming, rows.slice(k, k + 1250), rows.length);
      for (let step = 0; step < 3 && streaming.whileRowsArrive(); step++) between++;
      if (k === 20_000) {
        // A group-by half-way: the index of the rows in so far, each row's own address.
        const a = streaming.fields.get('ipAddress');
        const b = reference.fields.get('ipAddress');
        assert.ok(a.kind === 'single' && b.kind === 'single');
        for (let i = 0; i < streaming.length; i++) assert.equal(a.dict[a.codes[i]!], b.dict[b.codes[i]!], `half-way, row ${i}`);
      }
    }
    assert.ok(between > 20, `steps between appends (${between})`);
    assert.ok((streaming.fields as unknown as { builders: Map<string, { built: number }> }).builders.get('ipNetwork')!.built > 0, 'built while rows arrived');
    while (streaming.whileRowsArrive());
    assert.ok(streaming.fields.isBuilt('ipAddress') && streaming.fields.isBuilt('ipNetwork'), 'built to the last row');
    same(streaming, 'ipAddress');
    same(streaming, 'ipNetwork');
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
