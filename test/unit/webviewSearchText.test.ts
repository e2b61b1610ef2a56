// The search over an ASCII chunk's one text (media/webview/data/searchText.ts), against a scan of
// every cell: capitals, matches that would run across two strings, empty strings, many blocks of
// strings, queries typed on or changed; and the chunks it is not used for.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { COLUMNS } from '../../src/shared/columns';
import { decodeChunk, encodeChunk, SCALARS } from '../../src/shared/rowCodec';
import { RowStore } from '../../media/webview/data/store';
import { blockHasPairs, letterPairs, PAIR_BLOCK, SegmentText, stringPairs } from '../../media/webview/data/searchText';
import { appendTuples } from '../../media/webview/data/tuples';
import type { FilterWarmUp } from '../../media/webview/data/filterWarmUp';
import { RecordsModel } from '../../media/webview/data/query';
import { generateRows } from '../fixtures/webview-dev/generateRows';

/** ASCII only, so each chunk is searched through its text; pieces that join into other words ("ma" + "il"). */
const word = fc.oneof(
  fc.constantFrom('', 'ma', 'il', 'Mail', 'MAILER', 'mail.example', 'ai', 'x=y', '42', 'A-B', '10.0.0.1', '::1', 'x:Y', 'Zulu', 'l.ex', 'ample', 'pass', 'i'),
  fc.string({ maxLength: 6, unit: fc.constantFrom(...'aAiImMlL.-=: 1') }),
);

function row(w: string[], extras: string[]): unknown[] {
  return [w[0], w[1], w[2], w[3], w[4], w[5], w[6], [w[7], w[8]], w.length, w[9], w[10], w[11], w[12], w[13], w[14], [[w[15], w[16], w[17]]], w[18], extras];
}

function naive(store: RowStore, q: string): number[] {
  return Array.from({ length: store.length }, (_, i) => {
    const ex = store.extraPairs(i);
    const cells = COLUMNS.map((c) => store.cell(i, c));
    for (let k = 0; k < ex.length; k += 2) cells.push(`${ex[k]}=${ex[k + 1]}`);
    return cells.some((c) => c.toLowerCase().includes(q)) ? 1 : 0;
  });
}

