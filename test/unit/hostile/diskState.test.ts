// Hostile stored state, the disk cache (issue 14): a real cached range's file truncated at seeded
// offsets, garbled, of another version or format, oversized, with records of the wrong shape, or
// replaced by a directory or a link to a file the cache does not own. A new RecordStore reading
// it never crashes: it serves the range exactly as cached, or drops the file and fetches again
// (silently; the log says why); a row it serves is whole enough for the panel to show. The key is
// in no log line.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseRecordsBody } from '../../../src/api/body';
import type { FetchResult } from '../../../src/api/types';
import { DiskCache } from '../../../src/records/diskCache';
import { RecordStore, type RecordScope } from '../../../src/records/recordStore';
import { toRowFields } from '../../../src/records/tuple';
import { leaksIn, lost, tried } from '../../hostile/figures';

const KEY = 'disk-state-key-77aa';
const scope: RecordScope = { accountId: 'acc-d', baseUrl: 'http://127.0.0.1:9', apiKey: KEY, organizationId: 'org-d' };
const now = new Date('2025-12-15T00:00:00Z');
const start = new Date('2025-10-01T00:00:00Z');
const end = new Date('2025-10-31T23:59:59.999Z');

async function fixture(): Promise<FetchResult> {
  const rows = Array.from({ length: 40 }, (_, i) => ({
    source: `src ${i} <b>x</b>`, reporter: 'r', visibleFrom: 'v.example', returnPath: 'rp', ipAddress: `192.0.2.${i}`,
    rdns: [`h${i}.example`], emails: i + 1, category: 'authorized', date: `2025-10-${String(1 + (i % 30)).padStart(2, '0')}T10:00:00Z`,
    dmarc: 'none', alignedSpf: 'pass', alignedDkim: 'fail', spf: 'pass', dkims: [{ selector: 's', domain: 'd', result: 'pass' }], extra: { constructor: { prototype: 1 } },
  }));
  return parseRecordsBody(JSON.stringify({ status: 'success', dmarcRecords: rows }), 'application/json');
}

/** Damages a cache file's text: every way a disk, a crash mid-write or another program could. */
function damages(): [string, (text: string) => string | Buffer][] {
  const cuts = fc.sample(fc.double({ min: 0, max: 1, noNaN: true }), { seed: 14, numRuns: 8 });
  const garbles = fc.sample(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), { seed: 15, numRuns: 8 });
  const header = (t: string, f: (h: Record<string, unknown>) => void): string => {
    const [first, ...rest] = t.split('\n');
    const h = JSON.parse(first!) as Record<string, unknown>;
    f(h);
    return [JSON.stringify(h), ...rest].join('\n');
  };
  const record = (t: string, f: (r: Record<string, unknown>) => void): string => {
    const lines = t.split('\n');
    const r = JSON.parse(lines[3]!) as Record<string, unknown>;
    f(r);
    lines[3] = JSON.stringify(r);
    return lines.join('\n');
  };
  return [
    ...cuts.map((c): [string, (t: string) => string] => [`cut at ${(c * 100).toFixed(1)}%`, (t) => t.slice(0, Math.floor(t.length * c))]),
    ...garbles.map(([at, b]): [string, (t: string) => Buffer] => [`byte at ${(at * 100).toFixed(1)}% set to ${b}`, (t) => {
      const buf = Buffer.from(t);
      buf[Math.min(buf.length - 1, Math.floor(buf.length * at))] = b;
      return buf;
    }]),
    ['empty', () => ''],
    ['binary junk', () => Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
    ['version 0', (t) => header(t, (h) => (h.version = 0))],
    ['version 3', (t) => header(t, (h) => (h.version = 3))],
    ['version 1 (the earlier format)', (t) => header(t, (h) => (h.version = 1))],
    ['version "2"', (t) => header(t, (h) => (h.version = '2'))],
    ['another format', (t) => header(t, (h) => (h.format = 'something/else'))],
    ['another account in the header', (t) => header(t, (h) => (h.accountId = 'acc-other'))],
    ['count one more', (t) => header(t, (h) => (h.count = Number(h.count) + 1))],
    ['count a string', (t) => header(t, (h) => (h.count = '40'))],
    ['warnings not a list', (t) => header(t, (h) => (h.warnings = { length: 1e9 }))],
    ['header __proto__', (t) => `{"__proto__":{"polluted":1},${t.slice(1)}`],
    ['header only', (t) => t.split('\n')[0]!],
    ['a record null', (t) => record(t, (r) => Object.keys(r).forEach((k) => delete r[k]))],
    ['a row with a date that is not one', (t) => record(t, (r) => (r.date = '1'))],
    ['a row with rdns a number', (t) => record(t, (r) => (r.rdns = 5))],
    ['a row with emails a string', (t) => record(t, (r) => (r.emails = '3'))],
    ['a row with emails negative', (t) => record(t, (r) => (r.emails = -3))],
    ['a row without an ipAddress', (t) => record(t, (r) => delete r.ipAddress)],
    ['a DKIM entry null', (t) => record(t, (r) => (r.dkims = [null]))],
    ['a DKIM entry without a domain', (t) => record(t, (r) => (r.dkims = [{ selector: 's', result: 'pass' }]))],
    ['an rdns name a number', (t) => record(t, (r) => (r.rdns = [5]))],
    ['category a number', (t) => record(t, (r) => (r.category = 5))],
    ['reporter null', (t) => record(t, (r) => (r.reporter = null))],
    ['visibleFrom missing', (t) => record(t, (r) => delete r.visibleFrom)],
    ['to an object', (t) => record(t, (r) => (r.to = { x: 1 }))],
    ['a record that is a list', (t) => t.split('\n').map((l, i) => (i === 3 ? '[1,2,3]' : l)).join('\n')],
    ['a 20 MB line (the same record, spaced out)', (t) => t.split('\n').map((l, i) => (i === 2 ? `{${' '.repeat(20 << 20)}${l.slice(1)}` : l)).join('\n')],
    ['a 20 MB string in a record', (t) => record(t, (r) => (r.source = 'x'.repeat(20 << 20)))],
    ['100,000-deep record', (t) => t.split('\n').map((l, i) => (i === 2 ? '['.repeat(100_000) + ']'.repeat(100_000) : l)).join('\n')],
    ['CRLF line ends', (t) => t.replace(/\n/g, '\r\n')],
    ['a byte order mark', (t) => `\ufeff${t}`],
    ['UTF-16', (t) => Buffer.from(t, 'utf16le')],
  ];
}

