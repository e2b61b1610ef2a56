/**
 * The report files a user opened (folders and single files) read into one index the tree and the
 * panel query like an organization: reports grouped by their policy domain, rows by date. Plain
 * Node (fs); the extension decides where the locations come from and when to load again.
 *
 * - A folder is searched recursively (symbolic links are not followed, hidden folders skipped)
 *   for `.xml`, `.gz`, `.zip` and `.eml` files.
 * - Each file is looked up in the parsed-report cache by path, size and mtime before it is read.
 * - The same report (reporter, report id, domain) found in several files (the .eml and the .zip
 *   it carried) counts once: the first file in path order keeps it.
 * - One file's problem never stops the others; it is listed on its location with the reason.
 */
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { DmarcRecord, FetchResult } from '../api/types';
import { readAggregateReports } from './index';
import { lowerBound } from '../records/rangeEntries';
import { englishCount } from '../shared/englishCount';
import type { ParsedCache } from './parsedCache';
import type { AggregateReport, ImportError, ImportResult } from './types';

export const REPORT_FILE_RE = /\.(xml|gz|zip|eml)$/i;
/** Files larger than this are refused (the reader's own inflation limit is 256 MB). */
export const MAX_REPORT_FILE_BYTES = 256 * 1024 * 1024;
const MAX_DEPTH = 16;
const MAX_FILES = 100_000;

export interface LibraryLocation {
  path: string;
  kind: 'folder' | 'file';
  files: number;
  reports: number;
  /** Per-file problems (unreadable, not a report, a record refused…), with the reason. */
  errors: ImportError[];
}

export interface DomainInfo {
  domain: string;
  reports: number;
  rows: number;
  emails: number;
  /** Earliest and latest row date (epoch ms). */
  first: number;
  last: number;
}

export interface LoadStats {
  files: number;
  fromCache: number;
  read: number;
  reports: number;
  duplicates: number;
  rows: number;
  errors: number;
  ms: number;
}

export interface LibraryOptions {
  cache?: ParsedCache;
  /** Files read at once (I/O overlaps parsing). */
  concurrency?: number;
  read?: (fileName: string, bytes: Uint8Array) => Promise<ImportResult>;
  log?: (line: string) => void;
  /** Called after each file (done, total), for progress. */
  onProgress?: (done: number, total: number) => void;
}

interface DomainIndex {
  info: DomainInfo;
  /** By dateMs ascending (stable). */
  records: DmarcRecord[];
}

export class ReportLibrary {
  private index = new Map<string, DomainIndex>();
  private locs: LibraryLocation[] = [];
  private gen = 0;

  constructor(private readonly opts: LibraryOptions = {}) {}

  /** Bumped by every load: the tree and the record store drop what they derived from the last one. */
  get generation(): number {
    return this.gen;
  }

