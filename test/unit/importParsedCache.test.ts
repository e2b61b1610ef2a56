// The parsed-report cache on disk (src/import/parsedCache.ts) on its own: where its files are, when
// an entry is a hit, and what it logs and removes when a file cannot be used or written.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportResult } from '../../src/import';
import { DiskParsedCache } from '../../src/import/parsedCache';

const RESULT: ImportResult = { reports: [], errors: [{ file: '/r/a.xml', message: 'no DMARC aggregate report found in it' }] };

describe('import: the parsed-report cache on disk', () => {
  let base: string;
  let log: string[];
  let cache: DiskParsedCache;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'dmarc-parsed-'));
    log = [];
    cache = new DiskParsedCache(base, (line) => log.push(line));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('keeps one JSON file per report path, named by the path’s SHA-256, in a folder of its version', () => {
    assert.equal(cache.dir, join(base, 'parsed-v2'));
    const hash = createHash('sha256').update('/r/a.xml').digest('hex').slice(0, 32);
    assert.equal(cache.fileOf('/r/a.xml'), join(base, 'parsed-v2', `${hash}.json`));
  });

  it('a hit needs the same path, size and mtime; anything else is a miss that logs nothing', async () => {
    assert.equal(await cache.get('/r/a.xml', 10, 20), undefined);
    await cache.put('/r/a.xml', 10, 20, RESULT);
    assert.deepEqual(await cache.get('/r/a.xml', 10, 20), RESULT);
    assert.equal(await cache.get('/r/a.xml', 11, 20), undefined);
    assert.equal(await cache.get('/r/a.xml', 10, 21), undefined);
    // Another path whose file holds this entry (as if the two hashed the same).
    copyFileSync(cache.fileOf('/r/a.xml'), cache.fileOf('/r/b.xml'));
    assert.equal(await cache.get('/r/b.xml', 10, 20), undefined);
    assert.deepEqual(log, []);
    assert.deepEqual(readdirSync(cache.dir).sort(), [cache.fileOf('/r/a.xml'), cache.fileOf('/r/b.xml')].map((f) => f.slice(cache.dir.length + 1)).sort());
  });

  it('a file that is no cache entry is dropped, saying why', async () => {
    const file = cache.fileOf('/r/a.xml');
    mkdirSync(cache.dir, { recursive: true });
    writeFileSync(file, '{"format":"something else"}');
    assert.equal(await cache.get('/r/a.xml', 10, 20), undefined);
    assert.equal(existsSync(file), false);
    assert.equal(log.length, 1);
    assert.match(log[0]!, /^parsed-report cache file dropped \((.+)\): (.+)$/);
    const [, why, named] = /^parsed-report cache file dropped \((.+)\): (.+)$/.exec(log[0]!)!;
    assert.equal(named, file);
    assert.notEqual(why, 'invalid', 'the schema’s own reason');
    assert.match(why!, /format|expected/i);

    writeFileSync(file, '{ not json');
    assert.equal(await cache.get('/r/a.xml', 10, 20), undefined);
    assert.equal(existsSync(file), false);
    assert.match(log[1]!, /^parsed-report cache file dropped \(.*JSON.*\): /);
  });

  it('a cache file that cannot be read (a folder in its place) is a miss that says why', async () => {
    mkdirSync(cache.fileOf('/r/a.xml'), { recursive: true });
    assert.equal(await cache.get('/r/a.xml', 10, 20), undefined);
    assert.deepEqual(log, [`parsed-report cache file dropped (EISDIR: illegal operation on a directory, read): ${cache.fileOf('/r/a.xml')}`]);
  });

  it('a write that fails is logged and leaves no temporary file', async () => {
    writeFileSync(join(base, 'parsed-v2'), 'a file where the folder should be');
    await cache.put('/r/a.xml', 10, 20, RESULT);
    assert.equal(log.length, 1);
    assert.match(log[0]!, /^parsed-report cache write failed: E(EXIST|NOTDIR)\b/);
    assert.deepEqual(readdirSync(base), ['parsed-v2']);
  });

  it('prune keeps only the named paths’ files; clear removes the folder', async () => {
    await cache.put('/r/a.xml', 1, 1, RESULT);
    await cache.put('/r/b.xml', 1, 1, RESULT);
    await cache.prune(['/r/b.xml', '/r/never.xml']);
    assert.deepEqual(readdirSync(cache.dir), [cache.fileOf('/r/b.xml').slice(cache.dir.length + 1)]);
    await cache.clear();
    assert.equal(existsSync(cache.dir), false);
    await cache.prune([]);
    assert.deepEqual(log, []);
  });

  it('what an older reader made of a file is not used: prune and clear remove the other versions’ folders, nothing else', async () => {
    for (const old of ['parsed-v1', 'parsed-v7']) {
      mkdirSync(join(base, old));
      writeFileSync(join(base, old, 'x.json'), '{}');
    }
    mkdirSync(join(base, 'rdns'));
    writeFileSync(join(base, 'parsed-v1.json'), 'not a version folder');
    await cache.put('/r/a.xml', 1, 1, RESULT);
    await cache.prune(['/r/a.xml']);
    assert.deepEqual(readdirSync(base).sort(), ['parsed-v1.json', 'parsed-v2', 'rdns']);
    assert.deepEqual(await cache.get('/r/a.xml', 1, 1), RESULT);
    mkdirSync(join(base, 'parsed-v1'));
    await cache.clear();
    assert.deepEqual(readdirSync(base).sort(), ['parsed-v1.json', 'rdns']);
    await new DiskParsedCache(join(base, 'missing')).prune([]);
    assert.deepEqual(log, []);
  });
});
