// Small row-value helpers of the webview's data layer, exactly: whether a row has a value in a
// single- or multi-valued field (media/webview/data/groups.ts), and a DKIM signature's text
// (media/webview/data/store.ts).
import { strict as assert } from 'node:assert';
import { rowHas } from '../../media/webview/data/groups';
import { signatureText } from '../../media/webview/data/store';
import type { FieldIndex } from '../../media/webview/data/fieldTypes';

describe('webview row values', () => {
  it('a single-valued field: the row’s own code only', () => {
    const f: FieldIndex = { kind: 'single', dict: ['a', 'b'], codes: Uint32Array.from([1, 0, 2]) };
    assert.deepEqual([0, 1, 2].map((c) => rowHas(f, 0, c)), [false, true, false]);
    assert.deepEqual([0, 1, 2].map((c) => rowHas(f, 2, c)), [false, false, true]);
  });

  it('a multi-valued field: any of the row’s codes; a row with none has the "no value" code (dict.length)', () => {
    // Row 0: codes 0 and 2; row 1: none; row 2: code 1.
    const f: FieldIndex = { kind: 'multi', dict: ['a', 'b', 'c'], start: Uint32Array.from([0, 2, 2, 3]), codes: Uint32Array.from([0, 2, 1]) };
    assert.deepEqual([0, 1, 2, 3].map((c) => rowHas(f, 0, c)), [true, false, true, false]);
    assert.deepEqual([0, 1, 2, 3].map((c) => rowHas(f, 1, c)), [false, false, false, true]);
    assert.deepEqual([0, 1, 2, 3].map((c) => rowHas(f, 2, c)), [false, true, false, false]);
  });

  it('a DKIM signature as the table and the search show it', () => {
    assert.equal(signatureText({ domain: 'mcsv.net', selector: 'k2', result: 'pass' }), 'd=mcsv.net s=k2 pass');
    assert.equal(signatureText({ domain: '', selector: '', result: '' }), 'd=(none) s=(none) (empty)');
  });
});