  /** Reads every location again (unchanged files come from the cache) and replaces the index. */
  async load(paths: readonly string[], signal?: AbortSignal): Promise<LoadStats> {
    const t0 = Date.now();
    const read = this.opts.read ?? ((name: string, bytes: Uint8Array) => readAggregateReports(name, bytes));
    const log = this.opts.log ?? (() => undefined);
    const locations: LibraryLocation[] = [];
    const jobs: { loc: LibraryLocation; path: string }[] = [];
    const seenFiles = new Set<string>();
    for (const p of paths) {
      const loc: LibraryLocation = { path: p, kind: 'file', files: 0, reports: 0, errors: [] };
      locations.push(loc);
      let st;
      try {
        st = await stat(p);
      } catch (e) {
        loc.errors.push({ file: p, message: describeFsError(e) });
        continue;
      }
      const files: string[] = [];
      if (st.isDirectory()) {
        loc.kind = 'folder';
        await walk(p, 0, files, loc.errors);
        files.sort();
      } else {
        files.push(p);
      }
      for (const f of files) {
        if (seenFiles.has(f)) continue; // a file inside two added folders is read once
        seenFiles.add(f);
        if (jobs.length >= MAX_FILES) {
          loc.errors.push({ file: p, message: `More than ${MAX_FILES} report files: the rest were not read.` });
          break;
        }
        jobs.push({ loc, path: f });
        loc.files++;
      }
    }

    const results: (ImportResult | undefined)[] = new Array(jobs.length);
    let fromCache = 0;
    let done = 0;
    let next = 0;
    const worker = async () => {
      while (next < jobs.length && !signal?.aborted) {
        const i = next++;
        const { loc, path } = jobs[i]!;
        try {
          const st = await stat(path);
          if (st.size > MAX_REPORT_FILE_BYTES) throw new Error(`The file is larger than ${MAX_REPORT_FILE_BYTES / 1024 / 1024} MB.`);
          const cached = await this.opts.cache?.get(path, st.size, st.mtimeMs);
          if (cached) {
            fromCache++;
            results[i] = cached;
          } else {
            const bytes = await readFile(path);
            // The reader names what it read by the name given: keep the user's path in errors.
            const result = await read(path, bytes);
            results[i] = result;
            await this.opts.cache?.put(path, st.size, st.mtimeMs, result);
          }
        } catch (e) {
          loc.errors.push({ file: path, message: describeFsError(e) });
        }
        this.opts.onProgress?.(++done, jobs.length);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.opts.concurrency ?? 4, jobs.length)) }, worker));
    if (!signal?.aborted) await this.opts.cache?.prune?.(jobs.map((j) => j.path));

    // Index: reports by policy domain, each report once.
    const seenReports = new Set<string>();
    const byDomain = new Map<string, { info: DomainInfo; parts: DmarcRecord[][] }>();
    let duplicates = 0;
    let reports = 0;
    let rows = 0;
    jobs.forEach(({ loc }, i) => {
      const r = results[i];
      if (!r) return;
      loc.errors.push(...r.errors);
      for (const report of r.reports) {
        const domain = domainOf(report);
        const id = `${report.orgName}\u0000${report.reportId}\u0000${domain}\u0000${report.begin}`;
        if (seenReports.has(id)) {
          duplicates++;
          continue;
        }
        seenReports.add(id);
        reports++;
        loc.reports++;
        let d = byDomain.get(domain);
        if (!d) byDomain.set(domain, (d = { info: { domain, reports: 0, rows: 0, emails: 0, first: Infinity, last: -Infinity }, parts: [] }));
        d.info.reports++;
        d.parts.push(report.records);
        for (const rec of report.records) {
          // Set here, not when read: the parsed-report cache keeps the policy once per report.
          rec.published = report.policy;
          d.info.rows++;
          d.info.emails += rec.emails;
          if (rec.dateMs < d.info.first) d.info.first = rec.dateMs;
          if (rec.dateMs > d.info.last) d.info.last = rec.dateMs;
        }
        rows += report.records.length;
      }
    });
    const index = new Map<string, DomainIndex>();
    for (const [domain, d] of [...byDomain].sort((a, b) => a[0].localeCompare(b[0]))) {
      const records = d.parts.flat();
      records.sort((a, b) => a.dateMs - b.dateMs);
      index.set(domain, { info: d.info, records });
    }
    this.index = index;
    this.locs = locations;
    this.gen++;
    const errors = locations.reduce((n, l) => n + l.errors.length, 0);
    const stats: LoadStats = { files: jobs.length, fromCache, read: jobs.length - fromCache, reports, duplicates, rows, errors, ms: Date.now() - t0 };
    log(`report files: ${englishCount(stats.files, 'file')} (${stats.fromCache} from the cache), ${englishCount(reports, 'report')}, ${englishCount(duplicates, 'duplicate')} skipped, ${englishCount(rows, 'row')}, ${englishCount(errors, 'problem')}, ${stats.ms} ms`);
    return stats;
  }

  domains(): DomainInfo[] {
    return [...this.index.values()].map((d) => d.info);
  }

  domain(domain: string): DomainInfo | undefined {
    return this.index.get(domain)?.info;
  }

  locations(): LibraryLocation[] {
    return this.locs;
  }

  /** The rows of a domain dated start..end (inclusive), by date; a fresh array. */
  records(domain: string, start: number, end: number): DmarcRecord[] {
    const d = this.index.get(domain);
    if (!d) return [];
    const from = lowerBound(d.records, start);
    let to = from;
    while (to < d.records.length && d.records[to]!.dateMs <= end) to++;
    return d.records.slice(from, to);
  }

  /** What the record store's fetch returns for a domain and range: the rows, nothing rejected. */
  fetchResult(domain: string, start: number, end: number): FetchResult {
    return { records: this.records(domain, start, end), warnings: [], rejected: { count: 0, samples: [] } };
  }
}

/** The report's policy domain, lower-cased; reports without one are grouped apart. */
export function domainOf(report: AggregateReport): string {
  return report.policy.domain.trim().toLowerCase() || '(no domain)';
}


async function walk(dir: string, depth: number, out: string[], errors: ImportError[]): Promise<void> {
  if (depth > MAX_DEPTH || out.length > MAX_FILES) return;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    errors.push({ file: dir, message: describeFsError(e) });
    return;
  }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const p = join(dir, name);
    let st;
    try {
      st = await lstat(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) await walk(p, depth + 1, out, errors);
    else if (st.isFile() && REPORT_FILE_RE.test(name)) out.push(p);
  }
}

/** An fs error in words, without a stack (the path is the item's own). */
export function describeFsError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'Not found: it was moved or deleted.';
    case 'EACCES':
    case 'EPERM':
      return 'Permission denied.';
    case 'EISDIR':
      return 'Is a folder.';
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

/** A short name for a location's item. */
export function locationLabel(path: string): string {
  return basename(path) || path;
}
