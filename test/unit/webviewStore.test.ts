// The webview's row store (media/webview/data/store.ts, fed through tuples.ts) against a model
// written apart from it: every cell of every column, every list, and every per-row fact, for
// rows split into chunks at random, with untrusted shapes coerced the documented way.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { COLUMNS, T, type ColumnId } from '../../src/shared/columns';
import { RowStore } from '../../media/webview/data/store';
import { appendTuples } from '../../media/webview/data/tuples';
import { adviceLabel } from '../../media/webview/data/adviceLabels';

/** What tuples.ts promises: anything that is not a string becomes '' (missing, null) or its String(). */
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);
const sigs = (v: unknown): string[][] => (Array.isArray(v) ? v.map((d) => { const a = Array.isArray(d) ? d : []; return [str(a[0]), str(a[1]), str(a[2])]; }) : []);
const label = (v: string): string => (v === '' ? '(empty)' : v);

interface Model {
  cells: Record<ColumnId, string>;
  rdns: string[];
  dkims: { domain: string; selector: string; result: string }[];
  extras: string[];
  emails: number;
  dateMs: number;
  dmarcPass: number;
  spfAligned: number;
  dkimAligned: number;
  disposition: number;
}

function model(raw: unknown): Model {
  const t = (Array.isArray(raw) ? raw : []) as unknown[];
  const s = (k: keyof typeof T) => str(t[T[k]]);
  const n = typeof t[T.emails] === 'number' ? (t[T.emails] as number) : Number(t[T.emails]);
  const emails = Number.isFinite(n) && n > 0 ? n : 0;
  const signatures = sigs(t[T.dkims]);
  const spf = s('alignedSpf') === 'pass' ? 1 : 0;
  const dkim = s('alignedDkim') === 'pass' ? 1 : 0;
  const extras = list(t[T.extras]);
  if (extras.length % 2) extras.pop();
  const date = Date.parse(s('date'));
  return {
    cells: {
      source: s('source'), ipAddress: s('ipAddress'), emails: String(emails), dmarcResult: spf || dkim ? 'pass' : 'fail',
      alignedSpf: s('alignedSpf'), alignedDkim: s('alignedDkim'), dmarc: s('dmarc'), date: s('date'), category: s('category'),
      visibleFrom: s('visibleFrom'),
      dkimDomains: signatures.map(([d, sel, r]) => `d=${d || '(none)'} s=${sel || '(none)'} ${label(r!)}`).join('\n'),
      dkimAligned: s('dkimAligned'), returnPath: s('returnPath'), reporter: s('reporter'), to: s('to'), ipCountryCode: s('ipCountryCode'),
      rdns: list(t[T.rdns]).join(', '), spf: s('spf'),
      dkim: signatures.length ? `${signatures.length} (${signatures.map((x) => label(x[2]!)).join(', ')})` : '0',
      rowClass: adviceLabel(s('rowClass')), spfReason: adviceLabel(s('spfReason')), dkimReason: adviceLabel(s('dkimReason')),
      override: s('override'),
    },
    rdns: list(t[T.rdns]),
    dkims: signatures.map(([domain, selector, result]) => ({ domain: domain!, selector: selector!, result: result! })),
    extras,
    emails,
    dateMs: Number.isFinite(date) ? date : Number.NaN,
    dmarcPass: spf | dkim,
    spfAligned: spf,
    dkimAligned: dkim,
    disposition: ({ none: 0, quarantine: 1, reject: 2 } as Record<string, number>)[s('dmarc')] ?? 3,
  };
}

