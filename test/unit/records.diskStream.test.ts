// A period served from the disk cache reaches its views as it is read, a batch at a time, as a
// fetch's rows do (src/records/diskCache.ts `onRows`, src/records/recordStore.ts): a million rows
// took ~7 s to read before the first of them could be shown.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawOf } from '../../src/api/rawRow';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord, FetchResult } from '../../src/api/types';
import { DiskCache } from '../../src/records/diskCache';
import { RecordStore } from '../../src/records/recordStore';
import { ORGANIZATIONS, generateDay } from '../server/data';
import { FakeApi, deferred, now, oct, octDay, scope } from './recordStoreHelpers';

const ACME = ORGANIZATIONS.find((o) => o.id === 'acme')!;
function result(n: number): FetchResult {
  const records: DmarcRecord[] = [];
  for (let day = Date.parse('2025-06-01') / 86_400_000; records.length < n; day++) {
    for (const w of generateDay(ACME, day, 1, Math.min(1500, n - records.length))) {
      const r = normaliseRow(JSON.parse(JSON.stringify(w)));
      if (!('record' in r)) throw new Error(r.reason);
      records.push(r.record);
    }
  }
  return { records, warnings: [], rejected: { count: 0, samples: [] } };
}
/** A record as every reader sees it: its fields and its row. */
const seen = (r: DmarcRecord) => JSON.stringify([{ ...r, raw: undefined, shape: undefined }, rawOf(r)]);

describe('records: a disk-cached period streams to its views as it is read', () => {
  let dir: string;
  let logs: string[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmarc-disk-stream-'));
    logs = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('hands the rows on in batches, in order, none lost or twice, each awaited; the result is the same rows', async () => {
    const cache = new DiskCache(dir, { log: (l) => logs.push(l) });
    const sent = result(4500);
    await cache.write('acc', 'org', 0, 10, sent, 1);
    const batches: { offset: number; rows: DmarcRecord[] }[] = [];
    const held = deferred();
    let released = false;
    const reading = cache.read('acc', 'org', 0, 10, (rows, offset) => {
      batches.push({ offset, rows });
      // The first batch holds the reading until released (a panel whose webview is behind).
      if (batches.length === 1) return held.promise.then(() => (released = true));
      assert.ok(released, 'no batch before the first one was let go');
      return undefined;
    });
    // The first batch comes (however busy the machine), then nothing more while it is held.
    for (let t = 0; batches.length === 0 && t < 200; t++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(batches.length, 1, 'the reading waits');
    held.resolve();
    const got = await reading;
    assert.deepEqual(batches.map((b) => [b.offset, b.rows.length]), [[0, 2000], [2000, 2000], [4000, 500]]);
    const streamed = batches.flatMap((b) => b.rows);
    assert.deepEqual(streamed.map(seen), sent.records.map(seen));
    assert.deepEqual(got!.result.records.map(seen), streamed.map(seen));
    assert.deepEqual(logs, []);
  });

  it('a listener that throws is logged and the file still read; a file cut short hands on only whole batches before it is a miss', async () => {
    const cache = new DiskCache(dir, { log: (l) => logs.push(l) });
    await cache.write('acc', 'org', 0, 10, result(4500), 1);
    const got = await cache.read('acc', 'org', 0, 10, () => {
      throw new Error('listener broke');
    });
    assert.equal(got?.result.records.length, 4500);
    assert.deepEqual(logs, Array(3).fill('disk cache: a listener of the rows read failed: Error: listener broke'));
    // Cut after 3,000 rows: the first batch was handed on, the 1,000 after it never are.
    const file = join(cache.dir, readdirSync(cache.dir)[0]!);
    writeFileSync(file, readFileSync(file, 'utf8').split('\n').slice(0, 3001).join('\n') + '\n');
    const offsets: number[] = [];
    assert.equal(await cache.read('acc', 'org', 0, 10, (rows, offset) => void offsets.push(offset, rows.length)), undefined);
    assert.deepEqual(offsets, [0, 2000]);
  });

  it('the store: a disk hit streams to onRows before get resolves; a damaged file is fetched again, starting over at offset 0', async () => {
    const api = new FakeApi();
    const newStore = () => new RecordStore({ fetch: api.fetch, disk: new DiskCache(dir), now: () => now });
    const first = newStore();
    const cached = await first.get(scope, oct.start, oct.end);
    await first.flush();
    // A day inside the cached month: the month's rows stream (the caller filters them).
    const events: string[] = [];
    const streamed: DmarcRecord[] = [];
    const day = octDay(12);
    const got = await newStore().get(scope, day.start, day.end, {
      onRows: (rows, offset) => {
        events.push(`rows ${offset}+${rows.length}`);
        streamed.push(...rows);
        return undefined;
      },
    }).then((r) => (events.push('resolved'), r));
    assert.equal(got.fromCache, 'disk');
    assert.equal(api.calls.length, 1, 'no fetch');
    assert.deepEqual(events, [`rows 0+${cached.records.length}`, 'resolved']);
    const inDay = streamed.filter((r) => r.dateMs >= day.start.getTime() && r.dateMs <= day.end.getTime());
    assert.deepEqual(inDay.map(seen).sort(), got.records.map(seen).sort());
    assert.ok(got.records.length > 0);
    // A file of 4,500 rows for the month, cut after 3,000: its first batch is handed on, then the
    // file is a miss and the fetch's rows start over at offset 0.
    const cache = new DiskCache(dir);
    await cache.write(scope.accountId, scope.organizationId, oct.start, oct.end, result(4500), 1);
    const file = join(cache.dir, cache.fileName(scope.accountId, scope.organizationId, +oct.start, +oct.end));
    writeFileSync(file, readFileSync(file, 'utf8').split('\n').slice(0, 3001).join('\n') + '\n');
    const streaming = new RecordStore({
      fetch: async (sc, st, en, signal, onRows) => {
        const r = await api.fetch(sc, st, en, signal);
        await onRows?.(r.records, 0);
        return r;
      },
      disk: new DiskCache(dir),
      now: () => now,
    });
    const seq: string[] = [];
    const again = await streaming.get(scope, oct.start, oct.end, { onRows: (rows, offset) => void seq.push(`${offset}+${rows.length}`) });
    assert.equal(again.fromCache, 'network');
    assert.equal(api.calls.length, 2);
    assert.deepEqual(seq, ['0+2000', `0+${cached.records.length}`]);
    assert.deepEqual(again.records.map(seen), cached.records.map(seen));
    await streaming.flush();
  });
});
