import { strict as assert } from 'node:assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskCache } from '../../src/records/diskCache';
import { RecordStore } from '../../src/records/recordStore';
import { API_KEY, scope, otherOrg, now, last7, nov, oct, sep, octDay, FakeApi, expectRecords, asStored } from './recordStoreHelpers';
import { rawOf } from '../../src/api/rawRow';

describe('records: RecordStore + DiskCache', () => {
  let dir: string;
  let api: FakeApi;
  // Every store a test makes: its disk writes are awaited before the directory is removed (a
  // write still under way when rmSync walks the directory makes it fail with ENOTEMPTY).
  let stores: RecordStore[] = [];
  const track = (store: RecordStore) => (stores.push(store), store);
  const newStore = () => track(new RecordStore({ fetch: api.fetch, disk: new DiskCache(dir), now: () => now }));
  const files = () => {
    try {
      return readdirSync(join(dir, 'records-v2'));
    } catch {
      return [];
    }
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmarc-records-'));
    api = new FakeApi();
  });
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.flush()));
    stores = [];
    rmSync(dir, { recursive: true, force: true });
  });

  it('a closed range is read from disk by a new store, with raw rows intact', async () => {
    const s1 = newStore();
    const first = await s1.get(scope, oct.start, oct.end);
    await s1.flush();
    assert.equal(files().length, 1);

    const s2 = newStore();
    const again = await s2.get(scope, oct.start, oct.end);
    assert.equal(api.calls.length, 1);
    assert.equal(again.fromCache, 'disk');
    assert.equal(again.fetchedAt, first.fetchedAt);
    assert.deepEqual(asStored(again.records), asStored(first.records));
    assert.deepEqual(again.warnings, first.warnings);
    // raw is byte-for-byte the same JSON, odd characters included.
    assert.equal(JSON.stringify(again.records.map((r) => rawOf(r))), JSON.stringify(first.records.map((r) => rawOf(r))));
    // Then memory.
    assert.equal((await s2.get(scope, oct.start, oct.end)).fromCache, 'memory');
  });

  it('a day inside a month cached on disk is served from that file', async () => {
    const s1 = newStore();
    await s1.get(scope, oct.start, oct.end);
    await s1.flush();
    const s2 = newStore();
    const day = await s2.get(scope, octDay(12).start, octDay(12).end);
    assert.equal(api.calls.length, 1);
    assert.equal(day.fromCache, 'disk');
    assert.deepEqual(asStored(day.records), asStored(expectRecords(octDay(12).start, octDay(12).end)));
    // The whole month is now in memory.
    assert.ok(s2.peek(scope, oct.start, oct.end));
  });

  it('open ranges are kept in memory only', async () => {
    const s = newStore();
    await s.get(scope, nov.start, nov.end);
    await s.get(scope, last7.start, last7.end, { refresh: true });
    const today = nov.children![0]!;
    await s.get(scope, today.start, today.end, { refresh: true });
    // Within the settle window: ended, but reports may still arrive.
    const yesterday = nov.children![1]!;
    assert.equal(yesterday.closed, false);
    await s.get(scope, yesterday.start, yesterday.end, { refresh: true });
    await s.flush();
    assert.deepEqual(files(), []);
    const s2 = newStore();
    await s2.get(scope, nov.start, nov.end);
    assert.equal(api.calls.length, 5);
  });

  it('a refresh of a closed range skips the disk and overwrites it', async () => {
    const s1 = newStore();
    await s1.get(scope, oct.start, oct.end);
    await s1.flush();
    api.version = 1;
    const s2 = newStore();
    const r = await s2.get(scope, oct.start, oct.end, { refresh: true });
    assert.equal(r.fromCache, 'network');
    await s2.flush();
    const s3 = newStore();
    assert.deepEqual(asStored((await s3.get(scope, oct.start, oct.end)).records), asStored(expectRecords(oct.start, oct.end, 1)));
    assert.equal(api.calls.length, 2);
    assert.equal(files().length, 1);
  });

  it('a wider range written to disk replaces the narrower files inside it', async () => {
    const s1 = newStore();
    await s1.get(scope, octDay(3).start, octDay(3).end);
    await s1.flush();
    assert.equal(files().length, 1);
    api.version = 1;
    await s1.get(scope, oct.start, oct.end);
    await s1.flush();
    assert.equal(files().length, 1);
    const s2 = newStore();
    assert.deepEqual(asStored((await s2.get(scope, octDay(3).start, octDay(3).end)).records), asStored(expectRecords(octDay(3).start, octDay(3).end, 1)));
  });

  it('a month loaded from disk does not displace a day refreshed since', async () => {
    const s1 = newStore();
    await s1.get(scope, oct.start, oct.end);
    await s1.flush();
    let tick = 0;
    const s2 = track(new RecordStore({ fetch: api.fetch, disk: new DiskCache(dir), now: () => new Date(now.getTime() + 1000 * ++tick) }));
    api.version = 1;
    await s2.get(scope, octDay(3).start, octDay(3).end, { refresh: true });
    const other = await s2.get(scope, octDay(4).start, octDay(4).end);
    assert.equal(other.fromCache, 'disk');
    assert.deepEqual(asStored(other.records), asStored(expectRecords(octDay(4).start, octDay(4).end, 0)));
    const day3 = await s2.get(scope, octDay(3).start, octDay(3).end);
    assert.deepEqual(asStored(day3.records), asStored(expectRecords(octDay(3).start, octDay(3).end, 1)));
    assert.equal(api.calls.length, 2);
  });

  for (const [what, damage] of [
    ['garbage', () => 'not json at all\n{'],
    ['cut short', (text: string) => text.split('\n').slice(0, 20).join('\n') + '\n'],
    ['a damaged record line', (text: string) => text.replace(/"emails":\d+/, '"emails":"x"')],
    ['another format version', (text: string) => text.replace('"version":2', '"version":99')],
    ['the earlier format version', (text: string) => text.replace('"version":2', '"version":1')],
    ['empty', () => ''],
  ] as [string, (text: string) => string][]) {
    it(`a disk file that is ${what} is a miss, deleted, then rewritten`, async () => {
      const s1 = newStore();
      const first = await s1.get(scope, oct.start, oct.end);
      await s1.flush();
      const [name] = files();
      const path = join(dir, 'records-v2', name!);
      writeFileSync(path, damage(readFileSync(path, 'utf8')));
      const logs: string[] = [];
      const s2 = track(new RecordStore({ fetch: api.fetch, disk: new DiskCache(dir, { log: (l) => logs.push(l) }), now: () => now }));
      const got = await s2.get(scope, oct.start, oct.end);
      assert.equal(got.fromCache, 'network');
      assert.deepEqual(asStored(got.records), asStored(first.records));
      assert.equal(api.calls.length, 2);
      assert.match(logs.join('\n'), /discarding unreadable/);
      await s2.flush();
      const s3 = newStore();
      assert.equal((await s3.get(scope, oct.start, oct.end)).fromCache, 'disk');
    });
  }

  it('the API key appears in no file name or content', async () => {
    const s = newStore();
    await s.get(scope, oct.start, oct.end);
    await s.get(scope, sep.start, sep.end);
    await s.flush();
    assert.equal(files().length, 2);
    for (const name of files()) {
      assert.ok(!name.includes(API_KEY));
      assert.ok(!readFileSync(join(dir, 'records-v2', name), 'utf8').includes(API_KEY));
    }
    assert.ok(!files().some((n) => n.includes('.tmp')));
  });

  it('invalidate clears the disk files of that account or organization only', async () => {
    const s = newStore();
    await s.get(scope, oct.start, oct.end);
    await s.get(otherOrg, oct.start, oct.end);
    await s.get({ ...scope, accountId: 'acct-2' }, oct.start, oct.end);
    await s.flush();
    assert.equal(files().length, 3);
    await s.invalidate(scope.accountId, scope.organizationId);
    assert.equal(files().length, 2);
    await s.invalidate(scope.accountId);
    assert.equal(files().length, 1);
    const s2 = newStore();
    assert.equal((await s2.get({ ...scope, accountId: 'acct-2' }, oct.start, oct.end)).fromCache, 'disk');
    assert.equal((await s2.get(scope, oct.start, oct.end)).fromCache, 'network');
  });

  it('DiskCache.clear() with no account removes everything; reads of a missing dir are misses', async () => {
    const disk = new DiskCache(dir);
    assert.equal(await disk.read('a', 'o', 0, 1), undefined);
    assert.equal(await disk.findCovering('a', 'o', 0, 1), undefined);
    await disk.write('a', 'o', 0, 10, { records: [], warnings: [], rejected: { count: 0, samples: [] } }, 5);
    assert.deepEqual(await disk.read('a', 'o', 0, 10), { start: 0, end: 10, fetchedAt: 5, result: { records: [], warnings: [], rejected: { count: 0, samples: [] } } });
    assert.equal((await disk.findCovering('a', 'o', 2, 3))!.end, 10);
    assert.equal(await disk.findCovering('a', 'o', 2, 11), undefined);
    await disk.clear();
    assert.equal(await disk.read('a', 'o', 0, 10), undefined);
    await disk.clear('a');
  });

  it('a write that fails is logged, not thrown, and the data is still served', async () => {
    // A file where the cache directory should be makes every write fail.
    writeFileSync(join(dir, 'records-v2'), 'in the way');
    const logs: string[] = [];
    const s = track(new RecordStore({ fetch: api.fetch, disk: new DiskCache(dir), now: () => now, log: (l) => logs.push(l) }));
    const got = await s.get(scope, oct.start, oct.end);
    assert.ok(got.records.length > 0);
    await s.flush();
    assert.match(logs.join('\n'), /disk cache write failed/);
  });
  it('a settled range waits for the views to be quiet before it is written; invalidated meanwhile, it is not written', async () => {
    let quiet!: () => void;
    let waits = 0;
    let written = 0;
    const disk = new DiskCache(dir);
    const write = disk.write.bind(disk);
    disk.write = (...args) => {
      written++;
      return write(...args);
    };
    const s = track(new RecordStore({
      fetch: api.fetch, disk, now: () => now,
      quiet: () => {
        waits++;
        return new Promise<void>((r) => (quiet = r));
      },
    }));
    await s.get(scope, oct.start, oct.end);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(waits, 1);
    assert.equal(files().length, 0, 'nothing written while a view is busy');
    quiet();
    await s.flush();
    assert.equal(files().length, 1);

    // Waiting again, then the organization is forgotten: invalidate does not wait for the views, and nothing is written.
    await s.get(scope, sep.start, sep.end);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(waits, 2);
    const t0 = Date.now();
    await s.invalidate(scope.accountId, scope.organizationId);
    assert.ok(Date.now() - t0 < 1000);
    assert.equal(written, 1, 'the waiting write was dropped, not made and then cleared');
    assert.equal(files().length, 0);
  });
  it('a write under way pauses after each megabyte while the views are busy again', async () => {
    // 6,000 rows of a settled range: ~3 MB of lines, so the write has pieces to pause between.
    const template = (await api.fetch(scope, oct.start, oct.end)).records[0]!;
    const many = Array.from({ length: 6_000 }, (_, i) => ({ ...template, ipAddress: `10.0.${i >> 8}.${i & 255}`, dateMs: oct.start.getTime() + i * 1000, date: new Date(oct.start.getTime() + i * 1000).toISOString() }));
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s = track(new RecordStore({
      fetch: async () => ({ records: many, warnings: [], rejected: { count: 0, samples: [] } }),
      disk: new DiskCache(dir), now: () => now, writeDelayMs: 0,
      // Quiet when the write starts; busy again at its first pause, until released.
      quiet: () => (++calls === 1 ? Promise.resolve() : gate),
    }));
    await s.get(scope, oct.start, oct.end);
    for (const until = Date.now() + 5_000; calls < 2 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10));
    assert.equal(calls, 2, 'paused after its first megabyte');
    await new Promise((r) => setTimeout(r, 50));
    const done = () => files().filter((f) => f.endsWith('.ndjson'));
    try {
      assert.deepEqual(done(), [], 'not finished while the views are busy');
      assert.equal(files().length, 1, 'its temporary file');
    } finally {
      release();
    }
    await s.flush();
    assert.equal(done().length, 1);
    assert.equal(files().length, 1);
    assert.ok(calls >= 3, `asked again after each megabyte (${calls})`);
    const back = await newStore().get(scope, oct.start, oct.end);
    assert.equal(back.fromCache, 'disk');
    assert.equal(back.records.length, many.length);
  });
  it('a paused write is abandoned when its range leaves memory, and the next range is written', async () => {
    const template = (await api.fetch(scope, oct.start, oct.end)).records[0]!;
    const rowsOf = (start: Date) => Array.from({ length: 6_000 }, (_, i) => ({ ...template, ipAddress: `10.1.${i >> 8}.${i & 255}`, dateMs: start.getTime() + i * 1000, date: new Date(start.getTime() + i * 1000).toISOString() }));
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const logs: string[] = [];
    const s = track(new RecordStore({
      fetch: async (_sc, start) => ({ records: rowsOf(start), warnings: [], rejected: { count: 0, samples: [] } }),
      disk: new DiskCache(dir, { log: (l) => logs.push(l) }), now: () => now, writeDelayMs: 0, maxRecords: 8_000,
      log: (l) => logs.push(l),
      quiet: () => (++calls === 1 ? Promise.resolve() : gate),
    }));
    await s.get(scope, oct.start, oct.end);
    for (const until = Date.now() + 5_000; calls < 2 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10));
    assert.equal(calls, 2, 'the October write paused after its first megabyte');
    // September pushes October out of memory (12,000 rows over 8,000): its paused write gives up.
    await s.get(scope, sep.start, sep.end);
    for (const until = Date.now() + 5_000; !logs.some((l) => l.includes('abandoned')) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10));
    assert.ok(logs.includes('memory cache: dropped a range of 6000 rows (over 8000)'), logs.join('\n'));
    assert.ok(logs.includes('disk cache: the write of 6000 rows was abandoned'), logs.join('\n'));
    release();
    await s.flush();
    assert.equal(files().length, 1, 'only September, no temporary file left');
    assert.equal((await newStore().get(scope, sep.start, sep.end)).fromCache, 'disk');
    assert.equal((await newStore().get(scope, oct.start, oct.end)).fromCache, 'network');
  });
  it('a range asked for while an invalidate is under way (not awaited) is not read from the files it clears', async () => {
    const s = newStore();
    await s.get(scope, oct.start, oct.end);
    await s.flush();
    assert.equal(files().length, 1);
    const clearing = s.invalidate(scope.accountId);
    const again = await s.get(scope, oct.start, oct.end);
    await clearing;
    assert.equal(api.calls.length, 2, 'fetched again');
    assert.notEqual(again.fromCache, 'disk');
  });
});
