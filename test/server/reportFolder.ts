/**
 * The local API server's `--reports DIR` mode: rows read from a folder of raw aggregate report
 * files (src/import), served per organization = the reports' policy domain. No reverse DNS here
 * (the server sends no DNS query): `source` is "Unknown" and `rdns` empty, as the reader leaves them.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readAggregateReports, type ImportError } from '../../src/import';
import type { DmarcRecord } from '../../src/api/types';
import type { WireRow } from './data';

const REPORT_FILE = /\.(xml|gz|zip|eml)$/i;
const MAX_FILES = 100_000;

export interface ReportFolder {
  /** Policy domain → its rows, sorted by date. */
  rowsByDomain: Map<string, WireRow[]>;
  files: number;
  reports: number;
  errors: ImportError[];
}

async function reportFiles(dir: string, depth = 0, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (out.length >= MAX_FILES) break;
    const p = join(dir, e.name);
    if (e.isDirectory() && depth < 8) await reportFiles(p, depth + 1, out);
    else if (e.isFile() && REPORT_FILE.test(e.name)) out.push(p);
  }
  return out;
}

/** A row as the API would send it: the record's wire fields (no `dateMs`, no `raw`), plus `from`. */
export function wireRow(r: DmarcRecord): WireRow {
  return {
    source: r.source,
    reporter: r.reporter,
    visibleFrom: r.visibleFrom,
    from: r.visibleFrom,
    returnPath: r.returnPath,
    to: r.to,
    ipAddress: r.ipAddress,
    rdns: r.rdns,
    emails: r.emails,
    category: r.category,
    date: r.date,
    dmarc: r.dmarc,
    alignedSpf: r.alignedSpf,
    alignedDkim: r.alignedDkim,
    spf: r.spf,
    dkims: r.dkims,
    reportId: r.reportId,
  };
}

export async function loadReportFolder(dir: string): Promise<ReportFolder> {
  const files = (await reportFiles(dir)).sort();
  const rowsByDomain = new Map<string, WireRow[]>();
  const errors: ImportError[] = [];
  let reports = 0;
  for (const file of files) {
    const result = await readAggregateReports(file.slice(dir.length + 1), new Uint8Array(await readFile(file)));
    errors.push(...result.errors);
    for (const report of result.reports) {
      reports++;
      const domain = report.policy.domain || 'unknown';
      const rows = rowsByDomain.get(domain) ?? [];
      for (const r of report.records) rows.push(wireRow(r));
      rowsByDomain.set(domain, rows);
    }
  }
  for (const rows of rowsByDomain.values()) rows.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { rowsByDomain, files: files.length, reports, errors };
}
