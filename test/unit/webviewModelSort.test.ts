import { strict as assert } from 'node:assert';
import { COLUMNS, type ColumnId, type RowTuple } from '../../src/shared/columns';
import { RecordsModel, type Query } from '../../media/webview/data/query';
import { appendTuples } from '../../media/webview/data/tuples';
import { ipSortKey, rankColumn, sortByRank } from '../../media/webview/data/ranks';
import { generateRows } from '../fixtures/webview-dev/generateRows';
import { colText, modelOf, reference, tuple } from './webviewModelHelpers';

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

  it('re-sorts every row, and a filtered view, without reading positions first: orders and positions as a full compute, and a view made before rows were appended is declined', () => {
    const rows = generateRows(1200, 33);
    const m = modelOf(rows);
    const filtered: Query = { search: 'mail', facets: { category: ['authorized'] } };
    for (const base of [{ search: '', facets: {} } as Query, filtered]) {
      let view = m.compute(base);
      for (const sort of [{ column: 'date' as const, descending: true }, { column: 'source' as const, descending: false }, undefined]) {
        // The positions of `view` are never read before it is re-sorted.
        const resorted = m.resort(view, sort)!;
        const fresh = modelOf(rows).compute({ ...base, sort });
        assert.deepEqual([...resorted.order], [...fresh.order]);
        const pos = resorted.posOf;
        assert.equal(pos.length, rows.length);
        assert.deepEqual([...pos], [...fresh.posOf]);
        assert.equal(resorted.posOf, pos, 'the positions are made once');
        view = resorted;
      }
    }
    const unread = m.resort(m.compute(filtered), { column: 'emails', descending: false })!;
    appendTuples(m, [rows[1]!]);
    assert.equal(m.resort(unread, { column: 'emails', descending: true }), undefined);
  });

  it('a search every row matches, after a re-sort of every row, reuses that view; a filtered view re-sorted does not stand for every row', () => {
    const rows = generateRows(700, 5).map((r, i) => (i === 3 ? tuple({ source: 'Zmail.example' }) : r));
    const m = modelOf(rows);
    const every = m.compute({ search: '', facets: {} });
    const sort = { column: 'emails' as const, descending: true };
    const resorted = m.resort(every, sort)!;
    // '.' is in every row's date or address: the search matches them all.
    const all = m.compute({ search: '.', facets: {}, sort });
    assert.equal(all, resorted);
    const full = new RecordsModel();
    appendTuples(full, rows);
    assert.deepEqual([...all.order], [...full.compute({ search: '.', facets: {}, sort }).order]);
    assert.deepEqual(all.facets, full.compute({ search: '.', facets: {}, sort }).facets);
    // A search for one row, re-sorted: a search every row matches is computed, not that view.
    const one = m.compute({ search: 'zmail', facets: {} });
    assert.equal(one.order.length, 1);
    const oneSorted = m.resort(one, { column: 'source', descending: false })!;
    const dot = m.compute({ search: '.', facets: {}, sort: { column: 'source', descending: false } });
    assert.notEqual(dot, oneSorted);
    assert.equal(dot.order.length, rows.length);
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
