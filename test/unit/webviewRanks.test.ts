// Sort ranks (media/webview/data/ranks.ts) against comparators written apart from them: for
// every column kind, rank order is exactly the comparator's order, equal values share a rank,
// and ranks have no gaps; IP sort keys exactly.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { COLUMNS, T, type ColumnId } from '../../src/shared/columns';
import { ipSortKey, rankColumn, sortByRank } from '../../media/webview/data/ranks';
import { RowStore } from '../../media/webview/data/store';
import { appendTuples } from '../../media/webview/data/tuples';

const collator = new Intl.Collator(undefined);
const sign = (x: number): number => (x > 0 ? 1 : x < 0 ? -1 : 0);
const codeUnits = (s: string, t: string): number => (s < t ? -1 : s > t ? 1 : 0);
/** Collator order; texts it holds equal but that differ, in code-unit order (each text its own rank). */
const textOrder = (s: string, t: string): number => collator.compare(s, t) || codeUnits(s, t);

/** Numbers first, ascending; then rows without a number, in code-unit order of their text. */
function byNumber(key: (i: number) => number, text: (i: number) => string) {
  return (a: number, b: number): number => {
    const x = key(a);
    const y = key(b);
    const nx = Number.isNaN(x);
    const ny = Number.isNaN(y);
    if (nx !== ny) return nx ? 1 : -1;
    if (!nx) return x - y;
    return codeUnits(text(a), text(b));
  };
}

function comparator(store: RowStore, column: ColumnId): (a: number, b: number) => number {
  const text = (i: number) => store.cell(i, column);
  if (column === 'emails') return byNumber((i) => store.emails[i]!, text);
  if (column === 'date') return byNumber((i) => store.dateMs[i]!, text);
  if (column === 'ipAddress') return byNumber((i) => ipSortKey(text(i)), text);
  if (column === 'dkim') return (a, b) => (parseInt(text(a), 10) || 0) - (parseInt(text(b), 10) || 0) || textOrder(text(a), text(b));
  return (a, b) => textOrder(text(a), text(b));
}

function checkColumn(store: RowStore, column: ColumnId): void {
  const { rank, distinct } = rankColumn(store, column);
  const cmp = comparator(store, column);
  const n = store.length;
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) assert.equal(sign(rank[a]! - rank[b]!), sign(cmp(a, b)), `${column}: rows ${a} and ${b} (${store.cell(a, column)} / ${store.cell(b, column)})`);
  }
  // No gaps: the ranks used are exactly 0 … distinct - 1.
  assert.deepStrictEqual([...new Set(rank)].sort((x, y) => x - y), Array.from({ length: distinct }, (_, k) => k), `${column}: ranks without gaps`);
  // The counting sort puts rows in that order, ties in row order both ways.
  for (const descending of [false, true]) {
    const want = Array.from({ length: n }, (_, i) => i).sort((a, b) => (descending ? -cmp(a, b) : cmp(a, b)) || a - b);
    assert.deepStrictEqual([...sortByRank(rank, distinct, n, descending)], want, `${column} ${descending ? 'descending' : 'ascending'}`);
  }
}

function row(fields: Partial<Record<keyof typeof T, unknown>>): unknown[] {
  const t: unknown[] = ['s', 'r', 'f', 'rp', '', '192.0.2.1', 'US', [], 1, 'authorized', '2026-11-16T17:20:00Z', 'none', 'pass', 'fail', 'pass', [], 'no', []];
  for (const [k, v] of Object.entries(fields)) t[T[k as keyof typeof T]] = v;
  return t;
}

