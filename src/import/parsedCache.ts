/**
 * Parsed report files kept in the extension's global storage, so a folder of a thousand reports
 * is read once, not at every start: one JSON file per report file, keyed by the file's path, size
 * and mtime (a file that changed is read again). The report files themselves are never modified
 * or copied; only what was read from them is kept here.
 *
 * A cache file is outside data when read back (it may be truncated, garbled, of another version,
 * or edited): it is validated, and anything wrong makes it a miss (and it is deleted), so the
 * report is simply read again.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import * as z from 'zod';
import type { ImportResult } from './types';

export const PARSED_FORMAT = 'dmarc-explorer/parsed-reports';
/**
 * Raised whenever the reader reads some file differently (issue 43: blanks before the XML
 * declaration, `data_range`, empty placeholder records), so that what an older reader made of an
 * unchanged file (a report lost, an error that is none) is read again, not kept from the cache.
 */
export const PARSED_VERSION = 2;
const VERSION_DIR = /^parsed-v\d+$/;
/** A cache file larger than this is not read (a report file yields far less). */
const MAX_CACHE_FILE_BYTES = 512 * 1024 * 1024;

const dkimSchema = z.object({ selector: z.string(), domain: z.string(), result: z.string() });
const recordSchema = z.looseObject({
  source: z.string(),
  reporter: z.string(),
  visibleFrom: z.string(),
  returnPath: z.string(),
  to: z.string().optional(),
  ipAddress: z.string(),
  rdns: z.array(z.string()),
  emails: z.number().int().nonnegative(),
  category: z.string(),
  date: z.string(),
  dateMs: z.number().finite(),
  dmarc: z.string(),
  alignedSpf: z.string(),
  alignedDkim: z.string(),
  spf: z.string(),
  dkims: z.array(dkimSchema),
  reportId: z.string().optional(),
  raw: z.record(z.string(), z.unknown()),
});
const reportSchema = z.object({
  file: z.string(),
  reportId: z.string(),
  orgName: z.string(),
  email: z.string(),
  begin: z.string(),
  end: z.string(),
  policy: z.looseObject({ domain: z.string() }),
  records: z.array(recordSchema),
});
const fileSchema = z.object({
  format: z.literal(PARSED_FORMAT),
  version: z.literal(PARSED_VERSION),
  path: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
  result: z.object({
    reports: z.array(reportSchema),
    errors: z.array(z.object({ file: z.string(), message: z.string() })),
  }),
});

/** Where parsed reports are looked up and kept; the library works without one. */
export interface ParsedCache {
  get(path: string, size: number, mtimeMs: number): Promise<ImportResult | undefined>;
  put(path: string, size: number, mtimeMs: number, result: ImportResult): Promise<void>;
  /** Forgets every file but these (after a load: files closed, deleted or moved leave no entry behind). */
  prune?(keep: Iterable<string>): Promise<void>;
}

export class DiskParsedCache implements ParsedCache {
  readonly dir: string;

  constructor(private readonly baseDir: string, private readonly log: (line: string) => void = () => undefined) {
    this.dir = join(baseDir, `parsed-v${PARSED_VERSION}`);
  }

  /** The cache file of one report file (by its path; size and mtime are checked inside). */
  fileOf(path: string): string {
    return join(this.dir, `${createHash('sha256').update(path).digest('hex').slice(0, 32)}.json`);
  }

  async get(path: string, size: number, mtimeMs: number): Promise<ImportResult | undefined> {
    const file = this.fileOf(path);
    let text: string;
    try {
      const buf = await readFile(file);
      if (buf.length > MAX_CACHE_FILE_BYTES) throw new Error('too large');
      text = buf.toString('utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') await this.drop(file, (e as Error).message);
      return undefined;
    }
    let parsed: z.infer<typeof fileSchema>;
    try {
      const check = fileSchema.safeParse(JSON.parse(text));
      if (!check.success) throw new Error(check.error.issues[0]?.message ?? 'invalid');
      parsed = check.data;
    } catch (e) {
      await this.drop(file, (e as Error).message);
      return undefined;
    }
    // Another file hashed the same, or the file changed since: a miss (the entry is replaced).
    if (parsed.path !== path || parsed.size !== size || parsed.mtimeMs !== mtimeMs) return undefined;
    return parsed.result as ImportResult;
  }

  async put(path: string, size: number, mtimeMs: number, result: ImportResult): Promise<void> {
    const file = this.fileOf(path);
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(tmp, JSON.stringify({ format: PARSED_FORMAT, version: PARSED_VERSION, path, size, mtimeMs, result }));
      await rename(tmp, file);
    } catch (e) {
      this.log(`parsed-report cache write failed: ${(e as Error).message}`);
      await unlink(tmp).catch(() => undefined);
    }
  }

  async prune(keep: Iterable<string>): Promise<void> {
    const wanted = new Set([...keep].map((p) => basename(this.fileOf(p))));
    await this.dropOtherVersions();
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const n of names) if (!wanted.has(n)) await unlink(join(this.dir, n)).catch(() => undefined);
  }

  /** Forgets every parsed report (Remove on the last location, or a reset). */
  async clear(): Promise<void> {
    await this.dropOtherVersions();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Removes the folders other versions of the cache left beside this one. */
  private async dropOtherVersions(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.baseDir);
    } catch {
      return;
    }
    for (const n of names) {
      if (VERSION_DIR.test(n) && n !== basename(this.dir)) await rm(join(this.baseDir, n), { recursive: true, force: true }).catch(() => undefined);
    }
  }

  private async drop(file: string, why: string): Promise<void> {
    this.log(`parsed-report cache file dropped (${why}): ${file}`);
    await unlink(file).catch(() => undefined);
  }
}