function check(store: RowStore, tuples: readonly unknown[]): void {
  assert.equal(store.length, tuples.length);
  tuples.forEach((t, i) => {
    const m = model(t);
    const got: Model = {
      cells: Object.fromEntries(COLUMNS.map((c) => [c, store.cell(i, c)])) as Record<ColumnId, string>,
      rdns: store.rdns(i), dkims: store.dkims(i), extras: store.extraPairs(i),
      emails: store.emails[i]!, dateMs: store.dateMs[i]!, dmarcPass: store.dmarcPass[i]!, spfAligned: store.spfAligned[i]!,
      dkimAligned: store.dkimAligned[i]!, disposition: store.disposition[i]!,
    };
    assert.deepStrictEqual(got, m, `row ${i}: ${JSON.stringify(t)}`);
    for (let k = 0; k + 1 < m.extras.length; k += 2) {
      // The first field of that name, as the row has it.
      let first = 0;
      while (m.extras[first] !== m.extras[k]) first += 2;
      assert.equal(store.extra(i, m.extras[k]!), m.extras[first + 1], `extra ${m.extras[k]} of row ${i}`);
    }
    for (const c of COLUMNS) assert.equal(store.column(c)(i), m.cells[c]);
  });
  const names = new Set(tuples.flatMap((t) => { const x = model(t).extras; return x.filter((_, k) => k % 2 === 0); }));
  assert.deepStrictEqual(new Set(store.extraNames), names);
  for (const c of COLUMNS) {
    const { uniq, code } = store.columnCodes(c, c.length % 2 === 0);
    assert.deepStrictEqual([...code].map((k) => uniq[k]), tuples.map((t) => model(t).cells[c]), `codes of ${c}`);
    assert.equal(new Set(uniq).size, uniq.length);
    // Codes in the order the texts first appear.
    let next = 0;
    for (const k of code) {
      assert.ok(k <= next, `code ${k} before ${next} of ${c}`);
      if (k === next) next++;
    }
    assert.equal(next, uniq.length);
  }
}

const word = fc.constantFrom('', 'pass', 'fail', 'none', 'quarantine', 'reject', 'Pass', 'NONE', 'quarantinE', 'softfail', 'a.example', 'é\u202e', 'x'.repeat(11));
const anyValue = fc.oneof(word, fc.constant(null), fc.constant(undefined), fc.integer({ min: -3, max: 3 }), fc.constant(true));
const date = fc.constantFrom('2026-11-16T17:20:00.000Z', '2026-11-16T17:20:00Z', '2026-11-16T17:20:00+01:00', '', 'not a date', '2026-02-30T00:00:00Z');
/** Advice codes (shown by their labels), codes outside the vocabulary (shown as sent) and junk. */
const advice = fc.oneof(fc.constantFrom('compliant', 'needs-fixing', 'spf-none', 'dkim-other-domain', 'spf-unaligned-pass', '__proto__', 'Compliant'), anyValue);
const tuple = fc.tuple(
  word, word, word, word, anyValue, word, anyValue,
  fc.oneof(fc.array(word, { maxLength: 3 }), anyValue),
  fc.oneof(fc.integer({ min: -5, max: 1e6 }), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 0.5, '7', 'x', null, undefined)),
  word, date, word, word, word, word,
  fc.oneof(fc.array(fc.oneof(fc.array(word, { maxLength: 4 }), anyValue), { maxLength: 3 }), anyValue),
  word,
  fc.oneof(fc.array(word, { maxLength: 5 }), anyValue),
  advice, advice, advice,
);

