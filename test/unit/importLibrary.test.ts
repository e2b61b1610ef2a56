// The report library: what the tree's Report Files section and the panel read (folders searched,
// duplicates counted once, per-file problems listed, parsed reports cached by path, size, mtime).
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gzipSync } from 'fflate';
import { ReportLibrary } from '../../src/import/library';
import { DiskParsedCache } from '../../src/import/parsedCache';
import { ptrResolver } from '../../src/reportFiles/resolver';
import { readAggregateReports } from '../../src/import';
import { FIXTURES, recordXml, reportXml } from './importHelpers';

describe('import: the report library (folders, duplicates, problems, parsed cache)', () => {
  let dir: string;
  let reports: string;
  let fixtureRows: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dmarc-library-'));
    reports = join(dir, 'reports');
    mkdirSync(join(reports, 'sub'), { recursive: true });
    mkdirSync(join(reports, '.hidden'));
    fixtureRows = 0;
    for (const f of readdirSync(FIXTURES)) {
      copyFileSync(join(FIXTURES, f), join(reports, f));
      const r = await readAggregateReports(f, new Uint8Array(readFileSync(join(FIXTURES, f))));
      fixtureRows += r.reports.reduce((n, x) => n + x.records.length, 0);
    }
    // The same report again, gzipped in a subfolder: counted once.
    writeFileSync(join(reports, 'sub', 'again.xml.gz'), gzipSync(readFileSync(join(FIXTURES, 'google-style.xml'))));
    // Another domain's report, two rows on two days.
    writeFileSync(join(reports, 'sub', 'other.xml'), reportXml({
      reportId: 'other-1', begin: '1749513600', end: '1749599999',
      policy: '<domain>Other.Example</domain><p>none</p>',
      records: [recordXml({ ip: '198.51.100.7', count: '3' }), recordXml({ ip: '198.51.100.8', count: '4' })],
    }));
    writeFileSync(join(reports, 'broken.xml'), '<feedback><report_metadata>');
    writeFileSync(join(reports, 'notes.txt'), 'not a report');
    writeFileSync(join(reports, '.hidden', 'x.xml'), reportXml({ reportId: 'hidden' }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a folder with its subfolders: domains, counts, one problem per bad file, hidden folders and other files left out', async () => {
    const lib = new ReportLibrary();
    const stats = await lib.load([reports]);
    assert.equal(stats.files, 9); // 6 fixtures + again.xml.gz + other.xml + broken.xml
    assert.equal(stats.duplicates, 1);
    assert.equal(stats.reports, 7);
    assert.deepEqual(lib.domains().map((d) => d.domain), ['example.com', 'other.example']);
    const other = lib.domain('other.example')!;
    assert.deepEqual({ reports: other.reports, rows: other.rows, emails: other.emails }, { reports: 1, rows: 2, emails: 7 });
    assert.equal(lib.domain('example.com')!.rows, fixtureRows);
    const [loc] = lib.locations();
    assert.equal(loc!.kind, 'folder');
    assert.equal(loc!.files, 9);
    assert.equal(loc!.reports, 7);
    assert.equal(loc!.errors.length, 1);
    assert.equal(loc!.errors[0]!.file, join(reports, 'broken.xml'));
    assert.match(loc!.errors[0]!.message, /\S/);
  });

  it('answers a domain and an inclusive range with its rows by date, none from other domains', async () => {
    const lib = new ReportLibrary();
    await lib.load([reports]);
    const all = lib.records('example.com', -Infinity, Infinity);
    assert.equal(all.length, fixtureRows);
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.dateMs <= all[i]!.dateMs, 'sorted by date');
    const t = all[all.length - 1]!.dateMs;
    assert.deepEqual(lib.records('example.com', t, t), all.filter((r) => r.dateMs === t), 'both bounds inclusive');
    assert.deepEqual(lib.records('example.com', t + 1, Infinity), []);
    assert.deepEqual(lib.records('other.example', -Infinity, Infinity).map((r) => r.ipAddress), ['198.51.100.7', '198.51.100.8']);
    assert.deepEqual(lib.records('nope.example', -Infinity, Infinity), []);
    const result = lib.fetchResult('other.example', -Infinity, Infinity);
    assert.deepEqual(result.rejected, { count: 0, samples: [] });
    assert.equal(result.records.length, 2);
  });

  it('a missing location is a problem of its own; a file opened twice (alone and in its folder) is read once', async () => {
    const lib = new ReportLibrary();
    const single = join(reports, 'sub', 'other.xml');
    const stats = await lib.load([join(dir, 'gone'), single, reports]);
    const [gone, file, folder] = lib.locations();
    assert.match(gone!.errors[0]!.message, /Not found/);
    assert.deepEqual({ kind: file!.kind, files: file!.files, reports: file!.reports }, { kind: 'file', files: 1, reports: 1 });
    assert.equal(folder!.files, 8, 'other.xml is not read a second time');
    assert.equal(stats.reports, 7);
  });

  it('parsed reports come from the cache when path, size and mtime match, and are read again when the file changed', async () => {
    const cacheDir = join(dir, 'cache');
    let reads = 0;
    const read = (name: string, bytes: Uint8Array) => {
      reads++;
      return readAggregateReports(name, bytes);
    };
    const first = new ReportLibrary({ cache: new DiskParsedCache(cacheDir), read });
    const s1 = await first.load([reports]);
    assert.deepEqual({ fromCache: s1.fromCache, read: s1.read, reads }, { fromCache: 0, read: 9, reads: 9 });

    reads = 0;
    const second = new ReportLibrary({ cache: new DiskParsedCache(cacheDir), read });
    const s2 = await second.load([reports]);
    assert.deepEqual({ fromCache: s2.fromCache, reads }, { fromCache: 9, reads: 0 });
    assert.deepEqual(second.records('example.com', -Infinity, Infinity), first.records('example.com', -Infinity, Infinity), 'the same rows, raw included');
    assert.deepEqual(second.locations(), first.locations(), 'the same problems');

    // A changed file (new mtime) is read again; the others still come from the cache.
    const other = join(reports, 'sub', 'other.xml');
    const later = new Date(Date.now() + 60_000);
    utimesSync(other, later, later);
    reads = 0;
    const s3 = await new ReportLibrary({ cache: new DiskParsedCache(cacheDir), read }).load([reports]);
    assert.deepEqual({ fromCache: s3.fromCache, reads }, { fromCache: 8, reads: 1 });

    // Entries of files no longer opened are dropped after a load.
    const cache = new DiskParsedCache(cacheDir);
    assert.equal(readdirSync(cache.dir).length, 9);
    await new ReportLibrary({ cache }).load([other]);
    assert.deepEqual(readdirSync(cache.dir), [basename(cache.fileOf(other))]);
  });

  it('a garbled, truncated or other-version cache file is a miss (read again, the file replaced), never a crash', async () => {
    const cacheDir = join(dir, 'cache-bad');
    const cache = new DiskParsedCache(cacheDir);
    const file = join(reports, 'rfc9990.xml');
    await new ReportLibrary({ cache }).load([file]);
    const cached = cache.fileOf(file);
    const good = readFileSync(cached, 'utf8');
    for (const bad of [good.slice(0, good.length >> 1), '{"format":"dmarc-explorer/parsed-reports","version":99}', 'null', good.replace('"records":[', '"records":[{"emails":"NaN"},')]) {
      writeFileSync(cached, bad);
      let reads = 0;
      const lib = new ReportLibrary({ cache, read: (n, b) => (reads++, readAggregateReports(n, b)) });
      const stats = await lib.load([file]);
      assert.deepEqual({ reads, fromCache: stats.fromCache, reports: stats.reports }, { reads: 1, fromCache: 0, reports: 1 }, bad.slice(0, 40));
      assert.equal(readFileSync(cached, 'utf8'), good, 'rewritten with what was read');
    }
  });

  it('a report without a policy domain is grouped apart; a file over the size limit is not read', async () => {
    const one = join(dir, 'nodomain.xml');
    writeFileSync(one, reportXml({ reportId: 'nd', policy: '<domain> </domain><p>none</p>' }));
    const lib = new ReportLibrary();
    await lib.load([one]);
    assert.deepEqual(lib.domains().map((d) => d.domain), ['(no domain)']);
    // A sparse file: 257 MB on paper, nothing on disk.
    const huge = join(dir, 'huge.xml');
    writeFileSync(huge, '');
    truncateSync(huge, 257 * 1024 * 1024);
    let reads = 0;
    const big = new ReportLibrary({ read: (n, b) => (reads++, readAggregateReports(n, b)) });
    const stats = await big.load([huge]);
    assert.equal(reads, 0);
    assert.equal(stats.errors, 1);
    assert.match(big.locations()[0]!.errors[0]!.message, /larger than 256 MB/);
  });
});

