/** What the report-file reader returns (issue 13). Rows are the same `DmarcRecord` as the API's. */
import type { DmarcRecord } from '../api/types';

/**
 * The published policy as the report states it (RFC 7489 Appendix C, RFC 9990), values trimmed
 * and lower-cased; only the fields present in the report are set.
 */
export interface PolicyPublished {
  domain: string;
  p?: string;
  sp?: string;
  np?: string;
  adkim?: string;
  aspf?: string;
  pct?: number;
  fo?: string;
  testing?: string;
  discovery_method?: string;
}

export interface AggregateReport {
  /** The file it came from; inside an archive or message, `outer.zip › inner.xml`. */
  file: string;
  reportId: string;
  orgName: string;
  email: string;
  /** The report's date range, ISO 8601 UTC. Every row is dated `begin`. */
  begin: string;
  end: string;
  policy: PolicyPublished;
  records: DmarcRecord[];
}

export interface ImportError {
  file: string;
  message: string;
}

export interface ImportResult {
  reports: AggregateReport[];
  errors: ImportError[];
}

/** Limits of one read; the defaults are the issue's, tests pass smaller ones. */
export interface ImportLimits {
  /** Bytes inflated from gzip and zip for one input file, all entries together. */
  maxInflatedBytes: number;
  /** Element depth inside one record (or metadata block) before it is refused. */
  maxDepth: number;
  /** Characters in one text node before its record is refused. */
  maxTextLength: number;
  /** Errors listed per report before the rest are counted in one line. */
  maxErrorsPerReport: number;
}

export const DEFAULT_LIMITS: ImportLimits = {
  maxInflatedBytes: 256 * 1024 * 1024,
  maxDepth: 64,
  maxTextLength: 1024 * 1024,
  maxErrorsPerReport: 20,
};