describe('webview: sort ranks, exactly', () => {
  const text = fc.constantFrom('', 'a', 'A', 'b', 'é', 'e', 'Zulu', 'zulu', '10', '9', 'ä', '\u202e', 'x y');
  const ip = fc.constantFrom('192.0.2.1', '10.0.0.1', '9.255.255.255', '10.0.0.1', '::1', '::', '2001:db8::1', '2001:db8:0:1::', 'fe80::1', 'host.example', '', 'zz', '1.2.3');
  const date = fc.constantFrom('2026-11-16T17:20:00Z', '2026-11-16T17:20:00.000Z', '2025-01-01T00:00:00Z', '', 'soon', 'later');
  const emails = fc.constantFrom(0, 1, 2, 10, 1e6, -1, Number.NaN, 3);
  const dkims = fc.array(fc.tuple(text, text, fc.constantFrom('pass', 'fail', '', 'none')), { maxLength: 11 });

  it('every column: rank order is the comparator\'s, equal values share a rank, no gaps, stable counting sort', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ source: text, ipAddress: ip, date, emails, dkims, visibleFrom: text }), { minLength: 1, maxLength: 25 }), (rows) => {
        const store = new RowStore();
        appendTuples(store, rows.map((r) => row(r)));
        for (const c of COLUMNS) checkColumn(store, c);
      }),
      { numRuns: 60 },
    );
  });

  it('thousands of distinct texts (the presorted path) still come out in collator order', () => {
    const words = Array.from({ length: 2600 }, (_, i) => `${['é', 'e', 'E', 'z', 'Å', 'a'][i % 6]}${(i * 7919) % 2600}`);
    const store = new RowStore();
    appendTuples(store, words.map((w) => row({ source: w })));
    const { rank, distinct } = rankColumn(store, 'source');
    assert.equal(distinct, new Set(words).size);
    const sorted = [...new Set(words)].sort(textOrder);
    for (let i = 0; i < words.length; i++) assert.equal(rank[i], sorted.indexOf(words[i]!), words[i]);
  });

  it('rows without a number rank after every number, by their text, and equal texts share a rank', () => {
    const store = new RowStore();
    appendTuples(store, ['b-host', '10.0.0.2', 'a-host', '::1', '10.0.0.2', 'b-host', '1.2.3.4'].map((ipAddress) => row({ ipAddress })));
    const { rank, distinct } = rankColumn(store, 'ipAddress');
    assert.deepStrictEqual([...rank], [4, 1, 3, 2, 1, 4, 0]);
    assert.equal(distinct, 5);
  });

  it('up to one rank a row (dates, addresses): the same stable order, both ways', () => {
    for (const [n, distinct] of [[300_000, 70_000], [200_003, 200_003], [100_000, 65_537], [1 << 17, 1 << 17]] as const) {
      let seed = n;
      const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
      const rank = distinct <= 65536 ? new Uint16Array(n) : new Uint32Array(n);
      for (let i = 0; i < n; i++) rank[i] = next() % distinct;
      rank[0] = distinct - 1; // the largest rank is used
      for (const descending of [false, true]) {
        const key = (i: number) => (descending ? distinct - 1 - rank[i]! : rank[i]!);
        const want = Array.from({ length: n }, (_, i) => i).sort((a, b) => key(a) - key(b) || a - b);
        assert.deepStrictEqual([...sortByRank(rank, distinct, n, descending)], want, `${n} rows, ${distinct} ranks, ${descending ? 'descending' : 'ascending'}`);
      }
    }
  });

  it('IP sort keys: an IPv4 address is its 32-bit value; IPv6 comes after, by its first 48 bits', () => {
    assert.equal(ipSortKey('0.0.0.0'), 0);
    assert.equal(ipSortKey('1.2.3.4'), 0x01020304);
    assert.equal(ipSortKey('255.255.255.255'), 2 ** 32 - 1);
    const v6 = (a: number, b: number, c: number) => 2 ** 32 + (a * 65536 + b) * 65536 + c;
    assert.equal(ipSortKey('::'), v6(0, 0, 0));
    assert.equal(ipSortKey('::1'), v6(0, 0, 0));
    assert.equal(ipSortKey('2001:db8::1'), v6(0x2001, 0xdb8, 0));
    assert.equal(ipSortKey('2001:DB8:a:b:c:d:e:f'), v6(0x2001, 0xdb8, 0xa));
    assert.equal(ipSortKey('1::'), v6(1, 0, 0));
    assert.equal(ipSortKey('::3:4:5:6:7:8'), v6(0, 0, 3));
    assert.equal(ipSortKey('1:2::7:8'), v6(1, 2, 0));
    assert.equal(ipSortKey('::ffff:192.0.2.1'), v6(0, 0, 0));
    for (const bad of ['', 'host.example', '1.2.3', '1.2.3.4.5', '1234.1.1.1', 'g::1', '2001:db8::1%eth0', ' ::1', '1.2.3.4 ']) assert.ok(Number.isNaN(ipSortKey(bad)), bad);
  });
});
