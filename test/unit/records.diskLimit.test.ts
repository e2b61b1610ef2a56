// The disk cache's size limit (src/records/diskCache.ts, the `dmarc.diskCacheMegabytes` setting):
// the least recently used files go first, reading a file counts as using it, a range larger than
// the whole limit is never written (nor left half-written), and a limit of 0 keeps nothing.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord, FetchResult } from '../../src/api/types';
import { DiskCache } from '../../src/records/diskCache';
import { ORGANIZATIONS, generateDay } from '../server/data';

const ACME = ORGANIZATIONS.find((o) => o.id === 'acme')!;
function records(n: number): DmarcRecord[] {
  const out: DmarcRecord[] = [];
  for (let day = Date.parse('2025-06-01') / 86_400_000; out.length < n; day++) {
    for (const w of generateDay(ACME, day, 1)) {
      const r = normaliseRow(JSON.parse(JSON.stringify(w)));
      if (!('record' in r)) throw new Error(r.reason);
      out.push(r.record);
      if (out.length === n) break;
    }
  }
  return out;
}
const result = (n: number): FetchResult => ({ records: records(n), warnings: [], rejected: { count: 0, samples: [] } });

describe('records: the disk cache keeps under its size limit', () => {
  let base: string;
  let logs: string[];
  let limit: number;
  let cache: DiskCache;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'dmarc-disk-limit-'));
    logs = [];
    limit = 1 << 30;
    cache = new DiskCache(base, { log: (l) => logs.push(l), maxBytes: () => limit });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const name = (s: number, org = 'org') => cache.fileName('acc', org, s, s + 10);
  const size = (s: number) => statSync(join(cache.dir, name(s))).size;
  /** Sets a file's last use `ago` seconds back (modification time: what the limit orders by). */
  const usedAgo = (s: number, ago: number, org = 'org') => {
    const t = new Date(Date.now() - ago * 1000);
    utimesSync(join(cache.dir, name(s, org)), t, t);
  };
  const left = () => readdirSync(cache.dir).sort();

  it('removes the least recently used files to make room; reading a file counts as using it', async () => {
    const ten = result(10);
    await cache.write('acc', 'org', 0, 10, ten, 1);
    const one = size(0);
    await cache.write('acc', 'org', 100, 110, ten, 1);
    await cache.write('acc', 'other', 200, 210, ten, 1);
    usedAgo(0, 300);
    usedAgo(100, 200);
    usedAgo(200, 100_000, 'other');
    // Room for three: the oldest, range 0, is read (used now); then a fourth comes.
    limit = 3 * one + 10;
    assert.equal((await cache.read('acc', 'org', 0, 10))?.result.records.length, 10);
    await cache.write('acc', 'org', 300, 310, ten, 1);
    // The other organization's file was the least recently used (100,000 s ago), then range 100.
    assert.deepEqual(left(), [name(0), name(100), name(300)].sort());
    assert.deepEqual(logs, [`disk cache: removed ${name(200, 'other')} (least recently used) to stay under 0 MB`]);
    await cache.write('acc', 'org', 400, 410, ten, 1);
    assert.deepEqual(left(), [name(0), name(300), name(400)].sort(), 'then range 100, used before range 0 was read');
  });

  it('a lowered limit applies at the next trim: the most recently used files stay', async () => {
    for (const [s, ago] of [[0, 30], [100, 10], [200, 20]] as const) {
      await cache.write('acc', 'org', s, s + 10, result(5), 1);
      usedAgo(s, ago);
    }
    limit = size(100) + size(200);
    await cache.trim();
    assert.deepEqual(left(), [name(100), name(200)].sort());
    limit = 0;
    await cache.trim();
    assert.deepEqual(left(), []);
  });

  it('never writes a range larger than the whole limit, nor leaves part of it; the ranges already there stay', async () => {
    await cache.write('acc', 'org', 0, 10, result(3), 1);
    limit = size(0) + 1;
    // Larger than the limit in its last piece.
    await cache.write('acc', 'org', 100, 110, result(20), 1);
    // And in its first megabyte: the write stops there (about 1 KB a record with its row).
    limit = 1 << 20;
    await cache.write('acc', 'org', 200, 210, result(3000), 1);
    assert.deepEqual(left(), [name(0)], 'no file and no temporary file of either');
    assert.equal(logs.length, 2);
    assert.match(logs[0]!, /^disk cache: the write of 20 rows is larger than the disk cache's limit \(0 MB\)$/);
    assert.match(logs[1]!, /^disk cache: the write of 3000 rows is larger than the disk cache's limit \(1 MB\)$/);
    assert.equal((await cache.read('acc', 'org', 0, 10))?.result.records.length, 3);
    // The same range again, now too large: its earlier copy is older than what was not written, and goes too.
    limit = size(0) + 1;
    await cache.write('acc', 'org', 0, 10, result(20), 1);
    assert.deepEqual(left(), []);
  });

  it('a limit of 0 keeps nothing on disk (no directory made); files that are not its own are never counted or removed', async () => {
    limit = 0;
    await cache.write('acc', 'org', 0, 10, result(3), 1);
    assert.equal(existsSync(cache.dir), false);
    limit = 1 << 30;
    await cache.write('acc', 'org', 0, 10, result(3), 1);
    writeFileSync(join(cache.dir, 'notes.txt'), 'x'.repeat(100_000));
    // Room for one range (and a few bytes more: the second's header is longer).
    limit = size(0) + 100;
    await cache.write('acc', 'org', 100, 110, result(3), 1);
    assert.deepEqual(left(), [name(100), 'notes.txt'].sort());
    assert.deepEqual(await cache.usage(), { files: 1, bytes: size(100) }, 'Clear Disk Cache counts its own files only');
  });
});
