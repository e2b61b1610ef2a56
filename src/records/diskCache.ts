/**
 * Settled date ranges kept on disk between sessions (plain Node fs; the extension passes its
 * `globalStorageUri.fsPath`). Only RecordStore writes here, and only ranges whose data no
 * longer changes.
 *
 * Layout: `<dir>/records-v2/<h(account)>-<h(account, org)>-<startMs>-<endMs>.ndjson`, where h
 * is a truncated SHA-256. Ids are hashed (they may be arbitrary strings, unsafe in a file
 * name); the range stays readable so that a listing finds a cached range covering a
 * requested one (a day inside a cached month) without opening files, and so that `clear` can
 * drop one account's files. The API key is never given to this class.
 *
 * File format (NDJSON, so neither writing nor reading ever holds the whole file in one
 * string, which V8 caps at ~512 MB): line 1 a header with the format version, the ids, the
 * range, `fetchedAt`, the record count, warnings and rejected summary; then each record's row as
 * the API sent it, one a line (built again for a record that holds its row's shape instead:
 * src/api/rawRow.ts). Reading takes each row through the client's own validation and
 * normalisation (src/api/schema.ts), as when it came from the server, so a record read back is
 * the record the response made, held the same way. Version 1 stored each record's fields beside
 * its row: twice the size (1M rows: 870 MB against 450), slower to read, and its directory is
 * removed at the first write. A file that fails to parse, has the wrong version or ids, holds a
 * row the client would not take, or fewer rows than its header says (cut short) is a miss and is
 * deleted. Writes go to a temporary file renamed into place, so a reader never sees half a file.
 *
 * Size: the files together stay under `maxBytes` (the `dmarc.diskCacheMegabytes` setting). After
 * each write the least recently used files (by modification time; a read touches its file) are
 * removed until the rest fit; a range larger than the whole limit is not written at all, and a
 * limit of 0 keeps nothing on disk. A million rows take about 450 MB.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { rawOf } from '../api/rawRow';
import { fastRecord, zodRecord } from '../api/schema';
import { StringPool } from '../api/stringPool';
import { perfMark } from '../perf';
import type { DmarcRecord, FetchResult, RecordWarning, RejectedSummary } from '../api/types';

export const DISK_FORMAT = 'dmarc-explorer/records';
export const DISK_VERSION = 2;
const SUBDIR = `records-v${DISK_VERSION}`;
const FILE_RE = /^([0-9a-f]{16})-([0-9a-f]{16})-(\d+)-(\d+)\.ndjson$/;

/**
 * Rows of a file as they are read, a batch at a time from offset 0 (a file found damaged later is
 * still a miss: what was handed on is then superseded, as a fetch's retry supersedes its first
 * rows). A promise returned holds the reading.
 */
export type StoredRowsListener = (records: DmarcRecord[], offset: number) => unknown;

/** Rows handed to a StoredRowsListener at a time. */
const READ_BATCH = 2000;

export interface StoredRange {
  start: number;
  end: number;
  fetchedAt: number;
  result: FetchResult;
}

interface Header {
  format: string;
  version: number;
  accountId: string;
  organizationId: string;
  start: number;
  end: number;
  fetchedAt: number;
  count: number;
  warnings: RecordWarning[];
  rejected: RejectedSummary;
}

function h(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);
}

/** The default size limit of the disk cache: `dmarc.diskCacheMegabytes`'s default. */
export const DISK_CACHE_DEFAULT_MB = 2048;

export interface DiskCacheOptions {
  log?: (line: string) => void;
  /** The most the files may take together, in bytes, asked at each write (a setting may change). Default 2 GiB. */
  maxBytes?: () => number;
  /** Awaited after each megabyte written, given how long it took to make (ms). Default: `restAfter`. */
  rest?: (workMs: number) => Promise<void>;
}

