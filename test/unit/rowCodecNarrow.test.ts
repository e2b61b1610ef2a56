// Narrow chunks (src/shared/rowCodec.ts FLAG_NARROW): two-byte string codes and list starts
// where they fit, four bytes where they do not, the same rows either way.
import { strict as assert } from 'node:assert';
import { encodeRows } from '../../src/records/tuple';
import { decodeChunk, encodeChunk, encodeChunkUntil, L, listOf, S, SCALARS, str, type RowFields } from '../../src/shared/rowCodec';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord } from '../../src/api/types';

const FLAGS_WORD = 5;
const NARROW = 4;
const flags = (bytes: Uint8Array): number => new Uint32Array(bytes.buffer, bytes.byteOffset, 16)[FLAGS_WORD]!;

/** `count` rows whose source is row i's own string (so the chunk has count + 1 strings, with ''), `extras` codes each. */
function chunk(count: number, extras = 0): Uint8Array {
  return encodeChunk(count, (i): RowFields => ({ scalars: [`s${i}`], emails: i, rdns: [], dkims: [], extras: Array.from({ length: extras }, () => 'x') }));
}

function sources(bytes: Uint8Array): string[] {
  const c = decodeChunk(bytes);
  return Array.from({ length: c.count }, (_, i) => str(c, c.scalars[S.source]![i]!));
}

describe('rows chunk codec: narrow codes', () => {
  it('a chunk of the API\'s rows travels narrow: two bytes a code, about a third smaller than four', () => {
    const wire = (i: number) => ({
      source: `Sender ${i % 40}`, reporter: ['google.com', 'outlook.com', 'yahoo.com'][i % 3], visibleFrom: 'example.com', returnPath: `bounce${i % 7}.example.net`, to: null,
      ipAddress: `198.51.${i % 256}.${(i * 7) % 256}`, ipCountryCode: 'US', rdns: [`host${i}.example.net`], emails: 1 + (i % 50), category: 'authorized',
      date: new Date(Date.UTC(2026, 10, 1) + i * 61_000).toISOString(), dmarc: 'none', alignedSpf: 'pass', alignedDkim: i % 5 ? 'pass' : 'fail', spf: 'pass',
      dkims: [{ selector: `k${i % 3}`, domain: 'example.com', result: 'pass' }], reportId: `r${i % 100}`,
    });
    const records: DmarcRecord[] = Array.from({ length: 2_500 }, (_, i) => {
      const r = normaliseRow(wire(i));
      if (!('record' in r)) throw new Error(r.reason);
      return r.record;
    });
    const bytes = encodeRows(records, 0, records.length);
    assert.ok(flags(bytes) & NARROW, 'narrow');
    const c = decodeChunk(bytes);
    assert.ok(c.scalars.every((a) => a instanceof Uint16Array) && c.listCodes.every((a) => a instanceof Uint16Array) && c.listStarts.every((a) => a instanceof Uint16Array));
    for (let i = 0; i < records.length; i += 97) {
      const r = records[i]!;
      assert.equal(str(c, c.scalars[S.ipAddress]![i]!), r.ipAddress);
      assert.equal(str(c, c.scalars[S.date]![i]!), r.date);
      assert.deepEqual(Array.from(listOf(c, L.rdns, i), (k) => str(c, k)), r.rdns);
      assert.deepEqual(Array.from(listOf(c, L.dkims, i), (k) => str(c, k)), [r.dkims[0]!.domain, r.dkims[0]!.selector, r.dkims[0]!.result]);
    }
    // What the same codes take at four bytes: the scalars, the list starts and the list codes.
    const codes = SCALARS.length * c.count + c.listStarts.reduce((n, a) => n + a.length, 0) + c.listCodes.reduce((n, a) => n + a.length, 0);
    assert.ok(codes * 2 > bytes.byteLength * 0.4, `the codes are a large part of the chunk (${codes * 2} of ${bytes.byteLength} bytes)`);
  });

  it('65,536 strings are narrow, 65,537 wide; both come back exactly', () => {
    const narrow = chunk(65_535);
    const wide = chunk(65_536);
    assert.ok(flags(narrow) & NARROW, '65,536 strings: narrow');
    assert.equal(flags(wide) & NARROW, 0, '65,537 strings: wide');
    assert.ok(decodeChunk(wide).scalars[S.source] instanceof Uint32Array);
    const n = sources(narrow);
    const w = sources(wide);
    assert.equal(n.length, 65_535);
    assert.equal(w.length, 65_536);
    for (const i of [0, 1, 255, 256, 65_534]) assert.equal(n[i], `s${i}`);
    for (const i of [0, 65_534, 65_535]) assert.equal(w[i], `s${i}`);
    // Every other field is the empty string, code 65,535 in the narrow chunk (the last a Uint16 holds).
    const c = decodeChunk(narrow);
    assert.equal(str(c, c.scalars[S.reporter]![9]!), '');
  });

  it('a list of 65,535 codes is narrow, of 65,536 wide (its starts would not fit in two bytes)', () => {
    const fits = chunk(1, 65_535);
    const over = chunk(1, 65_536);
    assert.ok(flags(fits) & NARROW);
    assert.equal(flags(over) & NARROW, 0);
    assert.equal(listOf(decodeChunk(fits), L.extras, 0).length, 65_535);
    assert.equal(listOf(decodeChunk(over), L.extras, 0).length, 65_536);
    assert.ok(Array.from(listOf(decodeChunk(over), L.extras, 0)).every((k) => str(decodeChunk(over), k) === 'x'));
  });

  it('a narrow chunk cut short says so, as a wide one does (the last 8 bytes hold text, not just padding)', () => {
    const bytes = chunk(10);
    for (const cut of [64, 100, bytes.byteLength - 8]) assert.throws(() => decodeChunk(bytes.slice(0, cut)), /cut short|too short/, `${cut} bytes`);
  });

  it('an encode told to stop ends at a row: the chunk is the first rows\' chunk, byte for byte, narrow or wide', () => {
    const rowWith = (extras: number) => (i: number): RowFields => ({ scalars: SCALARS.map((f, k) => (k % 3 ? `${f}${i % 5}` : `${f}${i}`)), emails: i, rdns: [`h${i}`], dkims: [[`d${i}`, 's', 'pass']], extras: Array.from({ length: extras }, (_, k) => `x${k}`) });
    // 700 extra codes a row: 96 rows hold more than 65,535 codes in one list, a wide chunk.
    for (const extras of [0, 700]) {
      const row = rowWith(extras);
      let asked = 0;
      const { data, count } = encodeChunkUntil(2_000, row, () => ++asked === 3);
      assert.equal(count, 96, 'asked every 32 rows, stopped at the third ask');
      assert.deepEqual(data, encodeChunk(96, row), `the same bytes as a chunk of 96 rows (extras ${extras})`);
      assert.equal(flags(data) & NARROW, extras ? 0 : NARROW);
      const c = decodeChunk(data);
      assert.equal(c.count, 96);
      assert.equal(str(c, c.scalars[S.source]![95]!), 'source95');
      assert.equal(str(c, c.scalars[S.reporter]![94]!), 'reporter4');
      assert.equal(c.emails[95], 95);
      assert.deepEqual([...listOf(c, L.dkims, 95)].map((k) => str(c, k)), ['d95', 's', 'pass']);
      assert.equal(listOf(c, L.extras, 95).length, extras);
    }
    assert.equal(encodeChunkUntil(50, rowWith(0), () => true).count, 32, 'a stop asked for at the first ask (row 32)');
    assert.equal(encodeChunkUntil(31, rowWith(0), () => true).count, 31, 'never asked before 32 rows');
  });
});
