// Field names from untrusted state (media/webview/data/fields.ts): which are fields, and which hold
// several values per row; and the multi-valued fields as the chunks' lists give them.
import { strict as assert } from 'node:assert';
import { GROUP_FIELDS } from '../../src/shared/columns';
import fc from 'fast-check';
import { Fields, isFieldId, isMultiField, NO_VALUE, type FieldId } from '../../media/webview/data/fields';
import { RowStore } from '../../media/webview/data/store';
import { appendTuples } from '../../media/webview/data/tuples';

describe('webview field names', () => {
  it('every group field and "dkim" are fields; extra fields need a name of 1 to 200 characters', () => {
    for (const f of GROUP_FIELDS) assert.ok(isFieldId(f), f);
    assert.ok(isFieldId('dkim'));
    assert.ok(isFieldId('extra:a'));
    assert.ok(isFieldId(`extra:${'n'.repeat(200)}`));
    for (const bad of ['extra:', `extra:${'n'.repeat(201)}`, 'Source', 'nope', '', 5, null, undefined, ['source']]) {
      assert.equal(isFieldId(bad), false, JSON.stringify(bad));
    }
  });

  it('rDNS and the DKIM fields hold several values per row; the rest one', () => {
    const multi = GROUP_FIELDS.filter((f) => isMultiField(f));
    assert.deepEqual([...multi].sort(), ['dkimDomain', 'dkimPair', 'dkimSelector', 'rdns']);
    assert.ok(isMultiField('dkim'));
    assert.equal(isMultiField('extra:x'), false);
    assert.equal(NO_VALUE, '(none)');
  });
});

describe('webview multi-valued fields, read from the chunks', () => {
  // Signatures and rDNS lists with repeats, empties, hostile and look-alike values.
  const value = fc.constantFrom('', 'pass', 'fail', 'a.example', 'A.example', 'b.example', '__proto__', '\u202eevil', 'x'.repeat(300), 's1', 's2', '\ud800');
  const sig = fc.tuple(value, value, value);
  const tuple = fc.tuple(fc.array(value, { maxLength: 3 }), fc.array(sig, { maxLength: 4 })).map(([rdns, sigs]) => [
    'src', 'rep', 'a.example', 'rp', '', '192.0.2.1', 'US', rdns, 1, 'authorized', '2026-11-16T17:20:00Z', 'none', 'pass', 'fail', 'pass', sigs, 'no', [],
  ]);
  const expected: Record<string, (s: RowStore, i: number) => string[]> = {
    rdns: (s, i) => s.rdns(i),
    dkim: (s, i) => s.dkims(i).map((d) => d.result),
    dkimDomain: (s, i) => s.dkims(i).map((d) => d.domain),
    dkimSelector: (s, i) => s.dkims(i).map((d) => d.selector),
  };

  it('each row has its distinct values in order (NO_VALUE when none), built all at once or as chunks arrive', () => {
    fc.assert(
      fc.property(fc.array(tuple, { maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }), fc.boolean(), (tuples, sizes, early) => {
        const store = new RowStore();
        const fields = new Fields(store);
        let at = 0;
        for (let k = 0; at < tuples.length; k++) {
          const n = sizes[k % sizes.length]!;
          appendTuples(store, tuples.slice(at, at + n));
          at += n;
          // Built while rows arrive (extended chunk by chunk), or only at the end.
          if (early) for (const id of Object.keys(expected)) fields.get(id as FieldId);
        }
        for (const [id, of] of Object.entries(expected)) {
          const f = fields.get(id as FieldId);
          assert.equal(f.kind, 'multi');
          if (f.kind !== 'multi') return;
          for (let i = 0; i < store.length; i++) {
            const want = [...new Set(of(store, i))];
            const got: string[] = Array.from(f.codes.subarray(f.start[i]!, f.start[i + 1]!), (c: number) => f.dict[c]!);
            assert.deepStrictEqual(got, want.length ? want : [NO_VALUE], `${id} of row ${i}`);
          }
          assert.equal(new Set(f.dict).size, f.dict.length, `${id}: each value once in the dictionary`);
        }
      }),
      { numRuns: 200 },
    );
  });
});
