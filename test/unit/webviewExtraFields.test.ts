// Issue 43 (9): Group by offers an extra field only when its values are short texts that repeat.
import { strict as assert } from 'node:assert';
import { groupableExtras } from '../../media/webview/data/extraFields';
import { RecordsModel } from '../../media/webview/data/query';
import { appendTuples } from '../../media/webview/data/tuples';
import { tuple } from './webviewModelHelpers';

function modelWith(extras: (i: number) => string[], n = 300): RecordsModel {
  const m = new RecordsModel();
  const rows = Array.from({ length: n }, (_, i) => tuple({ visibleFrom: i % 2 ? 'example.com' : 'Example.org', extras: extras(i) }));
  appendTuples(m, rows, rows.length);
  return m;
}

describe('webview: which extra fields Group by offers', () => {
  it('a report id that repeats, a short code: offered', () => {
    const m = modelWith((i) => ['reportId', `r-${i % 40}`, 'policy', i % 3 ? 'reject' : 'none']);
    assert.deepEqual(groupableExtras(m.store, ['policy', 'reportId']), ['policy', 'reportId']);
  });

  it('a whole JSON object per row (a report file\u2019s row, identifiers, auth_results): not offered', () => {
    const m = modelWith((i) => ['row', JSON.stringify({ source_ip: '192.0.2.1', count: i % 5 }), 'auth_results', `[{"dkim":${i % 2}}]`]);
    assert.deepEqual(groupableExtras(m.store, ['auth_results', 'row']), []);
  });

  it('from, always Header From again (any case): not offered; once it differs somewhere, offered', () => {
    const same = modelWith((i) => ['from', i % 2 ? 'EXAMPLE.com' : 'example.org']);
    assert.deepEqual(groupableExtras(same.store, ['from']), []);
    const differs = modelWith((i) => ['from', i % 7 ? (i % 2 ? 'example.com' : 'example.org') : 'other.example']);
    assert.deepEqual(groupableExtras(differs.store, ['from']), ['from']);
  });

  it('values that never repeat (one group a row), long texts and fields no row has: not offered', () => {
    const m = modelWith((i) => ['uid', `u-${i}`, 'note', 'x'.repeat(150 + (i % 2))]);
    assert.deepEqual(groupableExtras(m.store, ['uid', 'note', 'absent']), []);
  });

  it('judges a large store on rows spread over it: a field only the last rows carry is still seen', () => {
    const m = modelWith((i) => (i >= 15_000 ? ['late', `v-${i % 3}`] : []), 20_000);
    assert.deepEqual(groupableExtras(m.store, ['late']), ['late']);
  });
});
