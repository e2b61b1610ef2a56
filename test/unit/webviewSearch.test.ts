// The webview's search index (media/webview/data/searchIndex.ts) against a scan of every cell:
// any range of rows, with or without a row mask, queries typed on or changed, over segments of
// any size; and its bounds (a segment refuses more strings than it was sized for).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { COLUMNS } from '../../src/shared/columns';
import { NCOL, SearchIndex } from '../../media/webview/data/searchIndex';
import { lowerIncludes } from '../../media/webview/data/searchBits';
import { RowStore } from '../../media/webview/data/store';
import { appendTuples } from '../../media/webview/data/tuples';
import { RecordsModel } from '../../media/webview/data/query';

const word = fc.constantFrom('', 'Mail', 'mail.example', 'MAILER', 'ai', 'é', 'É', 'pass', 'x=y', 'İ', 'ǅ', '42', 'A-B', '10.0.0.1', '::1', 'x:Y', 'Zulu');

function row(w: string[], extras: string[]): unknown[] {
  return [w[0], w[1], w[2], w[3], w[4], w[5], w[6], [w[7], w[8]], w.length, w[9], w[10], w[11], w[12], w[13], w[14], [[w[15], w[16], w[17]]], w[18], extras];
}

describe('webview: the search index, against a scan of every cell', () => {
  it('any rows, any range, any mask, queries typed on letter by letter or changed, prepared ahead or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(word, { minLength: 19, maxLength: 19 }), fc.array(word, { maxLength: 4 })), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.constantFrom('m', 'ma', 'mai', 'mail', 'mail.', 'a', 'ai', 'é', 'i', 'x=', '=y', '(empty)', 's=(none)', '4', 'zz', 'ǆ', 'i̇', '.', '-', ':', '1', '0.', 'b', 'a-b', '::', 'z', 'x:y', '='), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        fc.boolean(),
        (rows, size, queries, x, y, withinBits, prepared) => {
          const store = new RowStore();
          for (let k = 0; k < rows.length; k += size) appendTuples(store, rows.slice(k, k + size).map(([w, e]) => row(w, e)));
          // Prepared ahead (idle time) or on the first search.
          if (prepared) while (store.search.prepareNext());
          const n = store.length;
          const from = x % (n + 1);
          const to = from + (y % (n - from + 1));
          const within = Uint8Array.from(withinBits.slice(0, n), Number);
          for (const q of queries) {
            for (const mask of [undefined, within]) {
              const got = new Uint8Array(n);
              const every = store.search.search(q, from, to, got, mask);
              const want = Array.from({ length: n }, (_, i) => {
                if (i < from || i >= to || (mask && !mask[i])) return 0;
                const ex = store.extraPairs(i);
                const cells = COLUMNS.map((c) => store.cell(i, c));
                for (let k = 0; k < ex.length; k += 2) cells.push(`${ex[k]}=${ex[k + 1]}`);
                return cells.some((c) => c.toLowerCase().includes(q)) ? 1 : 0;
              });
              assert.deepStrictEqual([...got], want, `${JSON.stringify(q)} over [${from}, ${to})${mask ? ' within' : ''}`);
              // "Every row matched" only when it is so (and never said of a masked or empty range).
              if (every) assert.ok(!mask && from < to && want.slice(from, to).every((v) => v === 1), `every: ${JSON.stringify(q)}`);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('says when every row matched as whole segments (a letter every row has), prepared or not, and the model then lists every row', () => {
    const words = ['Zulu', 'mail.example', '10.0.0.1', 'pass', 'x=y', 'ai', 'A-B', '42', 'MAILER', 'é', 'Mail', '::1', 'x:Y', 'pass', 'ai', 'Mail', 'é', '42', 'Zulu'];
    for (const prepared of [false, true]) {
      const store = new RowStore();
      const rows = Array.from({ length: 50 }, (_, i) => row(words.map((w, c) => (c === 0 ? 'Zulu' : i % 3 === 0 && c > 1 ? '' : w)), i % 2 ? ['k=v'] : []));
      for (let k = 0; k < rows.length; k += 7) appendTuples(store, rows.slice(k, k + 7));
      if (prepared) while (store.search.prepareNext());
      const n = store.length;
      const mask = new Uint8Array(n);
      assert.equal(store.search.search('z', 0, n, mask), true, `prepared: ${prepared}`);
      assert.ok(mask.every((v) => v === 1));
      assert.equal(store.search.search('z', 3, 17, new Uint8Array(n)), true);
      assert.equal(store.search.search('z', 0, n, new Uint8Array(n), new Uint8Array(n).fill(1)), false, 'a masked search never says so');
      assert.equal(store.search.search('zz', 0, n, new Uint8Array(n)), false);
      assert.equal(store.search.search('k', 0, n, new Uint8Array(n)), false, 'half the rows have it');
    }
    const model = new RecordsModel();
    appendTuples(model, Array.from({ length: 30 }, (_, i) => row(words.map((w, c) => (c === 0 ? 'Zulu' : `${w}${i}`)), [])));
    const v = model.compute({ search: 'z', facets: {}, sort: { column: 'emails', descending: true } });
    assert.equal(v.order.length, 30);
    assert.deepEqual([...model.compute({ search: 'z', facets: {} }).order], [...Array(30).keys()]);
  });

  it('a segment not prepared yet matches as its lowercase would: lowerIncludes, any string and query', () => {
    const tricky = fc.constantFrom('K', 'k', 'İ', 'i̇', 'i', 'Σ', 'σ', 'ς', 'ΑΣ', 'ǅ', 'ǆ', 'ß', 'ẞ', 'É', 'é', 'Z', 'z', '\ud800', '\udc00', 'A', 'm', 'M', '.');
    const text = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 8 }), fc.array(tricky, { maxLength: 6 }).map((a) => a.join('')));
    fc.assert(
      fc.property(text, text, (s, query) => {
        const q = query.toLowerCase();
        if (q === '') return;
        assert.equal(lowerIncludes(s, q), s.toLowerCase().includes(q), `${JSON.stringify(s)} ${JSON.stringify(q)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('searching given rows finds what searching every row finds among them, in order, prepared ahead or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(word, { minLength: 19, maxLength: 19 }), fc.array(word, { maxLength: 4 })), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.constantFrom('m', 'ma', 'mai', 'mail', 'a', 'ai', 'é', 'x=', '4', 'zz', '.', '-', ':', 'x:y'), { minLength: 1, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        fc.boolean(),
        (rows, size, queries, pick, prepared) => {
          const store = new RowStore();
          for (let k = 0; k < rows.length; k += size) appendTuples(store, rows.slice(k, k + size).map(([w, e]) => row(w, e)));
          // Prepared, one-letter queries are answered per segment where they can be (wholeSegment).
          if (prepared) while (store.search.prepareNext());
          const n = store.length;
          const given = Uint32Array.from([...Array(n).keys()].filter((i) => pick[i]));
          for (const q of queries) {
            const all = new Uint8Array(n);
            store.search.search(q, 0, n, all);
            const mask = new Uint8Array(n);
            const found = store.search.searchRows(q, given, mask);
            assert.deepStrictEqual([...found], [...given].filter((i) => all[i]), JSON.stringify(q));
            assert.deepStrictEqual([...mask], [...all].map((x, i) => (x && pick[i] ? 1 : 0)));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a one-letter query is answered for a whole segment when a column always has it, or (prepared) no string does', () => {
    const store = new RowStore();
    const cells = (first: string, rest: string): string[] => [first, ...Array(18).fill(rest)];
    // An ASCII chunk is prepared as it is read (its character bits from its bytes): no idle step needed.
    appendTuples(store, [row(cells('Mail.example', 'x'), []), row(cells('ham', 'y'), ['k', 'v'])]);
    const seg = (store.search as unknown as { segments: { wholeSegment(q: string): string | undefined }[] }).segments[0]!;
    assert.equal(seg.wholeSegment('m'), 'all'); // every string of the first column has an m (one as M)
    assert.equal(seg.wholeSegment('q'), 'none');
    assert.equal(seg.wholeSegment('x'), undefined); // some rows only
    assert.equal(seg.wholeSegment('k'), undefined); // an extra field: a row may lack it
    assert.equal(seg.wholeSegment('ma'), undefined); // more than one character: the strings tell
    assert.equal(seg.wholeSegment('4'), undefined); // digits share a bit: not exact
    // Not prepared yet (a chunk with non-ASCII text, right after a load): a column of few strings,
    // read as they are, still says 'all'; 'none' needs the bits.
    const fresh = new RowStore();
    appendTuples(fresh, [row(cells('Mail.example', 'x'), []), row(cells('ham', 'ÿ'), ['k', 'v'])]);
    const unprepared = (fresh.search as unknown as { segments: { wholeSegment(q: string): string | undefined }[] }).segments[0]!;
    assert.equal(unprepared.wholeSegment('m'), 'all');
    assert.equal(unprepared.wholeSegment('q'), undefined);
    assert.equal(unprepared.wholeSegment('x'), undefined);
    const mask = new Uint8Array(2);
    store.search.search('m', 0, 2, mask, Uint8Array.from([0, 1]));
    assert.deepStrictEqual([...mask], [0, 1]);
    assert.deepStrictEqual([...store.search.searchRows('k', Uint32Array.from([0, 1]), new Uint8Array(2))], [1]);
  });

  it('sets only what matches: rows already marked stay marked, rows outside the range are not touched', () => {
    const store = new RowStore();
    appendTuples(store, ['alpha', 'beta', 'gamma', 'alpha'].map((s) => row(Array(19).fill(s), [])));
    const mask = Uint8Array.from([0, 1, 0, 0]);
    store.search.search('alp', 1, 4, mask);
    assert.deepStrictEqual([...mask], [0, 1, 0, 1]);
  });

  it('a segment holds the strings it was sized for and refuses one more; its ids are 16-bit up to 65,536 strings', () => {
    const index = new SearchIndex();
    const w = index.begin(0, 2, ['a', 'b'], 4);
    assert.equal(w.add('c'), 2);
    assert.equal(w.add('d'), 3);
    assert.throws(() => w.add('e'), /more strings than it was sized for/);
    assert.ok(w.segment.ids instanceof Uint16Array);
    assert.ok(index.begin(2, 1, [], 65_536).segment.ids instanceof Uint16Array);
    assert.ok(index.begin(3, 1, [], 65_537).segment.ids instanceof Uint32Array);
    // ids: 2 rows × NCOL × 2 bytes, 1 × NCOL × 2, 1 × NCOL × 4; extra starts: (rows + 1) × 4 each.
    assert.equal(index.bytes(), 2 * NCOL * 2 + NCOL * 2 + NCOL * 4 + (3 + 2 + 2) * 4);
    w.set(1, 3, 3);
    w.setExtras(0, [0, 2]);
    w.setExtras(1, [1]);
    const mask = new Uint8Array(4);
    index.search('d', 0, 2, mask);
    assert.deepStrictEqual([...mask], [0, 1, 0, 0]);
    mask.fill(0);
    index.search('c', 0, 2, mask);
    assert.deepStrictEqual([...mask], [1, 0, 0, 0], 'an extra field of row 0');
    index.clear();
    assert.equal(index.bytes(), 0);
    mask.fill(0);
    index.search('a', 0, 4, mask);
    assert.deepStrictEqual([...mask], [0, 0, 0, 0]);
  });

  it('the character bits are prepared two segments a step, also between appends, and the search then finds the same rows', () => {
    const m = new RecordsModel();
    const words = ['Mail.Example', 'x-y', '2026-11-16T17:20:00Z', 'Ünïcode', 'plain'];
    const chunk = (k: number) => Array.from({ length: 5 }, (_, j) => row(Array.from({ length: 19 }, (_, c) => words[(k + j + c) % words.length]!), []));
    for (let k = 0; k < 3; k++) appendTuples(m, chunk(k));
    let steps = 0;
    while (m.prepareSearch()) steps++;
    assert.equal(steps, 2, 'three segments: two steps');
    for (let k = 3; k < 6; k++) appendTuples(m, chunk(k));
    assert.equal(m.prepareSearch(() => true), false, 'the three new segments in one go');
    assert.equal(m.prepareSearch(), false);
    const fresh = new RecordsModel();
    for (let k = 0; k < 6; k++) appendTuples(fresh, chunk(k));
    for (const q of ['mail', 'x-', 'z', 't17', 'ü', '-', '.', 'plain', 'nothing']) {
      assert.deepStrictEqual([...m.compute({ search: q, facets: {} }).order], [...fresh.compute({ search: q, facets: {} }).order], q);
    }
  });

  it('idle time prepares the search before it ranks the columns', () => {
    const m = new RecordsModel();
    for (let k = 0; k < 3; k++) appendTuples(m, Array.from({ length: 5 }, (_, j) => row(Array.from({ length: 19 }, (_, c) => `ü${k}-${j}-${c}`), [])));
    // Not ASCII: these chunks are prepared in idle time, two segments a step.
    assert.equal(m.idleNext(), true);
    assert.equal(m.idleNext(), true);
    assert.equal(m.prepareSearch(), false, 'every segment prepared by the first two idle steps');
    assert.equal(m.idleNext(), true, 'the ranks come next');
    // ASCII chunks are prepared as they are read: idle time passes over them at once, however many.
    const ascii = new RecordsModel();
    for (let k = 0; k < 12; k++) appendTuples(ascii, Array.from({ length: 5 }, (_, j) => row(Array.from({ length: 19 }, (_, c) => `w${k}-${j}-${c}`), [])));
    assert.equal(ascii.prepareSearch(), false);
  });
});
