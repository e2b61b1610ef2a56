// The binary, columnar rows chunk between the records panel's host and its webview
// (src/shared/rowCodec.ts): every string and number comes back exactly, whatever it holds.
import { strict as assert } from 'node:assert';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord } from '../../src/api/types';
import { encodeRows, toRowFields, toTuple } from '../../src/records/tuple';
import { COLUMNS, T } from '../../src/shared/columns';
import { decodeChunk, encodeChunk, L, listOf, S, SCALARS, str, type RowFields } from '../../src/shared/rowCodec';
import { rowOf } from './chunkRows';
import { RowStore } from '../../media/webview/data/store';
import { appendTuples } from '../../media/webview/data/tuples';

function roundTrip(rows: RowFields[]): RowFields[] {
  const c = decodeChunk(encodeChunk(rows.length, (i) => rows[i]!));
  assert.equal(c.count, rows.length);
  return rows.map((_, i) => rowOf(c, i));
}

const HOSTILE = [
  '', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800', '😀', '\ud83d\ude00\ud83d', '\u202e\u2066evil\u2069\u202c', '\u200b\u200d\ufeff',
  '\u2028\u2029', '</script><script>alert(1)</script>', '<img src=x onerror=alert(1)>', '"\'\\`${}', 'é' + 'ü'.repeat(3), '\r\n\t',
  '__proto__', 'constructor', 'x'.repeat(1 << 20),
];

const plain = (over: Partial<RowFields> = {}): RowFields => ({
  scalars: SCALARS.map((f) => `${f}-value`), emails: 1, rdns: [], dkims: [], extras: [], ...over,
});