/**
 * A write is background work: after each megabyte it rests three times as long as making it took,
 * so it holds at most a quarter of a core. At full speed the write of a million rows took a core
 * for 12.5 s right after they were shown (bench:panel: the extension host used 750 ms of CPU in the
 * 879 ms of a search keystroke, and the webview, on the other core, took 355 ms for it).
 */
export function restAfter(workMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(workMs * 3, 1_000)));
}

export class DiskCache {
  /** The directory holding the cache files (a versioned subdirectory of the one given). */
  readonly dir: string;
  private readonly log: (line: string) => void;
  private readonly maxBytes: () => number;
  private readonly rest: (workMs: number) => Promise<void>;
  /** The directory of the earlier format, removed at the first write or clear. */
  private legacy: string | undefined;

  constructor(baseDir: string, opts: DiskCacheOptions = {}) {
    this.dir = join(baseDir, SUBDIR);
    this.legacy = join(baseDir, 'records-v1');
    this.log = opts.log ?? (() => undefined);
    this.maxBytes = opts.maxBytes ?? (() => DISK_CACHE_DEFAULT_MB * 1048576);
    this.rest = opts.rest ?? restAfter;
  }

  /** The file name of one range; exposed for tests and diagnostics. */
  fileName(accountId: string, organizationId: string, start: number, end: number): string {
    return `${h(accountId)}-${h(accountId, organizationId)}-${start}-${end}.ndjson`;
  }

  /** Exactly this range, or undefined. */
  async read(accountId: string, organizationId: string, start: Date | number, end: Date | number, onRows?: StoredRowsListener): Promise<StoredRange | undefined> {
    const s = +start;
    const e = +end;
    return this.readFile(this.fileName(accountId, organizationId, s, e), accountId, organizationId, s, e, onRows);
  }

  /**
   * A cached range containing [start, end]: the exact one if present, else the narrowest (the
   * least to read). Undefined when none is cached or readable.
   */
  async findCovering(accountId: string, organizationId: string, start: Date | number, end: Date | number, onRows?: StoredRowsListener): Promise<StoredRange | undefined> {
    const s = +start;
    const e = +end;
    const candidates = (await this.list(accountId, organizationId))
      .filter((f) => f.start <= s && f.end >= e)
      .sort((a, b) => a.end - a.start - (b.end - b.start));
    for (const f of candidates) {
      const got = await this.readFile(f.name, accountId, organizationId, f.start, f.end, onRows);
      if (got) return got;
    }
    return undefined;
  }

