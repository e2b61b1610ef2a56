// The webview's lists of codes by identity (media/webview/data/listIds.ts): two spans get the
// same entry exactly when they hold the same codes, whatever the hash does with them.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ListIds } from '../../media/webview/data/listIds';

describe('ListIds', () => {
  it('gives equal lists one entry and different lists their own, in the order first seen', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.nat(6), { maxLength: 7 }), { maxLength: 300 }), fc.boolean(), (lists, narrow) => {
        const flat = lists.flat();
        const codes = narrow ? Uint16Array.from(flat) : Uint32Array.from(flat);
        const ids = new ListIds(codes, lists.length);
        const seen = new Map<string, number>();
        let a = 0;
        for (const list of lists) {
          const key = list.join(',');
          const before = ids.size;
          const e = ids.entry(a, a + list.length);
          a += list.length;
          if (seen.has(key)) {
            assert.equal(e, seen.get(key));
            assert.equal(ids.size, before);
          } else {
            assert.equal(e, before, 'a new list is the next entry');
            seen.set(key, e);
          }
        }
        assert.equal(ids.size, seen.size);
      }),
      { numRuns: 300 },
    );
  });

  it('tells apart lists whose codes collide in a small table (many rows, long lists, large codes)', () => {
    const rows = 5_000;
    const codes = new Uint32Array(rows * 6);
    // Every row a different list of six codes, each code used by many rows.
    for (let r = 0; r < rows; r++) for (let k = 0; k < 6; k++) codes[r * 6 + k] = ((r >> k) & 7) * 65_537 + k;
    const ids = new ListIds(codes, rows * 2);
    const expected = new Map<string, number>();
    for (let r = 0; r < rows; r++) {
      const key = Array.from(codes.subarray(r * 6, r * 6 + 6)).join(',');
      const e = ids.entry(r * 6, r * 6 + 6);
      if (!expected.has(key)) expected.set(key, e);
      assert.equal(e, expected.get(key));
    }
    // Again, every list is found, none added.
    const size = ids.size;
    for (let r = 0; r < rows; r++) assert.equal(ids.entry(r * 6, r * 6 + 6), expected.get(Array.from(codes.subarray(r * 6, r * 6 + 6)).join(',')));
    assert.equal(ids.size, size);
    assert.equal(size, expected.size);
  });
});
