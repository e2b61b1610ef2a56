// The rows chunk codec (src/shared/rowCodec.ts) against arbitrary rows: whatever the strings hold
// (ASCII, other characters, lone surrogates) and however often a field repeats the row before's
// value (the encoder answers a repeat without its map), every row comes back as it went, chunk
// after chunk.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { decodeChunk, encodeChunk, SCALARS, type RowFields } from '../../src/shared/rowCodec';
import { rowOf } from './chunkRows';

/** Strings from a few values (so rows repeat them), of every kind the codec tells apart. */
const text = fc.oneof(
  fc.constantFrom('', 'pass', 'fail', 'none', 'quarantine', '2026-11-27', 'é', '\ud800', 'x\udc00y', '😀'),
  fc.string({ maxLength: 12 }),
  fc.string({ maxLength: 6, unit: 'binary' }),
  fc.string({ maxLength: 4, unit: fc.constantFrom('a', 'b', '\ud83d', '\ude00', 'ü') }),
);

const row = fc.record({
  scalars: fc.array(text, { minLength: SCALARS.length, maxLength: SCALARS.length }),
  emails: fc.double(),
  rdns: fc.array(text, { maxLength: 3 }),
  dkims: fc.array(fc.tuple(text, text, text), { maxLength: 2 }),
  extras: fc.array(text, { maxLength: 4 }),
});

describe('rows chunk codec: any rows', () => {
  it('every string and number comes back exactly, in chunks one after another', () => {
    fc.assert(
      fc.property(fc.array(fc.array(row, { maxLength: 40 }), { minLength: 1, maxLength: 4 }), (chunks) => {
        for (const rows of chunks) {
          const c = decodeChunk(encodeChunk(rows.length, (i) => rows[i]!));
          assert.equal(c.count, rows.length);
          rows.forEach((r, i) => assert.deepEqual(rowOf(c, i), { ...r, dkims: r.dkims.map((d) => [...d]) }));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a row object filled again for each row (as the host does) is read before the next', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 60 }), (rows) => {
        const shared: RowFields = { scalars: [], emails: 0, rdns: [], dkims: [], extras: [] };
        const bytes = encodeChunk(rows.length, (i) => Object.assign(shared, { ...rows[i]!, scalars: [...rows[i]!.scalars] }));
        const c = decodeChunk(bytes);
        rows.forEach((r, i) => assert.deepEqual(rowOf(c, i).scalars, r.scalars));
      }),
      { numRuns: 200 },
    );
  });
});
