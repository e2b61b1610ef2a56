// Dense ranks of numbers (media/webview/data/ranks.ts), exactly: equal numbers share a rank, NaN
// ranks after all, and the rank array is as narrow as the ranks allow.
import { strict as assert } from 'node:assert';
import { denseRanks } from '../../media/webview/data/ranks';

describe('webview dense ranks, exactly', () => {
  it('equal keys share a rank, ranks have no gaps, NaN is ranked after every number', () => {
    const { rank, distinct } = denseRanks(Float64Array.from([30, -1, 30, Number.NaN, 0, 7, -1, Number.NaN]));
    assert.deepEqual([...rank], [3, 0, 3, 4, 1, 2, 0, 4]);
    assert.equal(distinct, 4);
    assert.deepEqual([...denseRanks(Float64Array.from([5])).rank], [0]);
    assert.deepEqual(denseRanks(Float64Array.from([Number.NaN, Number.NaN])), { rank: Uint16Array.from([0, 0]), distinct: 0 });
    assert.equal(denseRanks(new Float64Array(0)).distinct, 0);
  });

  it('the rank array holds up to 65,536 ranks (distinct values plus the extra ones) in 16 bits, more in 32', () => {
    const keys = (n: number) => Float64Array.from({ length: n }, (_, i) => n - i);
    assert.ok(denseRanks(keys(65_535), 1).rank instanceof Uint16Array);
    assert.ok(denseRanks(keys(65_535), 2).rank instanceof Uint32Array);
    const wide = denseRanks(keys(65_536), 1);
    assert.ok(wide.rank instanceof Uint32Array);
    assert.equal(wide.distinct, 65_536);
    assert.equal(wide.rank[0], 65_535);
    assert.equal(wide.rank[65_535], 0);
  });
});