  /**
   * Stores a range, replacing any earlier copy, and removes the cached ranges strictly inside
   * it: they are older than this one and would otherwise be preferred for being narrower.
   * `between` is awaited after each megabyte written (the store: until the views are quiet again);
   * when it says false the write is abandoned, its temporary file removed, nothing written. The
   * rest after each megabyte (`rest`) ends early once `hurry` settles (the store: the files are
   * about to be cleared, or the range left memory).
   */
  async write(accountId: string, organizationId: string, start: Date | number, end: Date | number, result: FetchResult, fetchedAt: number, between?: () => Promise<boolean>, hurry?: Promise<unknown>): Promise<void> {
    const s = +start;
    const e = +end;
    await this.dropLegacy();
    const limit = this.maxBytes();
    if (!(limit > 0)) return;
    await mkdir(this.dir, { recursive: true });
    const name = this.fileName(accountId, organizationId, s, e);
    const final = join(this.dir, name);
    const tmp = `${final}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const header: Header = {
      format: DISK_FORMAT,
      version: DISK_VERSION,
      accountId,
      organizationId,
      start: s,
      end: e,
      fetchedAt,
      count: result.records.length,
      warnings: result.warnings,
      rejected: result.rejected,
    };
    perfMark('diskWriteStart', { rows: result.records.length });
    let abandoned: string | undefined;
    let tooLarge = false;
    const overLimit = `is larger than the disk cache's limit (${Math.round(limit / 1048576)} MB)`;
    try {
      const fh = await open(tmp, 'w');
      try {
        // Bytes written so far: a range larger than the whole limit stops as soon as it is.
        let written = (await fh.write(`${JSON.stringify(header)}\n`)).bytesWritten;
        let chunk: string[] = [];
        let size = 0;
        let made = performance.now();
        for (const r of result.records) {
          const line = JSON.stringify(r.raw ?? rawOf(r));
          chunk.push(line);
          size += line.length + 1;
          if (size >= 1 << 20) {
            const text = `${chunk.join('\n')}\n`;
            const work = performance.now() - made;
            written += (await fh.write(text)).bytesWritten;
            chunk = [];
            size = 0;
            if (written > limit) {
              tooLarge = true;
              abandoned = overLimit;
              break;
            }
            await (hurry ? Promise.race([this.rest(work), hurry]) : this.rest(work));
            if (between && !(await between())) {
              abandoned = 'was abandoned';
              break;
            }
            made = performance.now();
          }
        }
        if (!abandoned && chunk.length) {
          written += (await fh.write(`${chunk.join('\n')}\n`)).bytesWritten;
          tooLarge = written > limit;
          if (tooLarge) abandoned = overLimit;
        }
        if (!abandoned) await fh.datasync();
      } finally {
        await fh.close();
      }
      if (abandoned) {
        await unlink(tmp);
        this.log(`disk cache: the write of ${result.records.length} rows ${abandoned}`);
        // An earlier copy of this range is older than what was not written: not to be served.
        if (tooLarge) await this.remove(name);
        return;
      }
      await rename(tmp, final);
      perfMark('diskWriteEnd', { rows: result.records.length });
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    for (const f of await this.list(accountId, organizationId)) {
      if (f.name !== name && f.start >= s && f.end <= e) await this.remove(f.name);
    }
    await this.trim(name);
  }

  /**
   * Removes the least recently used files until the rest fit under the limit (`keep`, the file just
   * written, stays). Called after each write, and by the extension when the limit is lowered.
   */
  async trim(keep?: string): Promise<void> {
    const limit = Math.max(0, this.maxBytes());
    // The one kept first, then the most recently used.
    const files = (await this.files()).sort((a, b) => Number(b.name === keep) - Number(a.name === keep) || b.used - a.used);
    let total = 0;
    for (const f of files) {
      total += f.size;
      if (total > limit && f.name !== keep) {
        await this.remove(f.name);
        this.log(`disk cache: removed ${f.name} (least recently used) to stay under ${Math.round(limit / 1048576)} MB`);
        total -= f.size;
      }
    }
  }

  /** How many cached files there are and the bytes they take (for Clear Disk Cache). */
  async usage(): Promise<{ files: number; bytes: number }> {
    const files = await this.files();
    return { files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) };
  }

  /** The cache's own files (any other name in the directory is not counted), their sizes and last use. */
  private async files(): Promise<{ name: string; size: number; used: number }[]> {
    const out: { name: string; size: number; used: number }[] = [];
    for (const name of await this.names()) {
      if (!FILE_RE.test(name)) continue;
      const st = await stat(join(this.dir, name)).catch(() => undefined);
      if (st?.isFile()) out.push({ name, size: st.size, used: st.mtimeMs });
    }
    return out;
  }

  /** The earlier format's directory: never read, removed at the first write or clear. */
  private async dropLegacy(): Promise<void> {
    if (!this.legacy) return;
    const legacy = this.legacy;
    this.legacy = undefined;
    await rm(legacy, { recursive: true, force: true }).catch(() => undefined);
  }

  /** Removes the cached files of one organization, one account, or (no argument) all of them. */
  async clear(accountId?: string, organizationId?: string): Promise<void> {
    if (accountId === undefined) {
      await this.dropLegacy();
      await rm(this.dir, { recursive: true, force: true });
      return;
    }
    const prefix = organizationId === undefined ? `${h(accountId)}-` : `${h(accountId)}-${h(accountId, organizationId)}-`;
    for (const name of await this.names()) {
      if (name.startsWith(prefix)) await this.remove(name);
    }
  }

