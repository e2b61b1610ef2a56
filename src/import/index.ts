/**
 * Raw DMARC aggregate reports (.xml, .xml.gz/.gz, .zip, .eml) → the same `DmarcRecord` rows the
 * API client returns. Pure: no `vscode`; Node APIs only. Reverse DNS (./rdns) works through an
 * injected resolver and cache; file watching stays at the edge.
 */
import { Reading } from './reading';
import { DEFAULT_LIMITS, type ImportLimits, type ImportResult } from './types';

export type { AggregateReport, ImportError, ImportLimits, ImportResult, PolicyPublished } from './types';
export { DEFAULT_LIMITS } from './types';
export { MemoryRdnsCache, RdnsCacheFileSchema, addReverseDns, resolvePtrs, sourceName, type PtrResolver, type RdnsCache, type RdnsEntry, type ResolveOptions } from './rdns';
export { KNOWN_SENDERS } from './knownSenders';

export interface ReadOptions {
  /** Smaller limits for tests; the defaults are the issue's. */
  limits?: Partial<ImportLimits>;
}

/**
 * Reads every report in one file: a report's XML, a gzip or zip of reports (one level of nested
 * archives), or an email message with reports attached. What is wrong with one report or one
 * record is listed in `errors` and the rest is still read; this never rejects.
 */
export async function readAggregateReports(fileName: string, bytes: Uint8Array, options: ReadOptions = {}): Promise<ImportResult> {
  const reading = new Reading({ ...DEFAULT_LIMITS, ...options.limits });
  try {
    await reading.read(fileName, bytes);
  } catch (e) {
    reading.error(fileName, e instanceof Error ? e.message : String(e));
  }
  return { reports: reading.reports, errors: reading.errors };
}