describe('webview: the row store, cell by cell, against an independent model', () => {
  it('rows appended in chunks of any size read back exactly: every column, list and fact', () => {
    fc.assert(
      fc.property(fc.array(tuple, { maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 15 }), { minLength: 1, maxLength: 8 }), (tuples, sizes) => {
        const store = new RowStore();
        let at = 0;
        for (let k = 0; at < tuples.length; k++) {
          const n = sizes[k % sizes.length]!;
          appendTuples(store, tuples.slice(at, at + n), k === 0 ? tuples.length : 0);
          at += n;
          check(store, tuples.slice(0, at));
        }
        check(store, tuples);
      }),
      { numRuns: 150 },
    );
  });

  it('documented coercions, one by one', () => {
    const store = new RowStore();
    const rows: unknown[] = [
      // Not an array at all: every field reads as ''.
      'not a tuple',
      [],
      ['s', 'r', 'f', 'rp', 5, '1.2.3.4', null, 'not a list', '12', 'authorized', '2026-11-16T17:20:00Z', 'reject', 'pass', 'fail', 'pass', [['d.example', 's1', 'pass'], 'junk', ['e.example']], 'yes', ['k', 'v', 'odd']],
      ['s', 'r', 'f', 'rp', '', '1.2.3.4', 'US', ['a', 'b'], -4, 'c', '', 'quarantine', 'fail', 'pass', 'x', [], 'no', ['k', 'v', 'k', 'w']],
      ['s', 'r', 'f', 'rp', '', '1.2.3.4', 'US', [], Number.NaN, 'c', '', 'none', 'fail', 'fail', 'x', [['', '', '']], '', []],
    ];
    appendTuples(store, rows);
    check(store, rows);
    assert.equal(store.cell(0, 'source'), '');
    assert.equal(store.cell(0, 'dkim'), '0');
    assert.equal(store.cell(2, 'to'), '5');
    assert.equal(store.cell(2, 'emails'), '12');
    assert.equal(store.cell(2, 'dkimDomains'), 'd=d.example s=s1 pass\nd=(none) s=(none) (empty)\nd=e.example s=(none) (empty)');
    assert.equal(store.cell(2, 'dkim'), '3 (pass, (empty), (empty))');
    assert.deepStrictEqual(store.extraPairs(2), ['k', 'v']);
    assert.equal(store.extra(3, 'k'), 'v');
    assert.equal(store.extra(3, 'nope'), '');
    assert.equal(store.cell(3, 'rdns'), 'a, b');
    assert.equal(store.cell(3, 'emails'), '0');
    assert.deepStrictEqual([...store.disposition.subarray(0, 5)], [3, 3, 2, 1, 0]);
    assert.deepStrictEqual([...store.dmarcPass.subarray(0, 5)], [0, 0, 1, 1, 0]);
    assert.deepStrictEqual([...store.spfAligned.subarray(0, 5)], [0, 0, 1, 0, 0]);
    assert.deepStrictEqual([...store.dkimAligned.subarray(0, 5)], [0, 0, 0, 1, 0]);
    assert.equal(store.dateMs[2], Date.UTC(2026, 10, 16, 17, 20));
    assert.ok(Number.isNaN(store.dateMs[3]!));
    // Out of range reads give nothing, not another row's data.
    for (const i of [-1, 5, 1.5, Number.NaN]) {
      assert.equal(store.cell(i, 'source'), '');
      assert.deepStrictEqual([store.rdns(i), store.dkims(i), store.extraPairs(i), store.extra(i, 'k')], [[], [], [], '']);
    }
  });

  it('versions: every append bumps the version; a clear bumps both and forgets rows, codes and extra names', () => {
    const store = new RowStore();
    const row = (s: string) => [s, 'r', 'f', 'rp', '', '1.2.3.4', 'US', [], 1, 'c', '', 'none', 'pass', 'fail', 'pass', [], 'no', [`x-${s}`, 'v']];
    const v0 = store.version;
    const g0 = store.generation;
    appendTuples(store, [row('a')]);
    appendTuples(store, [row('b'), row('a')]);
    assert.deepStrictEqual([store.version - v0, store.generation - g0], [2, 0]);
    assert.deepStrictEqual(store.columnCodes('source').uniq, ['a', 'b']);
    assert.deepStrictEqual([...store.extraNames], ['x-a', 'x-b']);
    const before = store.bytes();
    store.clear();
    assert.deepStrictEqual([store.length, store.version - v0, store.generation - g0], [0, 3, 1]);
    assert.deepStrictEqual([...store.extraNames], []);
    assert.equal(store.cell(0, 'source'), '');
    assert.ok(store.bytes() < before, 'the cleared rows\' parts are let go');
    appendTuples(store, [row('c')]);
    check(store, [row('c')]);
    assert.deepStrictEqual(store.columnCodes('source').uniq, ['c']);
  });
});