  private async names(): Promise<string[]> {
    try {
      return await readdir(this.dir);
    } catch {
      return [];
    }
  }

  private async list(accountId: string, organizationId: string): Promise<{ name: string; start: number; end: number }[]> {
    const a = h(accountId);
    const o = h(accountId, organizationId);
    const out: { name: string; start: number; end: number }[] = [];
    for (const name of await this.names()) {
      const m = FILE_RE.exec(name);
      if (m && m[1] === a && m[2] === o) out.push({ name, start: Number(m[3]), end: Number(m[4]) });
    }
    return out;
  }

  private async remove(name: string): Promise<void> {
    await unlink(join(this.dir, name)).catch(() => undefined);
  }

  private async readFile(name: string, accountId: string, organizationId: string, s: number, e: number, onRows?: StoredRowsListener): Promise<StoredRange | undefined> {
    let fh: FileHandle;
    try {
      fh = await open(join(this.dir, name), 'r');
    } catch {
      return undefined;
    }
    perfMark('diskReadStart');
    // Closes the handle when it ends or is destroyed.
    const stream = fh.createReadStream({ encoding: 'utf8' });
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    let header: Header | undefined;
    const records: DmarcRecord[] = [];
    // As a response's rows: common values shared, rows of documented fields held by their shape.
    const pool = new StringPool();
    let given = 0; // rows handed to onRows
    const hand = async (batch: DmarcRecord[], offset: number): Promise<void> => {
      try {
        await onRows!(batch, offset);
      } catch (err) {
        this.log(`disk cache: a listener of the rows read failed: ${String(err)}`); // not the file's fault
      }
    };
    try {
      for await (const line of lines) {
        if (header === undefined) {
          header = parseHeader(line, accountId, organizationId, s, e);
          continue;
        }
        if (line === '') continue;
        const row: unknown = JSON.parse(line);
        let r = fastRecord(row, pool);
        if (!r) {
          const z = zodRecord(row);
          if ('reason' in z) throw new Error(`bad record at line ${records.length + 2}`);
          r = z.record;
        }
        records.push(r);
        if (onRows && records.length - given >= READ_BATCH) {
          const batch = records.slice(given);
          given = records.length;
          await hand(batch, given - batch.length);
        }
      }
      if (!header) throw new Error('empty file');
      if (onRows && records.length > given && records.length === header.count) await hand(records.slice(given), given);
      if (records.length !== header.count) throw new Error(`expected ${header.count} records, found ${records.length}`);
    } catch (err) {
      stream.destroy();
      this.log(`disk cache: discarding unreadable ${name}: ${(err as Error).message}`);
      await this.remove(name);
      return undefined;
    }
    // The rows hold the pooled strings; the pool's map of them is not needed any more.
    pool.clear();
    perfMark('diskRead', { rows: records.length });
    // Used now: the last to go when the cache is trimmed.
    const now = new Date();
    await utimes(join(this.dir, name), now, now).catch(() => undefined);
    return { start: s, end: e, fetchedAt: header.fetchedAt, result: { records, warnings: header.warnings, rejected: header.rejected } };
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseHeader(line: string, accountId: string, organizationId: string, s: number, e: number): Header {
  const h: unknown = JSON.parse(line);
  if (!isObject(h) || h.format !== DISK_FORMAT) throw new Error('not a records cache file');
  if (h.version !== DISK_VERSION) throw new Error(`format version ${String(h.version)}`);
  if (h.accountId !== accountId || h.organizationId !== organizationId || h.start !== s || h.end !== e) {
    throw new Error('header does not match the file name');
  }
  const rejected = h.rejected;
  if (typeof h.fetchedAt !== 'number' || typeof h.count !== 'number' || !Array.isArray(h.warnings)
    || !isObject(rejected) || typeof rejected.count !== 'number' || !Array.isArray(rejected.samples)) {
    throw new Error('malformed header');
  }
  return h as unknown as Header;
}
