// The local API server's report-folder mode: rows read from report files, served over loopback,
// come back through the real API client as the reader made them.
import { strict as assert } from 'node:assert';
import { fetchDmarcRecords } from '../../src/api';
import { startApiServer, type ApiServer } from '../server/server';
import { loadReportFolder, type ReportFolder } from '../server/reportFolder';
import { FIXTURES, fixture, readOne } from './importHelpers';

const KEY = 'reports-key';

describe('import: the local API server serves a folder of report files', () => {
  let folder: ReportFolder;
  let server: ApiServer;

  before(async () => {
    folder = await loadReportFolder(FIXTURES);
    server = await startApiServer({ reportRows: folder.rowsByDomain, keys: { [KEY]: [...folder.rowsByDomain.keys()] } });
  });
  after(() => server.close());

  it('reads every fixture, grouped by policy domain', () => {
    assert.deepEqual(folder.errors, []);
    assert.equal(folder.files, 6);
    assert.equal(folder.reports, 6);
    assert.deepEqual([...folder.rowsByDomain.keys()], ['example.com']);
  });

  it('serves the rows of a date range; the client gets what the reader made', async () => {
    const query = { baseUrl: server.url, apiKey: KEY, organizationId: 'example.com', startDate: '2025-06-10T00:00:00Z', endDate: '2025-06-10T23:59:59Z' };
    const got = await fetchDmarcRecords(query, { retries: 0 });
    const expected = (await readOne('google-style.xml', fixture('google-style.xml'))).records;
    assert.deepEqual(got.warnings, []);
    assert.equal(got.rejected.count, 0);
    const fromGoogle = got.records.filter((r) => r.reportId === '4821739465012378451');
    // Same fields and values; `raw` differs by nature (the wire row here, the XML record there).
    const strip = (r: object) => JSON.parse(JSON.stringify({ ...r, raw: undefined, shape: undefined }));
    assert.deepEqual(fromGoogle.map(strip), expected.map(strip));
    assert.ok(got.records.every((r) => r.date.startsWith('2025-06-10')));
    const all = [...folder.rowsByDomain.get('example.com')!].filter((r) => r.date.startsWith('2025-06-10'));
    assert.equal(got.records.reduce((s, r) => s + r.emails, 0), all.reduce((s, r) => s + r.emails, 0));
  });

  it('an organization without report rows gets an empty list; a key without it gets 403', async () => {
    const other = await startApiServer({ reportRows: folder.rowsByDomain, keys: { [KEY]: ['nothing.example'] } });
    try {
      const q = { baseUrl: other.url, apiKey: KEY, startDate: '2025-06-01T00:00:00Z', endDate: '2025-06-30T00:00:00Z' };
      assert.equal((await fetchDmarcRecords({ ...q, organizationId: 'nothing.example' }, { retries: 0 })).records.length, 0);
      await assert.rejects(fetchDmarcRecords({ ...q, organizationId: 'example.com' }, { retries: 0 }), { kind: 'forbidden' });
    } finally {
      await other.close();
    }
  });
});
