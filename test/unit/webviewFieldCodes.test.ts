// The fields' value codes narrowed once the rows are in (media/webview/data/fields.ts Fields.compact):
// one byte a code for at most 256 values, two for at most 65,536; widened again when rows come
// after, without losing or changing a value.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { Fields, type FieldId } from '../../media/webview/data/fields';
import { RecordsModel } from '../../media/webview/data/query';
import { RowStore } from '../../media/webview/data/store';
import { appendTuples } from '../../media/webview/data/tuples';
import { tuple } from './webviewModelHelpers';

/** Every row's values of a field, as its index gives them. */
function valuesOf(fields: Fields, id: FieldId, rows: number): string[][] {
  const f = fields.get(id);
  const out: string[][] = [];
  for (let i = 0; i < rows; i++) {
    if (f.kind === 'single') out.push([f.dict[f.codes[i]!]!]);
    else out.push(Array.from(f.codes.subarray(f.start[i]!, f.start[i + 1]!), (c: number) => f.dict[c]!));
  }
  return out;
}

const rowsOf = (from: number, n: number, distinct: number) =>
  Array.from({ length: n }, (_, k) => tuple({ source: `src-${(from + k) % distinct}`, reporter: 'r', dkim: k % 3 ? ['pass', 'fail'] : [] }));

describe('webview field codes, narrowed once the rows are in', () => {
  it('one byte a code for a few values, two for 300, four for 70,000; every row keeps its value; arrays exactly as long as the codes', () => {
    const store = new RowStore();
    const fields = new Fields(store);
    appendTuples(store, [...rowsOf(0, 70_000, 70_000)]);
    const before = { source: valuesOf(fields, 'source', store.length), reporter: valuesOf(fields, 'reporter', store.length), dkim: valuesOf(fields, 'dkim', store.length) };
    assert.equal(fields.get('source').codes.constructor, Uint32Array);
    while (fields.compact()) { /* a field at a time */ }
    assert.equal(fields.get('reporter').codes.constructor, Uint8Array);
    assert.equal(fields.get('dkim').codes.constructor, Uint8Array);
    assert.equal(fields.get('source').codes.constructor, Uint32Array, '70,000 values');
    const dkim = fields.get('dkim');
    assert.equal(dkim.kind === 'multi' && dkim.codes.length, dkim.kind === 'multi' && dkim.start[store.length]);
    assert.deepStrictEqual(valuesOf(fields, 'source', store.length), before.source);
    assert.deepStrictEqual(valuesOf(fields, 'reporter', store.length), before.reporter);
    assert.deepStrictEqual(valuesOf(fields, 'dkim', store.length), before.dkim);

    const small = new RowStore();
    const f2 = new Fields(small);
    appendTuples(small, rowsOf(0, 1000, 300));
    f2.get('source');
    assert.equal(f2.compact(() => true), true);
    assert.equal(f2.get('source').codes.constructor, Uint16Array);
    assert.equal(f2.compact(), false, 'nothing left to narrow');
  });

  it('rows arriving after a field was narrowed: it is widened and extended, values past the narrow range included', () => {
    const store = new RowStore();
    const fields = new Fields(store);
    appendTuples(store, rowsOf(0, 500, 200));
    fields.get('source');
    fields.get('dkim');
    while (fields.compact()) { /* */ }
    assert.equal(fields.get('source').codes.constructor, Uint8Array);
    // 400 more distinct sources: codes up to 599, which one byte cannot hold.
    appendTuples(store, rowsOf(200, 400, 1000));
    assert.deepStrictEqual(valuesOf(fields, 'source', store.length).map((v) => v[0]), [...Array.from({ length: 500 }, (_, k) => `src-${k % 200}`), ...Array.from({ length: 400 }, (_, k) => `src-${200 + k}`)]);
    while (fields.compact()) { /* */ }
    assert.equal(fields.get('source').codes.constructor, Uint16Array);
    assert.equal(valuesOf(fields, 'source', store.length)[899]![0], 'src-599');
  });

  it('any mix of chunks, narrowing and reads gives every row its values (single and multi-valued fields)', () => {
    const value = fc.integer({ min: 0, max: 400 });
    fc.assert(
      fc.property(fc.array(fc.tuple(value, fc.array(fc.constantFrom('pass', 'fail', 'none', 'x'), { maxLength: 3 })), { maxLength: 120 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), (spec, sizes, narrowAt) => {
        const rows = spec.map(([s, d]) => tuple({ source: `s${s}`, dkim: d }));
        const store = new RowStore();
        const fields = new Fields(store);
        let at = 0;
        for (let k = 0; at < rows.length; k++) {
          appendTuples(store, rows.slice(at, at + sizes[k % sizes.length]!));
          at = store.length;
          fields.get('source');
          fields.get('dkim');
          if (narrowAt[k % narrowAt.length]) while (fields.compact()) { /* */ }
        }
        assert.deepStrictEqual(valuesOf(fields, 'source', store.length).map((v) => v[0]), spec.map(([s]) => `s${s}`));
        assert.deepStrictEqual(valuesOf(fields, 'dkim', store.length), spec.map(([, d]) => (d.length ? [...new Set(d)] : ['(none)'])));
      }),
      { numRuns: 150 },
    );
  });

  it("the model narrows its fields in idle time once the rows are in, and its counts stay the same", () => {
    const m = new RecordsModel();
    appendTuples(m, rowsOf(0, 3000, 40), 3000);
    const q = { search: '', facets: {}, sort: { column: 'emails' as const, descending: true } };
    const counts = JSON.stringify(m.compute(q).facets);
    assert.equal(m.fields.get('source').codes.constructor, Uint32Array);
    while (m.idleNext()) { /* every idle step */ }
    assert.equal(m.fields.get('source').codes.constructor, Uint8Array);
    assert.equal(JSON.stringify(m.compute({ ...q, search: 'src' }).facets), counts);
  });
});
