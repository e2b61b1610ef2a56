// The on-disk records cache (src/records/diskCache.ts) on its own: what it reads back, which
// damaged files it refuses (and removes, saying why), and which cached range it picks.
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawOf } from '../../src/api/rawRow';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord, FetchResult } from '../../src/api/types';
import { DiskCache, restAfter } from '../../src/records/diskCache';
import { asStored } from './recordStoreHelpers';
import { ORGANIZATIONS, generateDay } from '../server/data';

const ACME = ORGANIZATIONS.find((o) => o.id === 'acme')!;
const rows: DmarcRecord[] = generateDay(ACME, Date.parse('2025-06-10') / 86_400_000, 1).slice(0, 3).map((w) => {
  const r = normaliseRow(JSON.parse(JSON.stringify(w)));
  if (!('record' in r)) throw new Error(r.reason);
  return r.record;
});
const result: FetchResult = {
  records: rows,
  warnings: [{ field: 'category', value: 'spoofed', count: 1, firstIndex: 0, message: 'm' }],
  rejected: { count: 2, samples: [{ index: 4, reason: 'r' }] },
};

describe('records: the disk cache on its own', () => {
  let base: string;
  let cache: DiskCache;
  let logs: string[];
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'dmarc-disk-'));
    logs = [];
    cache = new DiskCache(base, { log: (l) => logs.push(l) });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const file = (s: number, e: number) => join(cache.dir, cache.fileName('acc', 'org', s, e));
  /** Rewrites the stored file of [s, e]: its header object and its record lines. */
  function damage(s: number, e: number, edit: (header: Record<string, unknown>, lines: string[]) => unknown): void {
    const [head, ...lines] = readFileSync(file(s, e), 'utf8').split('\n');
    const header = JSON.parse(head!) as Record<string, unknown>;
    const out = edit(header, lines);
    writeFileSync(file(s, e), `${JSON.stringify(out === undefined ? header : out)}\n${lines.join('\n')}`);
  }

  it('reads back exactly what it stored, blank lines ignored', async () => {
    await cache.write('acc', 'org', 0, 100, result, 1234);
    const got = await cache.read('acc', 'org', 0, 100);
    assert.deepEqual(asStored(got), asStored({ start: 0, end: 100, fetchedAt: 1234, result }));
    // Rows of documented fields only come back holding their shape, not the parsed row (src/api/rawRow.ts).
    assert.ok(got!.result.records.every((r) => r.raw === undefined && r.shape !== undefined));
    // Each line after the header is a row as the API sent it, nothing more.
    assert.deepEqual(readFileSync(file(0, 100), 'utf8').split('\n').slice(1, -1), rows.map((r) => JSON.stringify(rawOf(r))));
    writeFileSync(file(0, 100), readFileSync(file(0, 100), 'utf8').replace('\n', '\n\n') + '\n\n');
    assert.equal((await cache.read('acc', 'org', 0, 100))?.result.records.length, 3);
    assert.equal(await cache.read('acc', 'org', 0, 101), undefined, 'another range');
    assert.equal(await cache.read('acc', 'other', 0, 100), undefined, 'another organization');
  });

  it('rests after each megabyte written, as long as it was told to: a large write holds the host a little at a time', async () => {
    // ~3.5 MB of rows: three megabytes make a rest each, the rest goes at the end.
    const many = Array.from({ length: Math.ceil((3.5 * 1048576) / (JSON.stringify(rawOf(rows[0]!)).length + 1)) }, (_, i) => rows[i % 3]!);
    const rests: number[] = [];
    let resting = false;
    let linesWhileResting = -1;
    const paced = new DiskCache(base, {
      rest: async (ms) => {
        rests.push(ms);
        resting = true;
        // Nothing more is made while it rests: the file holds no more lines after it than before.
        const tmp = readdirSync(paced.dir).find((f) => f.endsWith('.tmp'))!;
        const before = readFileSync(join(paced.dir, tmp), 'utf8').split('\n').length;
        await new Promise((r) => setTimeout(r, 20));
        linesWhileResting = readFileSync(join(paced.dir, tmp), 'utf8').split('\n').length - before;
        resting = false;
      },
    });
    await paced.write('acc', 'org', 0, 100, { ...result, records: many }, 1);
    assert.equal(resting, false);
    assert.equal(rests.length, 3);
    assert.ok(rests.every((ms) => Number.isFinite(ms) && ms >= 0), rests.join());
    assert.equal(linesWhileResting, 0);
    assert.equal((await paced.read('acc', 'org', 0, 100))?.result.records.length, many.length);
    // Told to hurry (the files are about to be cleared): rests that would never end do not hold it.
    const stuck = new DiskCache(base, { rest: () => new Promise<void>(() => undefined) });
    await stuck.write('acc', 'org', 0, 200, { ...result, records: many }, 1, undefined, Promise.resolve());
    assert.equal((await stuck.read('acc', 'org', 0, 200))?.result.records.length, many.length);
    // The default rest: three times the work, at most a second.
    for (const [work, least, most] of [[0, 0, 15], [10, 28, 200], [5_000, 990, 1_500]] as const) {
      const t0 = performance.now();
      await restAfter(work);
      const took = performance.now() - t0;
      assert.ok(took >= least && took <= most, `rest after ${work} ms of work: ${took} ms`);
    }
  });

  const headerCases: [string, (h: Record<string, unknown>) => unknown, string][] = [
    ['another format', (h) => void (h.format = 'something-else'), 'not a records cache file'],
    ['an array', () => [], 'not a records cache file'],
    ['null', () => null, 'not a records cache file'],
    ['another version', (h) => void (h.version = 99), 'format version 99'],
    ['another account', (h) => void (h.accountId = 'x'), 'header does not match the file name'],
    ['another organization', (h) => void (h.organizationId = 'x'), 'header does not match the file name'],
    ['another start', (h) => void (h.start = 1), 'header does not match the file name'],
    ['another end', (h) => void (h.end = 99), 'header does not match the file name'],
    ['fetchedAt as text', (h) => void (h.fetchedAt = '1234'), 'malformed header'],
    ['count as text', (h) => void (h.count = '3'), 'malformed header'],
    ['warnings not a list', (h) => void (h.warnings = {}), 'malformed header'],
    ['rejected not an object', (h) => void (h.rejected = [2]), 'malformed header'],
    ['rejected.count as text', (h) => void (h.rejected = { count: '2', samples: [] }), 'malformed header'],
    ['rejected.samples not a list', (h) => void (h.rejected = { count: 2, samples: 'r' }), 'malformed header'],
    ['a count the lines do not have', (h) => void (h.count = 4), 'expected 4 records, found 3'],
  ];
  for (const [what, edit, reason] of headerCases) {
    it(`refuses and removes a file whose header has ${what} ("${reason}")`, async () => {
      await cache.write('acc', 'org', 0, 100, result, 1234);
      damage(0, 100, (h) => edit(h));
      assert.equal(await cache.read('acc', 'org', 0, 100), undefined);
      assert.deepEqual(logs, [`disk cache: discarding unreadable ${cache.fileName('acc', 'org', 0, 100)}: ${reason}`]);
      assert.deepEqual(readdirSync(cache.dir), [], 'removed');
    });
  }

  it('refuses a file with a row the client would not take, naming the line; and an empty file', async () => {
    const damaged: [string, (row: Record<string, unknown>) => unknown][] = [
      ['emails a string', (r) => ({ ...r, emails: '1' })],
      ['emails negative', (r) => ({ ...r, emails: -1 })],
      ['source a number', (r) => ({ ...r, source: 1 })],
      ['ipAddress missing', ({ ipAddress: _, ...r }) => r],
      ['date not a date', (r) => ({ ...r, date: 'yesterday' })],
      ['rdns a number', (r) => ({ ...r, rdns: 5 })],
      ['dkims an object', (r) => ({ ...r, dkims: {} })],
      ['a signature without a domain', (r) => ({ ...r, dkims: [{ selector: 's', result: 'pass' }] })],
      ['a list', () => [1, 2]],
      ['null', () => null],
      ['a string', () => 'row'],
    ];
    for (const [what, edit] of damaged) {
      await cache.write('acc', 'org', 0, 100, result, 1234);
      damage(0, 100, (_h, lines) => void (lines[1] = JSON.stringify(edit(JSON.parse(lines[1]!) as Record<string, unknown>))));
      logs.length = 0;
      assert.equal(await cache.read('acc', 'org', 0, 100), undefined, what);
      assert.deepEqual(logs, [`disk cache: discarding unreadable ${cache.fileName('acc', 'org', 0, 100)}: bad record at line 3`], what);
    }
    await cache.write('acc', 'org', 0, 100, result, 1234);
    writeFileSync(file(0, 100), '');
    logs.length = 0;
    assert.equal(await cache.read('acc', 'org', 0, 100), undefined);
    assert.deepEqual(logs, [`disk cache: discarding unreadable ${cache.fileName('acc', 'org', 0, 100)}: empty file`]);
  });

  it('its first write removes the files of the earlier format (version 1: each record stored twice)', async () => {
    const legacy = join(base, 'records-v1');
    mkdirSync(legacy);
    writeFileSync(join(legacy, cache.fileName('acc', 'org', 0, 100)), '{"format":"dmarc-explorer/records","version":1}\n');
    assert.equal(await cache.read('acc', 'org', 0, 100), undefined, 'never read');
    await cache.write('acc', 'org', 0, 100, result, 1234);
    assert.equal(existsSync(legacy), false);
    assert.deepEqual(readdirSync(base), ['records-v2']);
    // Also with a limit of 0 (nothing written), and by Clear Disk Cache.
    for (const how of ['a write under a limit of 0', 'clear'] as const) {
      mkdirSync(legacy);
      const other = new DiskCache(base, { maxBytes: () => 0 });
      if (how === 'clear') await other.clear();
      else await other.write('acc', 'org', 0, 100, result, 1234);
      assert.equal(existsSync(legacy), false, how);
    }
  });

  it('finds the narrowest readable cached range containing the one asked for', async () => {
    await cache.write('acc', 'org', 0, 1000, { ...result, records: rows.slice(0, 1) }, 1);
    await cache.write('acc', 'org', 2000, 2100, result, 1);
    await cache.write('acc', 'org', 10, 500, { ...result, records: rows.slice(0, 2) }, 2);
    assert.deepEqual(asStored((await cache.findCovering('acc', 'org', 20, 30))!.result.records), asStored(rows.slice(0, 2)), 'the narrower one');
    assert.equal((await cache.findCovering('acc', 'org', 5, 30))?.end, 1000, 'only the wide one contains 5..30');
    assert.equal(await cache.findCovering('acc', 'org', 900, 2050), undefined);
    assert.equal(await cache.findCovering('acc', 'other', 20, 30), undefined);
    damage(10, 500, (h) => void (h.count = 9));
    assert.equal((await cache.findCovering('acc', 'org', 20, 30))?.end, 1000, 'the narrow one is damaged: the next one');
  });

  it('storing a range removes the cached ranges inside it (bounds included), not those overlapping it', async () => {
    for (const [s, e] of [[10, 20], [0, 50], [50, 100], [40, 60], [99, 150]]) await cache.write('acc', 'org', s!, e!, result, 1);
    await cache.write('acc', 'other', 10, 20, result, 1);
    await cache.write('acc', 'org', 0, 100, result, 2);
    const left = readdirSync(cache.dir).sort();
    assert.deepEqual(left, [cache.fileName('acc', 'org', 0, 100), cache.fileName('acc', 'org', 99, 150), cache.fileName('acc', 'other', 10, 20)].sort());
  });
});