describe('import: which reverse DNS the extension uses (src/reportFiles/resolver.ts)', () => {
  const saved = process.env.DMARC_RDNS_TABLE;
  afterEach(() => {
    if (saved === undefined) delete process.env.DMARC_RDNS_TABLE;
    else process.env.DMARC_RDNS_TABLE = saved;
  });

  it('in VS Code\u2019s test mode only what a test injected, whatever the setting and the environment', () => {
    const injected = async () => ['x.example'];
    process.env.DMARC_RDNS_TABLE = '';
    assert.equal(ptrResolver(true, injected, true), injected);
    assert.equal(ptrResolver(true, undefined, true), undefined);
  });

  it('DMARC_RDNS_TABLE (test hosts, benchmarks, the demo): a canned table, or none when empty; never the system resolver', async () => {
    process.env.DMARC_RDNS_TABLE = '';
    assert.equal(ptrResolver(false, undefined, true), undefined);
    const dir = mkdtempSync(join(tmpdir(), 'dmarc-rdns-table-'));
    try {
      const file = join(dir, 'table.json');
      writeFileSync(file, JSON.stringify({ '192.0.2.1': ['mail.google.com'] }));
      process.env.DMARC_RDNS_TABLE = file;
      const resolve = ptrResolver(false, undefined, true)!;
      assert.deepEqual(await resolve('192.0.2.1'), ['mail.google.com']);
      await assert.rejects(resolve('192.0.2.2'), (e: NodeJS.ErrnoException) => e.code === 'ENOTFOUND');
      await assert.rejects(resolve('__proto__'), (e: NodeJS.ErrnoException) => e.code === 'ENOTFOUND');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('otherwise the system resolver only while the setting is on', () => {
    delete process.env.DMARC_RDNS_TABLE;
    assert.equal(ptrResolver(false, undefined, false), undefined);
    assert.equal(typeof ptrResolver(false, undefined, true), 'function', 'a function; not called here: no DNS query from a test');
  });
});
