// Field names from untrusted state (media/webview/data/fields.ts): which are fields, and which hold
// several values per row.
import { strict as assert } from 'node:assert';
import { GROUP_FIELDS } from '../../src/shared/columns';
import { isFieldId, isMultiField, NO_VALUE } from '../../media/webview/data/fields';

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