describe('webview search: a query looked for in an ASCII chunk\'s text', () => {
  it('finds what a scan of every cell finds, typed on or changed, over chunks of any size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(word, { minLength: 19, maxLength: 19 }), fc.array(word, { maxLength: 3 })), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.constantFrom('ma', 'mai', 'mail', 'ail', 'il', 'ai', 'la', 'lm', 'a.', '.e', 'le', 'e1', '1m', 'x=', '=y', 'zu', 'mail.', 'l.', '::', 'a-b', 'ss', 'am', 'mm', 'i i', 'passma'), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        (rows, size, queries, prepared, paired) => {
          const store = new RowStore();
          for (let k = 0; k < rows.length; k += size) appendTuples(store, rows.slice(k, k + size).map(([w, e]) => row(w, e)));
          if (prepared) while (store.search.prepareNext());
          // The letter-pair filters (idle time once the rows are in): blocks without a query's pairs are not looked in.
          if (paired) while (store.search.pairsNext());
          for (const q of queries) {
            const got = new Uint8Array(store.length);
            store.search.search(q, 0, store.length, got);
            assert.deepStrictEqual([...got], naive(store, q), JSON.stringify(q));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('typed on letter by letter from one letter, through the model: each step finds what a scan finds, with letter-pair filters or not', () => {
    // After one letter (which most strings have) the next query is looked for in the chunk's
    // text, not string by string; capitals are looked at only in the blocks with the query's
    // pairs, the derived texts (joined DKIM signatures "d=… s=… result", extra fields) by blocks
    // of their own filter; a column is searched again only if the shorter query hit it.
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(word, { minLength: 19, maxLength: 19 }), fc.array(word, { maxLength: 3 })), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.constantFrom('mail.example', 'mailer', 'ail', 'il.ex', 'aim', 'd=ma', 's=il', 'x=y', 'passm', 'a-b', 'lmi', 'zulu', 'e s=', 'i i'), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (rows, size, words, paired) => {
          const model = new RecordsModel();
          for (let k = 0; k < rows.length; k += size) appendTuples(model, rows.slice(k, k + size).map(([w, e]) => row(w, e)));
          while (model.store.search.prepareNext());
          if (paired) while (model.store.search.pairsNext());
          for (const target of words) {
            for (let len = 1; len <= target.length; len++) {
              const q = target.slice(0, len);
              const got = model.compute({ search: q, facets: {} }).order;
              // (The box's text is trimmed: "e " is "e".)
              const want = naive(model.store, q.trim()).flatMap((hit, i) => (hit ? [i] : []));
              assert.deepStrictEqual([...got], want, JSON.stringify(q));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a derived texts\' letter-pair filter never rules out a block with a string whose lowercase holds the query', () => {
    // Labels are translated: "İ" lowercases to "i" and a combining dot, the Kelvin sign to "k".
    const piece = fc.constantFrom('M', 'm', 'İ', 'i', 'I', 'K', 'k', 'x', ' ', '=', 'é', 'ß', 'S', '’', '\n', 'ǅ');
    const text = fc.array(piece, { maxLength: 8 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 3 * PAIR_BLOCK }), text, fc.nat(), (strings, query, at) => {
        const q = query.toLowerCase();
        const keys = letterPairs(q);
        const from = at % strings.length;
        const pairs = stringPairs(strings, from, strings.length);
        for (let id = from; id < strings.length; id++) {
          if (strings[id]!.toLowerCase().includes(q)) assert.ok(blockHasPairs(pairs, (id - from) / PAIR_BLOCK | 0, keys), `${JSON.stringify(strings[id])} holds ${JSON.stringify(q)}`);
        }
      }),
      { numRuns: 500 },
    );
    // And a block none of whose strings has a pair is ruled out by it.
    const pairs = stringPairs(['xMİy', ...Array(PAIR_BLOCK - 1).fill('ab'), 'zz'], 0, PAIR_BLOCK + 1);
    assert.ok(blockHasPairs(pairs, 0, letterPairs('mi')), '"mİ" is "mi̇" lowercased');
    assert.ok(!blockHasPairs(pairs, 1, letterPairs('mi')));
    assert.ok(blockHasPairs(pairs, 1, letterPairs('zz')));
  });

  it('marks each string holding the query as it is, once, not a match across two strings, over many blocks', () => {
    // 100 strings (four blocks of 32): "ab" in some, and "a" ending one with "b" starting the next.
    const strings = Array.from({ length: 100 }, (_, k) => (k % 7 === 0 ? `x${k}ab${k}ab` : k % 5 === 0 ? `${k}a` : k % 5 === 1 ? `b${k}` : k % 11 === 0 ? '' : `y${k}`));
    const text = SegmentText.of(strings.join(''), strings)!;
    assert.ok(text);
    const m = new Uint8Array(strings.length);
    const found = new Uint32Array(strings.length);
    const hits = text.find('ab', strings, m, found, 0);
    const want = strings.flatMap((s, k) => (s.includes('ab') ? [k] : []));
    assert.deepStrictEqual([...found.subarray(0, hits)], want);
    assert.deepStrictEqual([...m], strings.map((s) => (s.includes('ab') ? 1 : 0)));
    // Marked already: not listed twice.
    assert.equal(text.find('ab', strings, m, found, hits), hits);
    // Any query: the strings that hold it, the last ones too.
    for (const q of ['b1', '9a', 'y9', 'ab9', 'y98', 'b96', 'x98ab98ab']) {
      const k = text.find(q, strings, new Uint8Array(100), found, 0);
      assert.deepStrictEqual([...found.subarray(0, k)], strings.flatMap((s, j) => (s.includes(q) ? [j] : [])), q);
    }
    // In the text only across two strings ("5a" then "b6"): in none of them.
    assert.ok(strings.join('').includes('5ab6'));
    assert.equal(text.find('5ab6', strings, new Uint8Array(100), found, 0), 0);
  });

  it('with the letter-pair filter, finds the same strings in the blocks that have the query\'s pairs, and none elsewhere', () => {
    // 1,000 strings (16 blocks of 64): "Mi" (a capital) only in block 3, "mi" in blocks 5 and 15
    // (its last, short one), "xmi" across two strings ("x" + "mi…"), and letters elsewhere that
    // hold m and i apart ("m-i", "im").
    const strings = Array.from({ length: 1000 }, (_, k) =>
      k === 200 ? 'aMix' : k === 330 ? 'mi.example' : k === 999 ? 'zmi' : k === 700 ? 'x' : k === 701 ? 'mia' : k % 3 === 0 ? `m-i${k}` : k % 3 === 1 ? `im${k}` : '',
    );
    const plain = SegmentText.of(strings.join(''), strings)!;
    const paired = SegmentText.of(strings.join(''), strings)!;
    paired.buildPairs();
    assert.ok(paired.paired && !plain.paired);
    assert.ok(paired.bytes() > plain.bytes(), 'the filter counts in its bytes');
    for (const q of ['mi', 'mia', 'mi.e', 'xmi', 'zmi', 'im99', 'm-i3', '-i', 'i9', 'ix', 'qq', 'example', 'a']) {
      const want = strings.flatMap((s, j) => (s.includes(q) ? [j] : []));
      for (const text of [plain, paired]) {
        const found = new Uint32Array(1000);
        const m = new Uint8Array(1000);
        const k = text.find(q, strings, m, found, 0);
        assert.deepStrictEqual([...found.subarray(0, k)], want, `${q} (${text.paired ? 'filtered' : 'whole text'})`);
      }
    }
    // Made twice: the same filter.
    const before = paired.bytes();
    paired.buildPairs();
    assert.equal(paired.bytes(), before);
  });

  it('is not used for strings that are not their text cut in order (a broken chunk), and those are still searched right', () => {
    assert.equal(SegmentText.of('Mail.Example', ['Mail', '', 'Ex']), undefined, 'shorter than the text');
    assert.equal(SegmentText.of('Mail', ['Ma', 'Mail']), undefined, 'an end that went back');
    assert.ok(SegmentText.of('', []));
    // A chunk whose string ends go back (the decoder's strings then repeat text): the search reads the strings.
    const chunk = encodeChunk(1, () => ({ scalars: SCALARS.map((_, k) => `w${k}mail`), emails: 1, rdns: ['host.example'], dkims: [], extras: [] }));
    const view = new DataView(chunk.buffer, chunk.byteOffset);
    const decoded = decodeChunk(chunk);
    const ends = decoded.ascii!.ends;
    // The second string's end before the first's, in the chunk's bytes: the string after it repeats text.
    view.setUint32(ends.byteOffset - chunk.byteOffset + 4, ends[0]! - 2, true);
    const broken = decodeChunk(chunk);
    assert.notEqual(broken.strings.join(''), broken.ascii!.text);
    const store = new RowStore();
    store.appendChunk(broken);
    while (store.search.prepareNext());
    for (const q of ['ma', 'ail', 'host', 'w1m', 'xa']) {
      const got = new Uint8Array(store.length);
      store.search.search(q, 0, store.length, got);
      assert.deepStrictEqual([...got], naive(store, q), q);
    }
  });

  it('warms up in idle time, a round at a time, over 40,000 rows or more, and the views after it are what they would have been', () => {
    const rows = generateRows(45_000, 5);
    const m = new RecordsModel();
    for (let k = 0; k < rows.length; k += 1_250) appendTuples(m, rows.slice(k, k + 1_250));
    const small = new RecordsModel();
    appendTuples(small, rows.slice(0, 1_250));
    assert.equal(small.store.search.warm(), false, 'too few rows to be worth it');
    while (small.idleNext());
    const warmUpOf = (model: RecordsModel): FilterWarmUp => (model as unknown as { warmUp: FilterWarmUp }).warmUp;
    assert.equal(warmUpOf(small).done, false, 'nor the filtered view\'s warm-up');
    // A model with no warm-up, for the answers.
    const cold = new RecordsModel();
    for (let k = 0; k < rows.length; k += 1_250) appendTuples(cold, rows.slice(k, k + 1_250));
    // What idle time did, in order: the fields' narrowing steps and the filtered view's rounds after them.
    const events: string[] = [];
    const fields = (m as unknown as { fields: { compact(more?: () => boolean): boolean } }).fields;
    const compact = fields.compact.bind(fields);
    fields.compact = (more) => {
      const did = compact(more);
      if (did) events.push('narrowed');
      return did;
    };
    const warmUp = warmUpOf(m);
    const nextNarrowed = warmUp.nextNarrowed.bind(warmUp);
    // The ranks its rounds order rows by (as a search's rows are ordered): only ranks idle time made already.
    const held = (m as unknown as { ranks: { ranks: Map<string, { version: number }> } }).ranks.ranks;
    const ordered: string[] = [];
    warmUp.nextNarrowed = (s, fieldOf, ranksOf) => {
      const did = nextNarrowed(s, fieldOf, ranksOf && ((column) => {
        assert.equal(held.get(column)?.version, m.store.version, `${column}: its ranks were made before the round`);
        ordered.push(column);
        return ranksOf(column);
      }));
      if (did) events.push('round');
      return did;
    };
    let steps = 0;
    while (m.idleNext()) steps++;
    assert.ok(steps >= 6 + 3 + 3, `the search's rounds and the filtered view's (twice) each took an idle step (${steps} steps)`);
    assert.equal(m.store.search.warm(), false, 'idle time ran every round');
    assert.equal(warmUpOf(m).done, true, 'and the filtered view\'s');
    const lastNarrowed = events.lastIndexOf('narrowed');
    assert.ok(lastNarrowed >= 0, 'the fields were narrowed');
    assert.deepStrictEqual(events.slice(lastNarrowed + 1), ['round', 'round', 'round'], 'the filtered view\'s rounds ran again once the narrowing was over, and only then');
    assert.equal(events.indexOf('round') > lastNarrowed, true, 'none ran between two narrowing steps');
    assert.deepStrictEqual(ordered, Array(3).fill(['emails', 'emails', 'date', 'date']).flat(), 'each round put rows in the order of Emails and of Date, both ways');
    // Typed on from the warm-up's words ("mai", "com", "exa", "goo"…), or not: the same rows, summary and facets as without it.
    for (const q of ['com', 'co', 'mai', 'ai', 'm', 'mi', 'mic', 'ex', 'exa', 'on', 'goo', 'x']) {
      const query = { search: q, facets: {}, sort: { column: 'emails' as const, descending: true } };
      const got = m.compute(query);
      const want = cold.compute(query);
      assert.deepStrictEqual([...got.order], [...want.order], q);
      assert.deepStrictEqual(got.summary, want.summary, `${q}: its summary`);
      assert.deepStrictEqual(got.facets, want.facets, `${q}: its facets`);
    }
  });
});
