// The report library's index and load with exact figures (src/import/library.ts): domain order and
// date bounds, inclusive ranges, folder depth, files read at once, progress, the log line, and the
// words for file-system errors.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAggregateReports, type ImportResult } from '../../src/import';
import { ReportLibrary, describeFsError, domainOf, locationLabel } from '../../src/import/library';
import type { ParsedCache } from '../../src/import/parsedCache';
import { recordXml, reportXml } from './importHelpers';

const DAY = 86_400;
const BEGIN = 1_749_513_600; // 2025-06-10

function report(domain: string, id: string, day: number, counts: number[]): string {
  return reportXml({
    reportId: id,
    begin: String(BEGIN + day * DAY),
    end: String(BEGIN + day * DAY + DAY - 1),
    policy: `<domain>${domain}</domain><p>none</p>`,
    records: counts.map((c, i) => recordXml({ ip: `192.0.2.${i + 1}`, count: String(c) })),
  });
}

describe('import: the report library’s index and load, exactly', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmarc-libindex-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('domains in alphabetical order, each with its first and last day, rows and emails; stats and the log line', async () => {
    // Read in path order: the later domain first, its days out of order.
    writeFileSync(join(dir, 'a.xml'), report('zeta.example', 'z2', 5, [1, 2]));
    writeFileSync(join(dir, 'b.xml'), report('zeta.example', 'z1', 1, [4]));
    writeFileSync(join(dir, 'c.xml'), report('zeta.example', 'z3', 9, [8]));
    writeFileSync(join(dir, 'd.xml'), report('Alpha.Example', 'a1', 3, [16]));
    const lines: string[] = [];
    const lib = new ReportLibrary({ log: (l) => lines.push(l) });
    const stats = await lib.load([dir]);
    assert.deepEqual(lib.domains(), [
      { domain: 'alpha.example', reports: 1, rows: 1, emails: 16, first: (BEGIN + 3 * DAY) * 1000, last: (BEGIN + 3 * DAY) * 1000 },
      { domain: 'zeta.example', reports: 3, rows: 4, emails: 15, first: (BEGIN + DAY) * 1000, last: (BEGIN + 9 * DAY) * 1000 },
    ]);
    // Each row carries the policy its own report states (the advice rules read it).
    assert.deepEqual(lib.records('zeta.example', -Infinity, Infinity).map((r) => r.published?.domain), ['zeta.example', 'zeta.example', 'zeta.example', 'zeta.example']);
    const { ms, ...rest } = stats;
    assert.deepEqual(rest, { files: 4, fromCache: 0, read: 4, reports: 4, duplicates: 0, rows: 5, errors: 0 });
    assert.ok(ms >= 0 && ms < 60_000, `${ms} ms`);
    assert.deepEqual(lines, [`report files: 4 files (0 from the cache), 4 reports, 0 duplicates skipped, 5 rows, 0 problems, ${ms} ms`]);
    assert.equal(lib.generation, 1);
    await lib.load([dir]);
    assert.equal(lib.generation, 2);
  });

  it('the log line counts in words, singular for one: never "file(s)" or "report(s)" (issue 43)', async () => {
    // Two files with the same report (one is a duplicate) and one that is no report (a problem).
    writeFileSync(join(dir, 'a.xml'), report('example.com', 'same', 1, [4]));
    writeFileSync(join(dir, 'b.xml'), report('example.com', 'same', 1, [4]));
    writeFileSync(join(dir, 'c.xml'), '<feedback><report_metadata>');
    const lines: string[] = [];
    const stats = await new ReportLibrary({ log: (l) => lines.push(l) }).load([dir]);
    assert.deepEqual(lines, [`report files: 3 files (0 from the cache), 1 report, 1 duplicate skipped, 1 row, 1 problem, ${stats.ms} ms`]);
  });

  it('a domain’s rows for a range: by date, both ends inclusive', async () => {
    for (const day of [0, 1, 2, 3]) writeFileSync(join(dir, `r${day}.xml`), report('example.com', `r${day}`, day, [day + 1]));
    const lib = new ReportLibrary();
    await lib.load([dir]);
    const at = (day: number) => (BEGIN + day * DAY) * 1000;
    assert.deepEqual(lib.records('example.com', at(1), at(2)).map((r) => r.emails), [2, 3]);
    assert.deepEqual(lib.records('example.com', at(1) + 1, at(3) - 1).map((r) => r.emails), [3]);
    assert.deepEqual(lib.records('example.com', at(0), at(0)).map((r) => r.emails), [1]);
    assert.deepEqual(lib.records('other.example', at(0), at(3)), []);
    assert.deepEqual(lib.fetchResult('example.com', at(3), at(9)), { records: lib.records('example.com', at(3), at(9)), warnings: [], rejected: { count: 0, samples: [] } });
  });

  it('folders are searched 16 levels deep, not 17', async () => {
    let deep = dir;
    for (let level = 1; level <= 17; level++) {
      deep = join(deep, `l${level}`);
      mkdirSync(deep);
      writeFileSync(join(deep, `at${level}.xml`), report('example.com', `level-${level}`, 0, [1]));
    }
    const lib = new ReportLibrary();
    const stats = await lib.load([dir]);
    assert.equal(stats.files, 16);
    assert.equal(lib.domain('example.com')!.reports, 16);
  });

  it('reads `concurrency` files at once, reports progress per file, and prunes the cache unless stopped', async () => {
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, `r${i}.xml`), report('example.com', `r${i}`, i, [1]));
    let inFlight = 0;
    let most = 0;
    const read = async (name: string, bytes: Uint8Array): Promise<ImportResult> => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return readAggregateReports(name, bytes);
    };
    const pruned: string[][] = [];
    const cache: ParsedCache = { get: async () => undefined, put: async () => undefined, prune: async (keep) => void pruned.push([...keep]) };
    const progress: string[] = [];
    const lib = new ReportLibrary({ read, cache, concurrency: 2, onProgress: (done, total) => progress.push(`${done}/${total}`) });
    await lib.load([dir]);
    assert.equal(most, 2);
    assert.deepEqual(progress, ['1/5', '2/5', '3/5', '4/5', '5/5']);
    assert.deepEqual(pruned, [[0, 1, 2, 3, 4].map((i) => join(dir, `r${i}.xml`))]);
    const stopped = new AbortController();
    stopped.abort();
    await new ReportLibrary({ read, cache }).load([dir], stopped.signal);
    assert.equal(pruned.length, 1, 'no prune after a stopped load');
  });

  it('a domain is the policy domain trimmed and lower-cased, or "(no domain)"', () => {
    const of = (domain: string) => domainOf({ policy: { domain } } as Parameters<typeof domainOf>[0]);
    assert.equal(of(' Example.COM '), 'example.com');
    assert.equal(of('  '), '(no domain)');
  });

  it('file-system errors in words; a location’s label is its last name', () => {
    const err = (code: string) => Object.assign(new Error(`${code}: raw`), { code });
    assert.equal(describeFsError(err('ENOENT')), 'Not found: it was moved or deleted.');
    assert.equal(describeFsError(err('EACCES')), 'Permission denied.');
    assert.equal(describeFsError(err('EPERM')), 'Permission denied.');
    assert.equal(describeFsError(err('EISDIR')), 'Is a folder.');
    assert.equal(describeFsError(err('EIO')), 'EIO: raw');
    assert.equal(describeFsError('plain'), 'plain');
    assert.equal(describeFsError(null), 'null');
    assert.equal(locationLabel('/data/reports/'), 'reports');
    assert.equal(locationLabel('/data/r.xml'), 'r.xml');
    assert.equal(locationLabel('/'), '/');
  });
});
