// The facet counts over every row are extended as rows stream in (query.ts everyRow): after any
// sequence of appends they must equal counts made from scratch, with filters on or off.
import { strict as assert } from 'node:assert';
import { FACETS } from '../../src/shared/columns';
import { RecordsModel, type Query, type View } from '../../media/webview/data/query';
import { appendTuples } from '../../media/webview/data/tuples';
import { generateRows } from '../fixtures/webview-dev/generateRows';

const facetsOf = (v: View) => FACETS.map((f) => v.facets[f].map((o) => [o.key, o.count, o.emails]));

describe('webview model: counts extended as rows stream in', () => {
  const rows = generateRows(3_000, 11);
  // Sources that only the last rows have: new values appear after the counts were first made.
  const late = generateRows(500, 12, ['Late Sender A', 'Late Sender B']).filter((t) => String(t[0]).startsWith('Late'));
  const all = [...rows, ...late];
  const queries: Query[] = [
    { search: '', facets: {} },
    { search: '', facets: { category: ['authorized'] } },
    { search: 'google', facets: {} },
  ];

  it('streamed in pieces, with recomputes between, the facets and summary equal one load of every row', () => {
    assert.ok(late.length > 10, 'rows with new values');
    const streamed = new RecordsModel();
    for (let off = 0; off < all.length; off += 700) {
      appendTuples(streamed, all.slice(off, off + 700), all.length);
      for (const q of queries) streamed.compute(q);
    }
    const once = new RecordsModel();
    appendTuples(once, all, all.length);
    for (const q of queries) {
      const a = streamed.compute(q);
      const b = once.compute(q);
      assert.deepEqual(facetsOf(a), facetsOf(b), `facets of ${JSON.stringify(q)}`);
      assert.deepEqual(a.summary, b.summary, `summary of ${JSON.stringify(q)}`);
      assert.deepEqual([...a.order], [...b.order]);
    }
    const sources = streamed.compute(queries[0]!).facets.source.map((o) => o.key);
    assert.ok(sources.includes('Late Sender A') || sources.includes('Late Sender B'), `late values counted: ${sources.join(', ')}`);
  });

  it('after a clear (a reload) the counts start over: no row counted twice', () => {
    const m = new RecordsModel();
    appendTuples(m, rows, rows.length);
    m.compute(queries[0]!);
    m.clear();
    appendTuples(m, rows.slice(0, 100), 100);
    const v = m.compute(queries[0]!);
    const total = v.facets.category.reduce((n, o) => n + o.count, 0);
    assert.equal(total, 100, 'each of the 100 rows in one category');
    const fresh = new RecordsModel();
    appendTuples(fresh, rows.slice(0, 100), 100);
    assert.deepEqual(facetsOf(v), facetsOf(fresh.compute(queries[0]!)));
  });

  it('a filtered view counts its facets when they are first read, from the rows it found, whatever was computed since', () => {
    const m = new RecordsModel();
    appendTuples(m, all, all.length);
    const q: Query = { search: 'google', facets: { category: ['authorized'] } };
    const a = m.compute(q);
    // Made when read (a keystroke draws its rows first, the filters' counts in the next task).
    assert.equal(typeof Object.getOwnPropertyDescriptor(a, 'facets')?.get, 'function', 'facets made when first read');
    // Other searches and filters since reuse the model's buffers: the first view's counts are its own.
    m.compute({ search: 'mail', facets: { category: ['rejected'] } });
    m.compute({ search: '', facets: { dmarc: ['reject'] } });
    const fresh = new RecordsModel();
    appendTuples(fresh, all, all.length);
    assert.deepEqual(facetsOf(a), facetsOf(fresh.compute(q)));
    assert.equal(a.facets, a.facets, 'made once');
    const authorized = a.facets.category.find((o) => o.key === 'authorized');
    assert.ok(authorized && authorized.count === a.order.length && a.order.length > 0, `the chosen value counts the rows shown: ${authorized?.count} of ${a.order.length}`);
  });
});
