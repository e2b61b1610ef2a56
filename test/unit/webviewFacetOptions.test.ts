// Facet options from one filter pass's counts (media/webview/data/facetOptions.ts), exactly: which
// values are listed, in which order for short and for top-value facets, and with what counts.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { facetOptions } from '../../media/webview/data/facetOptions';
import type { FieldIndex } from '../../media/webview/data/fieldTypes';

const field = (dict: string[]): FieldIndex => ({ kind: 'single', dict, codes: new Uint32Array(0) });
const u32 = (...n: number[]) => Uint32Array.from(n);
const f64 = (...n: number[]) => Float64Array.from(n);

describe('webview facet options, exactly', () => {
  it('a short facet: by rows over all rows, then by name; empty and "(none)" last; values no row has left out', () => {
    const dict = ['fail', '', 'pass', 'zz', '(none)', 'gone'];
    const out = facetOptions(['dmarcResult'], [field(dict)], [u32(5, 9, 7, 5, 9, 0)], [u32(1, 2, 3, 0, 4, 0)], [f64(10, 20, 30, 0, 40, 0)], {});
    assert.deepEqual(out.dmarcResult, [
      { key: 'pass', label: 'pass', count: 3, emails: 30, selected: false },
      { key: 'fail', label: 'fail', count: 1, emails: 10, selected: false },
      { key: 'zz', label: 'zz', count: 0, emails: 0, selected: false },
      { key: '', label: '(empty)', count: 2, emails: 20, selected: false },
      { key: '(none)', label: '(none)', count: 4, emails: 40, selected: false },
    ]);
  });

  it('a top-value facet: by current emails, then by name', () => {
    const dict = ['b.example', 'a.example', 'c.example', 'd.example'];
    const out = facetOptions(['source'], [field(dict)], [u32(1, 1, 9, 1)], [u32(1, 1, 1, 0)], [f64(5, 5, 7, 0)], {});
    assert.deepEqual(out.source.map((o) => [o.key, o.emails]), [['c.example', 7], ['a.example', 5], ['b.example', 5], ['d.example', 0]]);
  });

  it('selected values are marked; one no row has is listed (count 0) so it can be cleared; one unknown to the rows too', () => {
    const dict = ['pass', 'fail'];
    const out = facetOptions(['spf'], [field(dict)], [u32(3, 0)], [u32(3, 0)], [f64(6, 0)], { spf: ['fail', 'softfail', ''] });
    assert.deepEqual(out.spf, [
      { key: 'pass', label: 'pass', count: 3, emails: 6, selected: false },
      { key: 'fail', label: 'fail', count: 0, emails: 0, selected: true },
      { key: 'softfail', label: 'softfail', count: 0, emails: 0, selected: true },
      { key: '', label: '(empty)', count: 0, emails: 0, selected: true },
    ]);
  });

  it('several facets at once, each from its own arrays; counts missing from short arrays read 0', () => {
    const out = facetOptions(
      ['dmarc', 'reporter'],
      [field(['none', 'reject']), field(['r1'])],
      [u32(1, 2), u32(4)],
      [u32(1), u32(4)],
      [f64(2), f64(8)],
      {},
    );
    assert.deepEqual(out, {
      dmarc: [
        { key: 'reject', label: 'reject', count: 0, emails: 0, selected: false },
        { key: 'none', label: 'none', count: 1, emails: 2, selected: false },
      ],
      reporter: [{ key: 'r1', label: 'r1', count: 4, emails: 8, selected: false }],
    });
  });

  it('a long top facet after a search: values with emails first by emails, then the rest in name order; an option no row shown has is kept and frozen', () => {
    const n = 5000;
    const dict = Array.from({ length: n }, (_, c) => `d${(c * 7919) % n}.example`);
    const f = [field(dict)];
    const total = new Uint32Array(n).fill(1);
    const rows = new Uint32Array(n);
    const emails = new Float64Array(n);
    for (const c of [17, 4000, 9, 2500]) {
      rows[c] = 1;
      emails[c] = c === 9 ? 3 : 5;
    }
    rows[33] = 2; // rows without emails: counted, not sorted first
    const first = facetOptions(['dkimDomain'], f, [total], [rows], [emails], { dkimDomain: [dict[100]!] }).dkimDomain;
    const collator = new Intl.Collator(undefined);
    const rest = Array.from({ length: n }, (_, c) => c).filter((c) => emails[c] === 0).sort((a, b) => collator.compare(dict[a]!, dict[b]!));
    const want = [...[17, 2500, 4000].sort((a, b) => collator.compare(dict[a]!, dict[b]!)), 9, ...rest].map((c) => dict[c]!);
    assert.deepEqual(first.map((o) => o.key), want);
    const byKey = (opts: typeof first, c: number) => opts.find((o) => o.key === dict[c])!;
    assert.deepEqual(byKey(first, 33), { key: dict[33], label: dict[33], count: 2, emails: 0, selected: false });
    assert.equal(byKey(first, 100).selected, true);
    const again = facetOptions(['dkimDomain'], f, [total], [rows], [emails], {}).dkimDomain;
    assert.equal(byKey(again, 1), byKey(first, 1), 'the same option for a value no row shown has');
    assert.ok(Object.isFrozen(byKey(again, 1)));
    assert.deepEqual(byKey(again, 1), { key: dict[1], label: dict[1], count: 0, emails: 0, selected: false });
    assert.equal(byKey(again, 100).selected, false);
    assert.notEqual(byKey(again, 17), byKey(first, 17));
  });

  it('the order is the collator\'s among equal counts, as a comparator calling it gives, also as the dictionary grows', () => {
    const collator = new Intl.Collator(undefined);
    const word = fc.constantFrom('a', 'A', 'b', 'é', 'e\u0301', 'e', 'x\u00ady', 'xy', '', '(none)', 'Zulu', 'zulu', '10', '9', 'ä');
    fc.assert(
      fc.property(fc.uniqueArray(word, { minLength: 1 }), fc.array(fc.nat(3), { minLength: 15, maxLength: 15 }), fc.nat(14), (all, counts, cut) => {
        // The same dictionary array, first shorter, then grown: the cached order must follow it.
        const dict = all.slice(0, Math.max(1, Math.min(cut, all.length)));
        for (const grown of [false, true]) {
          if (grown) dict.push(...all.slice(dict.length));
          const n = dict.length;
          const total = Uint32Array.from({ length: n }, (_, c) => 1 + counts[c]!);
          const rows = Uint32Array.from({ length: n }, (_, c) => counts[c]!);
          const emails = Float64Array.from({ length: n }, (_, c) => counts[c]! * 2);
          for (const id of ['source', 'spf'] as const) {
            const got = facetOptions([id], [field(dict)], [total], [rows], [emails], {})[id].map((o) => o.key);
            const last = (k: string): number => (k === '' || k === '(none)' ? 1 : 0);
            const want = Array.from({ length: n }, (_, c) => c)
              .sort((a, b) => (id === 'source' ? emails[b]! - emails[a]! || collator.compare(dict[a]!, dict[b]!) : last(dict[a]!) - last(dict[b]!) || total[b]! - total[a]! || collator.compare(dict[a]!, dict[b]!)))
              .map((c) => dict[c]!);
            assert.deepEqual(got, want);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