describe('rows chunk codec (host → webview)', () => {
  it('carries hostile strings exactly: lone surrogates, NUL, bidi controls, line separators, markup, 1 MB values', () => {
    const rows = HOSTILE.map((h, i) => plain({
      scalars: SCALARS.map((_, f) => HOSTILE[(i + f) % HOSTILE.length]!),
      rdns: [h, h, ''],
      dkims: [[h, '', h], ['', h, 'pass']],
      extras: ['reportId', h, h, 'x'],
      emails: i,
    }));
    assert.deepStrictEqual(roundTrip(rows), rows);
    // Only well-formed strings: the fast decoding path gives the same.
    const wellFormed = rows.map((r) => ({ ...r, scalars: r.scalars.map((s) => s.replace(/[\ud800-\udfff]/g, '?')), rdns: [], dkims: [], extras: [] }));
    assert.deepStrictEqual(roundTrip(wellFormed), wellFormed);
  });

  it('chunks of different sizes one after another come back whole (the encoder reuses its working arrays)', () => {
    // Large, small, then large again: a small chunk must not carry a larger one's codes or list
    // starts, nor a large one read a smaller one's; one above the scratch's size has arrays of its own.
    for (const n of [3000, 1, 17, 2999, 0, 20_000, 1250, 4000, 5]) {
      const rows = Array.from({ length: n }, (_, i) => plain({
        scalars: SCALARS.map((f, k) => `${f}-${(i * 7 + k + n) % 23}`),
        emails: n * 10_000 + i,
        rdns: i % 3 ? [`h${i}.${n}`] : [],
        dkims: i % 4 === 1 ? [[`d${n}`, `s${i}`, 'pass'], [`e${i}`, 's', 'fail']] : [],
        extras: i % 5 === 2 ? ['name', `v${i}`] : [],
      }));
      assert.deepStrictEqual(roundTrip(rows), rows, `${n} rows`);
    }
  });

  it('numbers: 0, fractions, 2^60, the largest double, NaN and infinities come back as they went', () => {
    const values = [0, 1, 0.5, -3, 2 ** 60, Number.MAX_VALUE, Number.MIN_VALUE, Number.NaN, Infinity, -Infinity];
    const back = roundTrip(values.map((emails) => plain({ emails })));
    assert.deepStrictEqual(back.map((r) => r.emails), values);
  });

  it('an empty chunk, a row with every list empty, and many rows sharing strings', () => {
    assert.deepStrictEqual(roundTrip([]), []);
    const empty = plain({ scalars: SCALARS.map(() => '') });
    assert.deepStrictEqual(roundTrip([empty]), [empty]);
    const many = Array.from({ length: 5000 }, (_, i) => plain({ emails: i, rdns: [`host${i % 7}`], dkims: [[`d${i % 3}.example`, 's', i % 2 ? 'pass' : 'fail']] }));
    const bytes = encodeChunk(many.length, (i) => many[i]!);
    assert.deepStrictEqual(roundTrip(many), many);
    // Dictionary coding: the 14 scalar strings, written once, not 5,000 times.
    const c = decodeChunk(bytes);
    assert.ok(c.strings.length < 40, `${c.strings.length} distinct strings`);
    assert.ok(bytes.byteLength < many.length * (8 + SCALARS.length * 4 + 3 * 4 + 4 * 4 + 16) + 4096, `${bytes.byteLength} bytes`);
  });

  it('an ASCII-only chunk carries its text at one byte a character; one other character sends it all at two, both exact', () => {
    const rows = Array.from({ length: 200 }, (_, i) => plain({ rdns: [`mail-${i}.example.net`], extras: ['reportId', `report-${i}-${'x'.repeat(40)}`] }));
    const ascii = encodeChunk(rows.length, (i) => rows[i]!);
    assert.deepStrictEqual(roundTrip(rows), rows);
    const wide = rows.map((r, i) => (i === 199 ? { ...r, rdns: ['mail-199.exämple.net'] } : r));
    const twoBytes = encodeChunk(wide.length, (i) => wide[i]!);
    assert.deepStrictEqual(roundTrip(wide), wide);
    const units = decodeChunk(ascii).strings.reduce((n, x) => n + x.length, 0);
    assert.ok(units > 10_000);
    // The same number of characters (ä for a), so the difference is the text's width alone.
    assert.ok(Math.abs(twoBytes.byteLength - ascii.byteLength - units) <= 8, `${ascii.byteLength} → ${twoBytes.byteLength} bytes for ${units} characters`);
  });

  it('reads a chunk wherever it lands in a buffer, and says what is wrong with one that is not a chunk', () => {
    const rows = [plain({ emails: 7, rdns: ['a'] })];
    const bytes = encodeChunk(1, () => rows[0]!);
    const shifted = new Uint8Array(bytes.byteLength + 3);
    shifted.set(bytes, 3);
    assert.deepStrictEqual(rowOf(decodeChunk(shifted.subarray(3)), 0), rows[0]);
    assert.throws(() => decodeChunk(new Uint8Array(10)), /too short/);
    assert.throws(() => decodeChunk(new Uint8Array(64)), /unknown format/);
    assert.throws(() => decodeChunk(bytes.subarray(0, bytes.byteLength - 16)), /cut short/);
    assert.throws(() => decodeChunk(new TextEncoder().encode(JSON.stringify([['a']]).padEnd(80))), /unknown format/);
    // The right magic number with another version (the second header word), and the other way round.
    for (const word of [1, 0]) {
      const other = bytes.slice();
      new Uint32Array(other.buffer, 0, 2)[word]! ^= 1;
      assert.throws(() => decodeChunk(other), /^Error: a rows chunk has an unknown format$/, `header word ${word}`);
    }
    // Cut anywhere inside its sections (not only at the end), it says so rather than reading past.
    for (const cut of [40, 48, 64, 100]) assert.throws(() => decodeChunk(bytes.slice(0, cut)), /cut short|too short/, `${cut} bytes`);
  });

  it('a record goes into the chunk field by field as toTuple has it, and the webview store reads the same cells from both', () => {
    const wire = (i: number, over: Record<string, unknown> = {}) => ({
      source: `S${i}`, reporter: 'google.com', visibleFrom: 'news.example.co.uk', returnPath: 'bounce.mcsv.net', to: i % 2 ? 'gmail.com' : null,
      ipAddress: `198.2.180.${i}`, ipCountryCode: i % 3 ? 'US' : undefined, rdns: i % 2 ? ['a.example', 'b.example'] : 'single.example', emails: i + 1,
      category: 'authorized', date: '2026-11-16T17:20:00.000Z', dmarc: 'none', alignedSpf: 'fail', alignedDkim: 'pass', spf: 'pass',
      dkims: [{ selector: 'k2', domain: 'mcsv.net', result: 'pass' }, { selector: '', domain: 'example.co.uk', result: 'fail' }],
      reportId: `r${i}`, extra: { nested: [1, '\u202e'] }, ...over,
    });
    const records: DmarcRecord[] = Array.from({ length: 12 }, (_, i) => {
      const w: Record<string, unknown> = wire(i, i === 5 ? { source: HOSTILE[4], reporter: HOSTILE[9] } : i === 7 ? { dkims: [], rdns: [] } : {});
      // Row 7 has no signatures, no PTR names and no extra field: nothing of row 6 may stay in it (the encoder refills one object).
      if (i === 7) {
        delete w.extra;
        delete w.reportId;
      }
      const r = normaliseRow(w);
      if (!('record' in r)) throw new Error(r.reason);
      return r.record;
    });
    const c = decodeChunk(encodeRows(records, 2, 9));
    assert.equal(c.count, 9);
    assert.deepStrictEqual([listOf(c, L.dkims, 5).length, listOf(c, L.rdns, 5).length, listOf(c, L.extras, 5).length], [0, 0, 0]);
    assert.equal(str(c, c.scalars[S.dkimAligned]![5]!), '', 'row 7: no signatures, no alignment');
    for (let i = 0; i < 9; i++) {
      const t = toTuple(records[i + 2]!);
      const got = rowOf(c, i);
      const fields = toRowFields(records[i + 2]!);
      assert.deepStrictEqual(got, { ...fields, scalars: [...fields.scalars], dkims: records[i + 2]!.dkims.map((d) => [d.domain, d.selector, d.result]) });
      for (const f of SCALARS) {
        const want = f === 'dkimAligned' ? t[T.dkimAligned] : t[T[f]];
        assert.equal(got.scalars[S[f]], want, `${f} of row ${i + 2}`);
      }
      assert.equal(got.emails, t[T.emails]);
      assert.deepStrictEqual(got.rdns, t[T.rdns]);
      assert.deepStrictEqual(got.dkims, t[T.dkims]);
      assert.deepStrictEqual(got.extras, t[T.extras]);
    }
    const fromChunk = new RowStore();
    fromChunk.appendChunk(decodeChunk(encodeRows(records, 0, records.length)));
    const fromTuples = new RowStore();
    appendTuples(fromTuples, records.map(toTuple));
    const every = (st: RowStore) => Array.from({ length: st.length }, (_, i) => [COLUMNS.map((c) => st.cell(i, c)), st.rdns(i), st.dkims(i), st.extraPairs(i)]);
    assert.deepStrictEqual(every(fromChunk), every(fromTuples));
    assert.equal(fromChunk.length, records.length);
    assert.deepStrictEqual([...fromChunk.emails.subarray(0, 12)], records.map((r) => r.emails));
    assert.equal(fromChunk.cell(5, 'source'), HOSTILE[4]);
  });

  it('a chunk with more than 65,536 distinct strings keeps every cell (wide string ids) and a small one the same (narrow ids)', () => {
    const tuple = (i: number) => [`src-${i}`, `rep-${i}`, `from-${i}.example`, `rp-${i}`, `to-${i}`, `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 'US',
      [`ptr-${i}.example`], i + 1, 'authorized', '2026-11-01T00:00:00Z', 'none', 'pass', 'fail', 'pass', [[`d${i}.example`, `s${i}`, 'pass']], 'yes', ['reportId', `R${i}`]];
    for (const n of [30_000, 300]) {
      const store = new RowStore();
      appendTuples(store, Array.from({ length: n }, (_, i) => tuple(i)));
      assert.equal(store.length, n);
      // The ids, one per row and column: four bytes each past 65,536 strings, else two.
      const seg = (store.search as unknown as { segments: { ids: Uint16Array | Uint32Array; extraStart: Uint32Array }[] }).segments[0]!;
      assert.ok(seg.ids instanceof (n > 10_000 ? Uint32Array : Uint16Array));
      assert.equal(seg.ids.byteLength, n * COLUMNS.length * (n > 10_000 ? 4 : 2));
      assert.ok(store.search.bytes() > seg.ids.byteLength + seg.extraStart.byteLength, 'and the prepared search (character bits, column ids)');
      for (const i of [0, 1, n >> 1, n - 1]) {
        assert.equal(store.cell(i, 'source'), `src-${i}`);
        assert.equal(store.cell(i, 'rdns'), `ptr-${i}.example`);
        assert.equal(store.cell(i, 'emails'), String(i + 1));
        assert.equal(store.cell(i, 'dkimDomains'), `d=d${i}.example s=s${i} pass`);
        assert.equal(store.extra(i, 'reportId'), `R${i}`);
        assert.deepStrictEqual(store.dkims(i), [{ domain: `d${i}.example`, selector: `s${i}`, result: 'pass' }]);
      }
      const mask = new Uint8Array(n);
      store.search.search(`rep-${n - 1}`, 0, n, mask);
      assert.deepEqual([...mask.keys()].filter((i) => mask[i]), [n - 1]);
    }
  });

  it("a column's codes, extended as chunks arrive, match the cells; sums by value weigh the rows listed", () => {
    const store = new RowStore();
    const row = (i: number) => [`s${i % 5}`, 'r', 'f', 'rp', 't', `10.0.0.${i % 9}`, 'US', [], i + 1, ['authorized', 'rejected', 'quarantined'][i % 3], '2026-11-01T00:00:00Z', ['none', 'quarantine', 'reject'][i % 3], 'pass', 'fail', 'pass', [], 'no', []];
    const check = () => {
      for (const column of ['source', 'ipAddress', 'category'] as const) {
        const { uniq, code } = store.columnCodes(column);
        assert.equal(code.length, store.length);
        for (let i = 0; i < store.length; i++) assert.equal(uniq[code[i]!], store.cell(i, column));
        assert.equal(new Set(uniq).size, uniq.length, 'each text once');
      }
    };
    appendTuples(store, Array.from({ length: 50 }, (_, i) => row(i)));
    check();
    appendTuples(store, Array.from({ length: 70 }, (_, i) => row(50 + i)), 500);
    check();
    const rows = Uint32Array.from({ length: 120 }, (_, i) => i).filter((i) => i % 2 === 0);
    const want = new Map<string, number>();
    for (const i of rows) want.set(store.cell(i, 'category'), (want.get(store.cell(i, 'category')) ?? 0) + store.emails[i]!);
    const { uniq, code } = store.columnCodes('category');
    const got = new Map<string, number>();
    for (const i of rows) got.set(uniq[code[i]!]!, (got.get(uniq[code[i]!]!) ?? 0) + store.emails[i]!);
    assert.deepStrictEqual(got, want);
    store.clear();
    appendTuples(store, [row(7)]);
    check();
    assert.deepStrictEqual(store.columnCodes('source').uniq, ['s2'], 'nothing of before the clear');
  });

  it('the webview search finds a term in any cell or extra field, as a naive scan of every cell does', () => {
    const store = new RowStore();
    const tuples = Array.from({ length: 300 }, (_, i) => [
      `Src${i % 7}`, `rep${i % 3}.example`, 'News.Example.com', `bounce${i % 5}.example`, i % 2 ? 'gmail.com' : '', `198.51.100.${i}`, 'US',
      i % 4 ? [`mail${i}.Example.NET`, 'second.example'] : [], i * 3 + 1, ['authorized', 'rejected'][i % 2], `2026-11-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00Z`,
      ['none', 'quarantine', 'reject'][i % 3], i % 3 ? 'pass' : 'fail', 'fail', 'softfail',
      i % 5 ? [[`d${i % 4}.example`, `S${i % 2}`, 'pass']] : [[`a.example`, '', 'fail'], ['b.example', 'k', 'temperror']],
      'no', i % 6 ? ['reportId', `R-${i}`] : [],
    ]);
    for (let k = 0; k < tuples.length; k += 70) appendTuples(store, tuples.slice(k, k + 70));
    const naive = (q: string): number[] => {
      const out: number[] = [];
      for (let i = 0; i < store.length; i++) {
        const cells = COLUMNS.map((c) => store.cell(i, c).toLowerCase());
        const ex = store.extraPairs(i);
        for (let k = 0; k < ex.length; k += 2) cells.push(`${ex[k]}=${ex[k + 1]}`.toLowerCase());
        if (cells.some((c) => c.includes(q))) out.push(i);
      }
      return out;
    };
    for (const q of ['src3', 'example.net', '198.51.100.42', 'reportid=r-1', '=r-2', 'd=d2.example', 's=(none)', 'temperror', '31', 'quarantine', 'pass', '2026-11-05', 'mail7.example.net, second', 'm', 'ma', 'mail1', 'mail12', 'mail1', 'zzz']) {
      const mask = new Uint8Array(store.length);
      store.search.search(q, 0, store.length, mask);
      const got = [...mask].flatMap((m, i) => (m ? [i] : []));
      assert.deepStrictEqual(got, naive(q), q);
    }
  });
});
