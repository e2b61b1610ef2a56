/**
 * The local API server's `--reports DIR` mode: rows read from a folder of raw aggregate report
 * files (src/import), served per organization = the reports' policy domain. No reverse DNS here
 * (the server sends no DNS query): `source` is "Unknown" and `rdns` empty, as the reader leaves them.
 */
import type { ImportError } from '../../src/import';
import { ReportLibrary } from '../../src/import/library';
import type { DmarcRecord } from '../../src/api/types';
import type { WireRow } from './data';

export interface ReportFolder {
  /** Policy domain → its rows, sorted by date. */
  rowsByDomain: Map<string, WireRow[]>;
  files: number;
  reports: number;
  errors: ImportError[];
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
    rdns: [...r.rdns],
    emails: r.emails,
    category: r.category,
    date: r.date,
    dmarc: r.dmarc,
    alignedSpf: r.alignedSpf,
    alignedDkim: r.alignedDkim,
    spf: r.spf,
    dkims: r.dkims.map((d) => ({ ...d })),
    reportId: r.reportId,
  };
}

/** Reads the folder as the extension does (the same library: same files, same grouping, same duplicates rule). */
export async function loadReportFolder(dir: string): Promise<ReportFolder> {
  const library = new ReportLibrary();
  const stats = await library.load([dir]);
  const rowsByDomain = new Map<string, WireRow[]>();
  for (const d of library.domains()) rowsByDomain.set(d.domain, library.records(d.domain, -Infinity, Infinity).map(wireRow));
  return { rowsByDomain, files: stats.files, reports: stats.reports, errors: library.locations().flatMap((l) => l.errors) };
}
