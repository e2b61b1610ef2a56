// The linear paths of the sort ranks (src/shared/sorts.ts, media/webview/data/ranks.ts, columnScan.ts),
// against references written apart from them: the radix order is a stable sort by value, dense
// ranks are the comparison sort's, IPv4 keys are the regular
// expression's, and values mapped once per chunk are the values of every row.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { COLUMNS, T } from '../../src/shared/columns';
import { mergeSortSteps, radixOrder, radixOrderSteps } from '../../src/shared/sorts';
import { denseRanks, ipSortKey, rankColumn, rankSteps } from '../../media/webview/data/ranks';
import { RowStore } from '../../media/webview/data/store';
import { appendTuples } from '../../media/webview/data/tuples';
import { networkKey } from '../../media/webview/data/network';
import { RecordsModel } from '../../media/webview/data/query';
import { codeColumnSteps, drain, mapColumnSteps, numbersOfSteps } from '../../media/webview/data/columnScan';

/** Stable ascending order by value, -0 equal to 0 (the comparator is apart from the radix's bits). */
function referenceOrder(keys: Float64Array): number[] {
  return Array.from(keys, (_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
}

/** Dense ranks by counting the distinct values below each: NaN after all. */
function referenceRanks(keys: Float64Array): { rank: number[]; distinct: number } {
  const values = [...new Set(Array.from(keys).filter((v) => !Number.isNaN(v)).map((v) => (v === 0 ? 0 : v)))].sort((a, b) => a - b);
  const at = new Map(values.map((v, k) => [v, k]));
  return { rank: Array.from(keys, (v) => (Number.isNaN(v) ? values.length : at.get(v === 0 ? 0 : v)!)), distinct: values.length };
}

const double = fc.oneof(
  fc.double({ noNaN: true }),
  fc.constantFrom(0, -0, 1, -1, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, 2 ** 53, 1.7e12, 1.7e12 + 1),
  fc.integer({ min: -5, max: 5 }),
);

/** The regular expression the hand-written IPv4 parse replaced. */
function regexKey(ip: string): number {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  return v4 ? ((+v4[1]! * 256 + +v4[2]!) * 256 + +v4[3]!) * 256 + +v4[4]! : -1;
}

function row(fields: Partial<Record<keyof typeof T, unknown>>): unknown[] {
  const t: unknown[] = ['s', 'r', 'f', 'rp', '', '192.0.2.1', 'US', [], 1, 'authorized', '2026-11-16T17:20:00Z', 'none', 'pass', 'fail', 'pass', [], 'no', []];
  for (const [k, v] of Object.entries(fields)) t[T[k as keyof typeof T]] = v;
  return t;
}

describe('webview: radix order and the linear rank paths, exactly', () => {
  it('radixOrder is a stable ascending sort by value (negatives, -0, infinities, subnormals, ties)', () => {
    fc.assert(
      fc.property(fc.array(double, { maxLength: 300 }), (xs) => {
        const keys = Float64Array.from(xs);
        assert.deepStrictEqual([...radixOrder(keys)], referenceOrder(keys));
      }),
      { numRuns: 300 },
    );
    assert.deepStrictEqual([...radixOrder(new Float64Array(0))], []);
  });

  it('radixOrder of whole numbers (the 32-bit path when they are less than 2^32 apart, else the 64-bit one)', () => {
    const whole = fc.oneof(fc.integer({ min: -70_000, max: 70_000 }), fc.constantFrom(0, -0, 2 ** 32 - 1, 2 ** 32, -(2 ** 31), 1.7e12, 1.7e12 + 1000, 2 ** 53 - 1));
    fc.assert(
      fc.property(fc.array(whole, { maxLength: 300 }), (xs) => {
        const keys = Float64Array.from(xs);
        assert.deepStrictEqual([...radixOrder(keys)], referenceOrder(keys));
      }),
      { numRuns: 400 },
    );
    // Dates of a year to the millisecond: more than 2^32 apart, the 64-bit path; in whole seconds,
    // 32-bit offsets in seconds; whole seconds more than 2^32 s apart, the 64-bit path again.
    for (const [step, jitter] of [[6_311_000, 1], [6_311_000, 0], [6_311_000_000_000, 0]]) {
      const dates = Float64Array.from({ length: 5_000 }, (_, i) => 1.7e12 + ((i * 7919) % 5_000) * step! - (i % 3) * 1000 * (1 - jitter!) + (i % 3) * jitter!);
      assert.deepStrictEqual([...radixOrder(dates)], referenceOrder(dates), `step ${step}, jitter ${jitter}`);
    }
  });

  it('dense ranks of tens of thousands of keys are the comparison sort\'s, NaN after all', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(double, fc.constant(Number.NaN)), { minLength: 1, maxLength: 60 }), fc.integer({ min: 16_384, max: 20_000 }), (sample, n) => {
        // Many rows drawn from a few values (ties), plus unique ones (dates).
        const keys = Float64Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1.7e12 + i * 1000 : sample[(i * 7919) % sample.length]!));
        const got = denseRanks(keys);
        const want = referenceRanks(keys);
        assert.equal(got.distinct, want.distinct);
        assert.deepStrictEqual([...got.rank], want.rank);
        assert.ok(got.rank instanceof (want.distinct + 1 <= 65536 ? Uint16Array : Uint32Array));
      }),
      { numRuns: 12 },
    );
  });

  it('dense ranks of whole numbers close together (marked, not sorted) are the comparison sort\'s too', () => {
    const near = fc.oneof(fc.integer({ min: -3, max: 2 ** 20 + 3 }), fc.constantFrom(-0, Number.NaN, 2 ** 20 - 1));
    fc.assert(
      fc.property(fc.array(near, { maxLength: 400 }), fc.nat(3), (xs, extra) => {
        const keys = Float64Array.from(xs);
        const got = denseRanks(keys, extra);
        const want = referenceRanks(keys);
        assert.equal(got.distinct, want.distinct);
        assert.deepStrictEqual([...got.rank], want.rank);
        assert.ok(got.rank instanceof (want.distinct + extra <= 65536 ? Uint16Array : Uint32Array));
      }),
      { numRuns: 400 },
    );
  });

  it('IPv4 keys: the hand-written parse gives exactly what the regular expression gave', () => {
    const ipish = fc.stringMatching(/^[0-9.]{0,17}$/);
    const noisy = fc.string({ unit: fc.constantFrom('1', '9', '0', '.', ':', 'a', ' ', '٣', '\u0000'), maxLength: 16 });
    fc.assert(
      fc.property(fc.oneof(ipish, noisy, fc.ipV4()), (s) => {
        const want = regexKey(s);
        const got = ipSortKey(s);
        if (want >= 0) assert.equal(got, want, s);
        else assert.ok(Number.isNaN(got) || got >= 2 ** 32, `${s}: ${got}`);
      }),
      { numRuns: 2000 },
    );
    assert.equal(ipSortKey('999.0.0.1'), ((999 * 256 + 0) * 256 + 0) * 256 + 1);
    assert.equal(ipSortKey('01.002.3.4'), 0x01020304);
  });

  it('ranks of many chunks past the radix threshold: ordered as the values, ties shared, no gaps', () => {
    const store = new RowStore();
    const n = 20_000;
    const ips = ['10.0.0.2', '9.255.255.255', '::1', 'host.example', '', '2001:db8::1', '192.0.2.1', '010.0.0.2'];
    for (let k = 0; k < n; k += 1_250) {
      appendTuples(store, Array.from({ length: Math.min(1_250, n - k) }, (_, j) => {
        const i = k + j;
        return row({ ipAddress: i % 5 === 0 ? `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` : ips[i % ips.length], emails: i % 97, date: new Date(1.7e12 + (i % 4_000) * 60_000).toISOString() });
      }));
    }
    for (const column of ['ipAddress', 'emails', 'date'] as const) {
      const key = (i: number): number => (column === 'ipAddress' ? ipSortKey(store.cell(i, 'ipAddress')) : column === 'emails' ? store.emails[i]! : store.dateMs[i]!);
      const cmp = (a: number, b: number): number => {
        const x = key(a);
        const y = key(b);
        if (Number.isNaN(x) !== Number.isNaN(y)) return Number.isNaN(x) ? 1 : -1;
        if (!Number.isNaN(x)) return x - y;
        const s = store.cell(a, column);
        const t = store.cell(b, column);
        return s < t ? -1 : s > t ? 1 : 0;
      };
      const { rank, distinct } = rankColumn(store, column);
      const order = Array.from({ length: n }, (_, i) => i).sort(cmp);
      assert.equal(rank[order[0]!], 0, column);
      for (let k = 1; k < n; k++) {
        const a = order[k - 1]!;
        const b = order[k]!;
        assert.equal(rank[b]! - rank[a]!, cmp(a, b) === 0 ? 0 : 1, `${column}: ${store.cell(a, column)} / ${store.cell(b, column)}`);
      }
      assert.equal(rank[order[n - 1]!], distinct - 1, column);
    }
  });

  it('mapColumnSteps and codeColumnSteps: the value of every row from any row on, with the mapping run once per distinct text of a chunk', () => {
    const store = new RowStore();
    const values = ['a', 'b', 'a', 'c', 'b', 'a', 'd'];
    appendTuples(store, values.slice(0, 4).map((source) => row({ source })));
    appendTuples(store, values.slice(4).map((source) => row({ source })));
    for (let from = 0; from <= values.length; from++) {
      const calls: string[] = [];
      const got: [number, string][] = [];
      drain(mapColumnSteps(store, 'source', from, (text) => (calls.push(text), text.toUpperCase()), (i, v) => got.push([i, v])));
      assert.deepStrictEqual(got, values.slice(from).map((v, k) => [from + k, v.toUpperCase()]), `from ${from}`);
      const perChunk = new Set(values.slice(from, 4)).size + new Set(values.slice(Math.max(from, 4))).size;
      assert.equal(calls.length, perChunk, `from ${from}`);
      // The same through codeColumnSteps, written into an array: rows before `from` left alone.
      const codeCalls: string[] = [];
      const out = new Uint32Array(values.length).fill(99);
      let built = -1;
      drain(codeColumnSteps(store, 'source', from, (text) => (codeCalls.push(text), text.charCodeAt(0)), out, (n) => (built = n)));
      assert.deepStrictEqual([...out], values.map((v, i) => (i < from ? 99 : v.charCodeAt(0))), `codes from ${from}`);
      assert.equal(codeCalls.length, perChunk, `code calls from ${from}`);
      assert.equal(built, values.length);
    }
    assert.deepStrictEqual([...drain(numbersOfSteps(store, 'source', (t) => t.charCodeAt(0)))], values.map((v) => v.charCodeAt(0)));
  });

  it('the IP network field, built a chunk at a time, is each row\'s own network', () => {
    const m = new RecordsModel();
    const ips = Array.from({ length: 3_000 }, (_, i) => (i % 7 === 0 ? `2001:db8:${i % 5}::${i}` : i % 11 === 0 ? 'not an address' : `198.51.${i % 40}.${i % 250}`));
    for (let k = 0; k < ips.length; k += 700) {
      appendTuples(m, ips.slice(k, k + 700).map((ipAddress) => row({ ipAddress })), ips.length);
      m.fields.get('ipNetwork');
    }
    const f = m.fields.get('ipNetwork');
    assert.equal(f.kind, 'single');
    if (f.kind !== 'single') return;
    for (let i = 0; i < ips.length; i++) assert.equal(f.dict[f.codes[i]!], networkKey(ips[i]!), ips[i]);
    assert.equal(new Set(f.dict).size, f.dict.length);
  });

  it('mergeSortSteps sorts stably by any comparison, in steps, and an almost sorted input in about one comparison per element', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 400 }), (xs) => {
        const ids = Uint32Array.from(xs, (_, i) => i);
        drain(mergeSortSteps(ids, (a, b) => xs[a]! < xs[b]!));
        assert.deepStrictEqual([...ids], xs.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]! || a - b));
      }),
      { numRuns: 300 },
    );
    const n = 50_000;
    const ids = Uint32Array.from({ length: n }, (_, i) => i);
    let comparisons = 0;
    let steps = 0;
    for (const _ of mergeSortSteps(ids, (a, b) => (comparisons++, a < b))) steps++;
    assert.ok(comparisons < 2 * n, `${comparisons} comparisons`);
    assert.deepStrictEqual([...ids], Array.from({ length: n }, (_, i) => i));
    const shuffled = Uint32Array.from({ length: n }, (_, i) => (i * 7919) % n);
    steps = 0;
    for (const _ of mergeSortSteps(shuffled, (a, b) => a < b)) steps++;
    assert.ok(steps > 50, `a shuffled sort of ${n} values yields between slices (${steps} steps)`);
    assert.ok(shuffled.every((v, i) => v === i));
    assert.ok([...radixOrderSteps(Float64Array.from({ length: n }, (_, i) => -i))].length >= 1);
  });

  it('thousands of distinct texts past the native-sort threshold (the merge path) come out in collator order, ties in code-unit order', () => {
    const collator = new Intl.Collator(undefined);
    const textOrder = (s: string, t: string): number => collator.compare(s, t) || (s < t ? -1 : s > t ? 1 : 0);
    const words = Array.from({ length: 9_000 }, (_, i) => `${['é', 'e', 'E', 'z', 'Å', 'a', 'e\u0301', '\u00ad', '10', '9'][i % 10]}${(i * 7919) % 4500}`);
    const store = new RowStore();
    for (let k = 0; k < words.length; k += 1_250) appendTuples(store, words.slice(k, k + 1_250).map((w) => row({ source: w })));
    const { rank, distinct } = rankColumn(store, 'source');
    const sorted = [...new Set(words)].sort(textOrder);
    assert.ok(sorted.length > 4_096);
    assert.equal(distinct, sorted.length);
    const at = new Map(sorted.map((w, k) => [w, k]));
    for (let i = 0; i < words.length; i++) assert.equal(rank[i], at.get(words[i]!), words[i]);
  });

  it('ranks computed in steps, however they are interleaved with a sort, are the ranks computed at once', () => {
    const m = new RecordsModel();
    const n = 40_000;
    for (let k = 0; k < n; k += 1_250) {
      appendTuples(m, Array.from({ length: Math.min(1_250, n - k) }, (_, j) => {
        const i = k + j;
        return row({ source: `src-${(i * 31) % 9_000}`, ipAddress: `10.${i % 7}.${(i >> 8) & 255}.${i & 255}`, emails: i % 13, date: new Date(1.7e12 + i * 1000).toISOString(), rdns: [`h${i % 5000}.example`] });
      }), n);
    }
    // Idle time prepares the search first; the ranks come after.
    while (m.prepareSearch());
    let steps = 0;
    // One step a call, with sorts in between: by the column half-ranked (emails, the first), and by one not started.
    while (m.idleNext()) {
      steps++;
      if (steps === 2) {
        m.ranksOf('emails');
        m.ranksOf('ipAddress');
      }
    }
    assert.ok(steps > COLUMNS.length, `${steps} steps for ${COLUMNS.length} columns`);
    for (const column of COLUMNS) {
      const want = rankColumn(m.store, column);
      const got = m.ranksOf(column);
      assert.equal(got.distinct, want.distinct, column);
      assert.deepStrictEqual(got.rank, want.rank, column);
    }
    // Stepping through one column's ranks by hand gives them too.
    const it = rankSteps(m.store, 'source');
    let r = it.next();
    let slices = 0;
    for (; !r.done; r = it.next()) slices++;
    assert.ok(slices > 1, `${slices} slices`);
    assert.deepStrictEqual(r.value.rank, rankColumn(m.store, 'source').rank);
  });

  it('a store that changes mid-way discards the ranking in progress', () => {
    const m = new RecordsModel();
    const make = (k: number) => Array.from({ length: 1_250 }, (_, j) => row({ ipAddress: `10.0.${(k + j) >> 8 & 255}.${(k + j) & 255}` }));
    for (let k = 0; k < 30_000; k += 1_250) appendTuples(m, make(k));
    m.idleNext();
    m.idleNext();
    appendTuples(m, make(30_000));
    while (m.idleNext());
    for (const column of ['source', 'ipAddress'] as const) assert.deepStrictEqual(m.ranksOf(column).rank, rankColumn(m.store, column).rank, column);
    assert.equal(m.ranksOf('ipAddress').rank.length, 31_250);
  });
});
