import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskCache } from '../../src/records/diskCache';
import { RecordStore } from '../../src/records/recordStore';
import { scope, otherOrg, now, oct, sep, FakeApi, expectRecords, deferred } from './recordStoreHelpers';

/** A view closing: `release` lets the ranges over the cap leave memory, except those still shown or still being written. */
describe('records: RecordStore.release (a view closed)', () => {
  let api: FakeApi;
  let logs: string[];
  beforeEach(() => {
    api = new FakeApi();
    logs = [];
  });

  it('drops the newest range too when it alone is over the cap and nothing shows it; it is fetched again when asked for', async () => {
    const store = new RecordStore({ fetch: api.fetch, now: () => now, maxRecords: 1, log: (l) => logs.push(l) });
    const rows = (await store.get(scope, oct.start, oct.end)).records.length;
    assert.ok(rows > 1);
    assert.ok(store.peek(scope, oct.start, oct.end), 'held while a view may show it (the newest stays over the cap)');
    const asked: unknown[][] = [];
    store.setViews((...range) => (asked.push(range), false));
    store.release();
    assert.deepEqual(asked, [[scope.accountId, scope.organizationId, oct.start.getTime(), oct.end.getTime()]], 'asked about the range held');
    assert.equal(store.peek(scope, oct.start, oct.end), undefined, 'dropped');
    assert.deepEqual(logs, [`memory cache: dropped a range of ${rows} rows (over 1)`]);
    assert.deepEqual((await store.get(scope, oct.start, oct.end)).records, expectRecords(oct.start, oct.end));
    assert.equal(api.calls.length, 2);
  });

  it('keeps what another view still shows, and anything under the cap', async () => {
    const store = new RecordStore({ fetch: api.fetch, now: () => now, maxRecords: 1, log: (l) => logs.push(l) });
    await store.get(scope, oct.start, oct.end);
    // A panel on a day inside October still shows part of it.
    const day = oct.start.getTime() + 3 * 86_400_000;
    store.setViews((accountId, orgId, start, end) => accountId === scope.accountId && orgId === scope.organizationId && start <= day && end >= day);
    store.release();
    assert.ok(store.peek(scope, oct.start, oct.end), 'kept: shown by another panel');
    // The same range of another organization is not this one.
    store.setViews((accountId, orgId) => accountId === otherOrg.accountId && orgId === otherOrg.organizationId);
    store.release();
    assert.equal(store.peek(scope, oct.start, oct.end), undefined);

    const roomy = new RecordStore({ fetch: api.fetch, now: () => now, log: (l) => logs.push(l) });
    await roomy.get(scope, oct.start, oct.end);
    await roomy.get(otherOrg, sep.start, sep.end);
    roomy.release();
    assert.ok(roomy.peek(scope, oct.start, oct.end) && roomy.peek(otherOrg, sep.start, sep.end), 'under the default cap: both stay');
  });

  describe('with the disk cache', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'dmarc-release-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('a range whose disk write is under way stays until the write is done, then leaves memory and is read from disk', async () => {
      const gate = deferred();
      let quietCalls = 0;
      const store = new RecordStore({
        fetch: api.fetch, disk: new DiskCache(dir), now: () => now, writeDelayMs: 0, maxRecords: 1, log: (l) => logs.push(l),
        quiet: () => (++quietCalls, gate.promise),
      });
      const got = await store.get(scope, oct.start, oct.end);
      for (const until = Date.now() + 5_000; quietCalls === 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 5));
      assert.ok(quietCalls > 0, 'the write waits for quiet views');
      store.release();
      assert.ok(store.peek(scope, oct.start, oct.end), 'kept while its write waits (dropping it would abandon the write)');
      assert.ok(!logs.some((l) => l.includes('abandoned') || l.includes('dropped')), logs.join('\n'));
      gate.resolve();
      await store.flush();
      assert.equal(store.peek(scope, oct.start, oct.end), undefined, 'dropped once written');
      assert.ok(logs.includes(`memory cache: dropped a range of ${got.records.length} rows (over 1)`), logs.join('\n'));
      const again = await store.get(scope, oct.start, oct.end);
      assert.equal(again.fromCache, 'disk');
      assert.deepEqual(again.records.map((r) => r.dateMs), got.records.map((r) => r.dateMs));
      assert.equal(api.calls.length, 1, 'no second request');
    });
  });
});
