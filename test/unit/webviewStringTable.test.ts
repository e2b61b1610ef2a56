import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { StringTable } from '../../media/webview/data/stringTable';

/** What StringTable must do, as a Map does it. */
function byMap(values: readonly string[]): { dict: string[]; codes: number[] } {
  const index = new Map<string, number>();
  const dict: string[] = [];
  const codes = values.map((v) => {
    let c = index.get(v);
    if (c === undefined) {
      c = dict.push(v) - 1;
      index.set(v, c);
    }
    return c;
  });
  return { dict, codes };
}

describe('StringTable (webview dictionaries)', () => {
  it('gives the codes a Map would, in first-seen order, for hostile and look-alike strings', () => {
    const hostile = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom('', ' ', '\u0000', '\ud800', '\udc00', '\ud83d\ude00', 'e\u0301', '\u00e9', 'A', 'a', '__proto__', 'constructor', 'x'.repeat(100_000)),
    );
    fc.assert(
      fc.property(fc.array(hostile, { maxLength: 300 }), fc.array(hostile, { maxLength: 20 }), (values, probes) => {
        const t = new StringTable();
        const codes = values.map((v) => t.code(v));
        const want = byMap(values);
        assert.deepStrictEqual(codes, want.codes);
        assert.deepStrictEqual(t.dict, want.dict);
        assert.equal(t.size, want.dict.length);
        for (const p of probes) assert.equal(t.find(p), want.dict.indexOf(p) >= 0 ? want.dict.indexOf(p) : undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('stays right while it grows past many rehashes (200k distinct addresses, each seen twice)', () => {
    const t = new StringTable();
    const n = 200_000;
    const ip = (k: number) => `${(k >>> 16) & 255}.${(k >>> 8) & 255}.${k & 255}.${k % 7}`;
    for (let k = 0; k < n; k++) assert.equal(t.code(ip(k)), k);
    for (let k = n - 1; k >= 0; k -= 997) assert.equal(t.code(ip(k)), k);
    assert.equal(t.size, n);
    assert.equal(t.find('256.0.0.0'), undefined);
    assert.equal(t.dict[12_345], ip(12_345));
  });

  it('finds every string along the probe chains of shared slots, and none that was not added', () => {
    // 5,000 strings in 16k slots: many share a slot and are found one probe further on.
    const t = new StringTable();
    const values = Array.from({ length: 5_000 }, (_, k) => `k${k}`);
    values.forEach((v, k) => assert.equal(t.code(v), k));
    values.forEach((v, k) => assert.equal(t.find(v), k));
    assert.equal(t.find('k5000'), undefined);
  });
});
