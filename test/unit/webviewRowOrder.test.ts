import { strict as assert } from 'node:assert';
import { RecordsModel, type Query, type View } from '../../media/webview/data/query';
import { summarize } from '../../media/webview/data/summary';
import { appendTuples } from '../../media/webview/data/tuples';
import { generateRows } from '../fixtures/webview-dev/generateRows';
import { reference, tuple } from './webviewModelHelpers';

const NONE: Query = { search: '', facets: {} };
/** A day range holding every row: the model then takes its full pass (nothing is filtered out). */
const ALL_DAYS: Query = { ...NONE, days: { startMs: -8.64e15, endMs: 8.64e15 } };

/** The summary of the model's first `n` rows, computed in one pass (summary.ts). */
function summaryOf(model: RecordsModel, n: number): View['summary'] {
  return summarize(model.store, Uint32Array.from({ length: n }, (_, i) => i), model.fields.get('category'), model.fields.get('dmarc'));
}

/** The view the full pass gives, in plain arrays. */
function plain(v: View): unknown {
  return { order: [...v.order], posOf: [...v.posOf], trendRows: [...v.trendRows], facets: v.facets, summary: v.summary };
}

describe('webview model: every row in row order, extended as rows are appended', () => {
  it('equals the full pass after each append: order, positions, trend rows, facets, summary', () => {
    const rows = [
      ...generateRows(1_500, 5),
      tuple({ category: '', emails: 0 }),
      tuple({ dmarc: 'reject', emails: 3.5 }),
      tuple({ category: 'weird <b>', dmarc: '', emails: 1e9 }),
      ...generateRows(700, 6),
    ];
    // Fractions, across the appends: the sums must be those of the full pass, bit for bit.
    for (let k = 0; k < rows.length; k += 97) rows[k] = tuple({ category: k % 2 ? 'forwarded' : 'authorized', emails: 0.1 * (k % 7) });
    const model = new RecordsModel();
    const views: View[] = [];
    for (const size of [1, 99, 400, 3, 1_000, 700, 100]) {
      const from = model.length;
      appendTuples(model, rows.slice(from, from + size), rows.length);
      const v = model.compute(NONE);
      views.push(v);
      const full = new RecordsModel();
      appendTuples(full, rows.slice(0, model.length), rows.length);
      assert.deepEqual(plain(v), plain(full.compute(ALL_DAYS)), `after ${model.length} rows`);
      assert.deepEqual(v.summary, summaryOf(model, model.length));
      assert.deepEqual([...v.order], reference(rows.slice(0, model.length), NONE).visible);
    }
    assert.equal(model.length, rows.length);
    // A view handed out before later appends is unchanged (its arrays are views that never move).
    for (const v of views) assert.deepEqual([...v.order], Array.from({ length: v.order.length }, (_, i) => i));
    // Computed again without an append: the same view; and for a search every row matches.
    assert.equal(model.compute({ search: ' ', facets: {} }), model.compute(NONE));
    const everyRowHas: Query = { ...NONE, search: 'E' };
    assert.equal(reference(rows, everyRowHas).visible.length, rows.length, 'a letter every row has');
    assert.equal(model.compute(everyRowHas), model.compute(NONE));
  });

  it('sorted (the table opens by Emails, biggest first), nothing filtered: every row in sort order after each append, with the full pass\u2019s facets and summary', () => {
    const rows = generateRows(2_400, 12);
    for (const sort of [{ column: 'emails', descending: true }, { column: 'source', descending: false }] as const) {
      const q: Query = { ...NONE, sort };
      const model = new RecordsModel();
      for (const size of [1, 99, 400, 3, 1_000, 897]) {
        appendTuples(model, rows.slice(model.length, model.length + size), rows.length);
        const v = model.compute(q);
        const full = new RecordsModel();
        appendTuples(full, rows.slice(0, model.length), rows.length);
        const f = full.compute({ ...ALL_DAYS, sort });
        const at = `${sort.column} after ${model.length} rows`;
        assert.deepEqual([...v.order], [...f.order], at);
        assert.deepEqual([...v.posOf], [...f.posOf], at);
        // The trend counts its rows in any order: the same rows.
        assert.deepEqual([...v.trendRows].sort((a, b) => a - b), [...f.trendRows].sort((a, b) => a - b), at);
        assert.deepEqual(v.facets, f.facets, at);
        assert.deepEqual(v.summary, f.summary, at);
      }
      // Without an append: the same view again; a search every row matches gives it too.
      assert.equal(model.compute(q), model.compute(q));
      assert.equal(model.compute({ ...q, search: 'E' }), model.compute(q));
    }
  });

  it('starts over after a clear, and hands over to the full pass for a sort, a search or a facet', () => {
    const model = new RecordsModel();
    appendTuples(model, generateRows(300, 8), 300);
    assert.equal(model.compute(NONE).summary.rows, 300);
    model.clear();
    const rows = generateRows(120, 9);
    appendTuples(model, rows, 120);
    const v = model.compute(NONE);
    assert.equal(v.order.length, 120);
    assert.deepEqual(v.summary, summaryOf(model, 120));
    const sorted = model.compute({ ...NONE, sort: { column: 'emails', descending: true } });
    assert.deepEqual([...sorted.order], [...sorted.order].sort((a, b) => model.store.emails[b]! - model.store.emails[a]! || a - b));
    const found = model.compute({ ...NONE, search: 'google' });
    assert.deepEqual([...found.order], reference(rows, { ...NONE, search: 'google' }).visible);
    // A facet value no row has still filters (to nothing): that is the full pass's answer.
    assert.equal(model.compute({ ...NONE, facets: { category: ['no such category'] } }).order.length, 0);
  });
});