describe('hostile: stored state, disk cache', function () {
  this.timeout(120_000);
  let dir: string;
  let good: FetchResult;
  const logs: string[] = [];
  before(async () => {
    good = await fixture();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmarc-hostile-disk-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    assert.equal(leaksIn(KEY, logs.splice(0), 'disk cache'), 0);
  });

  /** A store over `dir` whose network answers `good`, counting its calls. */
  function store(): { s: RecordStore; calls: () => number } {
    let calls = 0;
    const s = new RecordStore({
      fetch: async () => {
        calls++;
        return good;
      },
      disk: new DiskCache(dir, { log: (l) => logs.push(l) }),
      now: () => now,
      writeDelayMs: 0,
      log: (l) => logs.push(l),
    });
    return { s, calls: () => calls };
  }

  async function cachedFile(): Promise<string> {
    const { s } = store();
    await s.get(scope, start, end);
    await s.flush();
    const [name] = readdirSync(join(dir, 'records-v2'));
    return join(dir, 'records-v2', name!);
  }

  it('each damaged cache file: the range exactly as cached, or a silent refetch; never a crash, never other rows', async () => {
    const first = store();
    const want = (await first.s.get(scope, start, end)).records.map((r) => JSON.stringify(r));
    await first.s.flush();
    for (const [what, damage] of damages()) {
      tried('states');
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      const path = await cachedFile();
      writeFileSync(path, damage(readFileSync(path, 'utf8')));
      const { s, calls } = store();
      let got;
      try {
        got = await s.get(scope, start, end);
      } catch (e) {
        lost('crashes', `disk cache ${what}: ${String(e)}`);
        throw new Error(`${what}: ${String(e)}`);
      }
      // What the panel does with every row it is given: a damaged row must not get this far.
      try {
        for (const r of got.records) toRowFields(r);
      } catch (e) {
        lost('crashes', `disk cache ${what}: a served row breaks the panel: ${String(e)}`);
        throw new Error(`${what}: a served row breaks the panel: ${String(e)}`);
      }
      const same = got.records.length === want.length && got.records.every((r, i) => JSON.stringify(r) === want[i]);
      // A garbled byte inside a string, or a string replaced, leaves valid JSON of other text: the
      // cache cannot tell (it keeps no checksum), so it may serve those rows, as the file says.
      const garbledText = (what.startsWith('byte at') || what.includes('string in a record')) && got.fromCache === 'disk' && got.records.length === want.length;
      if (!same && !garbledText) lost('lostRows', `disk cache ${what}: ${got.records.length} rows from ${got.fromCache}`);
      assert.ok(same || garbledText, `${what}: ${got.records.length} rows from ${got.fromCache}`);
      assert.ok(got.fromCache === 'disk' || calls() === 1, what);
      await s.flush();
      assert.equal(({} as Record<string, unknown>).polluted, undefined, `${what}: Object.prototype polluted`);
    }
  });

  it('a directory, or a link to a file the cache does not own, in place of a cache file: refetched, the target untouched', async () => {
    const outside = join(dir, 'not-the-cache.txt');
    writeFileSync(outside, 'precious');
    for (const what of ['directory', 'link']) {
      tried('states');
      const path = await cachedFile();
      rmSync(path);
      if (what === 'directory') mkdirSync(path);
      else symlinkSync(outside, path);
      const { s, calls } = store();
      const got = await s.get(scope, start, end);
      assert.equal(got.records.length, good.records.length, what);
      assert.equal(calls(), 1, `${what}: fetched again`);
      assert.equal(readFileSync(outside, 'utf8'), 'precious', `${what}: the file it points to is untouched`);
      await s.flush().catch(() => undefined);
      rmSync(path, { recursive: true, force: true });
    }
  });
});
