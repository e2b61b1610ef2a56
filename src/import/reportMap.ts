/**
 * The blocks of one report's XML → an AggregateReport whose records are `DmarcRecord` rows, by
 * the table in the README ("Report files: how a record becomes a row"). A record that cannot be
 * read (no source IP, a bad `count`, refused by the XML reader's limits) is an error of its own;
 * the rest of the report is kept. An empty placeholder record (no source IP, count 0) is neither.
 */
import type { DkimEntry, DmarcRecord } from '../api/types';
import { categoryOf } from '../records/category';
import type { AggregateReport, ImportError, PolicyPublished } from './types';
import type { XmlBlock, XmlObject, XmlValue } from './xmlReader';

export class RecordFault extends Error {}

/** The first text of a value: a repeated element counts by its first occurrence. */
function text(v: XmlValue | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v.trim();
  if (Array.isArray(v)) return text(v[0]);
  return '';
}

const lower = (v: XmlValue | undefined): string => text(v).toLowerCase();

const NO_CHILDREN: XmlObject = Object.freeze({});

function obj(v: XmlValue | undefined): XmlObject {
  if (v === undefined || typeof v === 'string') return NO_CHILDREN;
  if (Array.isArray(v)) return obj(v[0]);
  return v;
}

const NONE: readonly XmlObject[] = Object.freeze([]);

function list(v: XmlValue | undefined): readonly XmlObject[] {
  if (v === undefined || typeof v === 'string') return NONE;
  if (!Array.isArray(v)) return [v];
  const out: XmlObject[] = [];
  for (const x of v) if (typeof x === 'object' && !Array.isArray(x)) out.push(x);
  return out;
}

/** SPF/DKIM results, lower-cased; `hardfail` (sent by some receivers) is SPF's `fail`. */
export function resultOf(v: XmlValue | undefined): string {
  const r = lower(v);
  return r === 'hardfail' ? 'fail' : r;
}

/** `count`: a whole number from 0 to 2^53 − 1 written in digits, nothing else. */
export function parseCount(v: XmlValue | undefined): number {
  const s = text(v);
  const n = /^\d{1,16}$/.test(s) ? Number(s) : NaN;
  if (!Number.isSafeInteger(n)) throw new RecordFault(`count "${s.slice(0, 40)}" is not a whole number from 0 to 2^53 − 1`);
  return n;
}

/** `date_range` seconds (UTC epoch) → epoch ms; undefined when not a plausible time. */
function epochMs(v: XmlValue | undefined): number | undefined {
  const s = text(v);
  if (!/^\d{1,12}(\.\d*)?$/.test(s)) return undefined;
  return Math.floor(Number(s)) * 1000;
}

export function domainOfEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? '' : email.slice(at + 1).replace(/[>\s].*$/, '').toLowerCase();
}

const POLICY_TEXT = ['p', 'sp', 'np', 'adkim', 'aspf', 'fo', 'testing', 'discovery_method'] as const;

function policyOf(v: XmlObject | undefined): PolicyPublished {
  const p: PolicyPublished = { domain: lower(v?.domain) };
  if (!v) return p;
  for (const k of POLICY_TEXT) if (v[k] !== undefined) p[k] = lower(v[k]);
  const pct = text(v.pct);
  if (/^\d{1,3}$/.test(pct)) p.pct = Number(pct);
  return p;
}

interface ReportContext {
  reporter: string;
  reportId: string;
  date: string;
  dateMs: number;
}

export function mapRecord(raw: XmlObject, ctx: ReportContext): DmarcRecord {
  const row = obj(raw.row);
  const ids = obj(raw.identifiers);
  const auth = obj(raw.auth_results);
  const pe = obj(row.policy_evaluated);
  const ipAddress = lower(row.source_ip);
  if (ipAddress === '') throw new RecordFault('no source_ip');
  const emails = parseCount(row.count);
  const disposition = lower(pe.disposition);
  const dmarc = disposition === 'pass' ? 'none' : disposition;
  const alignedSpf = resultOf(pe.spf);
  const alignedDkim = resultOf(pe.dkim);
  const spfs = list(auth.spf);
  let spfAuth = spfs[0];
  for (const s of spfs) {
    if (lower(s.scope) === 'mfrom') {
      spfAuth = s;
      break;
    }
  }
  const dkims: DkimEntry[] = list(auth.dkim).map((d) => ({
    selector: text(d.selector),
    domain: lower(d.domain),
    result: resultOf(d.result),
  }));
  const record: DmarcRecord = {
    source: 'Unknown',
    reporter: ctx.reporter,
    visibleFrom: lower(ids.header_from),
    returnPath: lower(ids.envelope_from) || lower(spfAuth?.domain),
    ipAddress,
    rdns: [],
    emails,
    category: categoryOf(alignedSpf, alignedDkim, dmarc),
    date: ctx.date,
    dateMs: ctx.dateMs,
    dmarc,
    alignedSpf,
    alignedDkim,
    spf: spfAuth ? resultOf(spfAuth.result) : '',
    dkims,
    reportId: ctx.reportId,
    raw,
  };
  const to = lower(ids.envelope_to);
  if (to !== '') record.to = to;
  return record;
}

/** Whether a value holds any text, at any depth. */
function hasText(v: XmlValue): boolean {
  if (typeof v === 'string') return v.trim() !== '';
  if (Array.isArray(v)) return v.some(hasText);
  return Object.values(v).some(hasText);
}

/**
 * An empty placeholder record, as some receivers send for a report with no mail in it: no
 * source_ip and a count of 0, or no value at all. It stands for no email, so it is neither a row
 * nor an error. A count of 0 with a source_ip is still a row; any other record without a
 * source_ip is still an error.
 */
export function reportsNothing(raw: XmlObject): boolean {
  const row = obj(raw.row);
  if (text(row.source_ip) !== '') return false;
  const count = text(row.count);
  return /^0{1,16}$/.test(count) || (count === '' && !hasText(raw));
}

export interface BuiltReport {
  report: AggregateReport | undefined;
  errors: ImportError[];
}

/** Builds the report from its blocks; `maxErrors` caps the per-record errors listed. */
export function buildReport(file: string, blocks: XmlBlock[], maxErrors: number): BuiltReport {
  const errors: ImportError[] = [];
  const meta = blocks.find((b) => b.name === 'report_metadata');
  if (!meta) return { report: undefined, errors: [{ file, message: 'not a DMARC aggregate report: no report_metadata' }] };
  if (!meta.value) return { report: undefined, errors: [{ file, message: `report_metadata refused: ${meta.error}` }] };
  const m = meta.value;
  // A receiver spells it <data_range>: the obvious misspelling is read, and said.
  const misspelt = m.date_range === undefined && m.data_range !== undefined;
  const rangeName = misspelt ? 'data_range' : 'date_range';
  const range = obj(misspelt ? m.data_range : m.date_range);
  const beginMs = epochMs(range.begin);
  if (beginMs === undefined) return { report: undefined, errors: [{ file, message: `${rangeName} begin "${text(range.begin).slice(0, 40)}" is not a time in seconds` }] };
  if (misspelt) errors.push({ file, message: 'report_metadata has <data_range> where <date_range> belongs: read as its date range' });
  const endMs = epochMs(range.end) ?? beginMs;
  const orgName = text(m.org_name);
  const email = text(m.email);
  const reportId = text(m.report_id);
  const begin = new Date(beginMs).toISOString();
  const ctx: ReportContext = { reporter: orgName || domainOfEmail(email), reportId, date: begin, dateMs: beginMs };
  const policyBlock = blocks.find((b) => b.name === 'policy_published');
  if (policyBlock?.error) errors.push({ file, message: `policy_published refused: ${policyBlock.error}` });

  const records: DmarcRecord[] = [];
  let index = 0;
  let refused = 0;
  for (const b of blocks) {
    if (b.name !== 'record') continue;
    index++;
    let reason = b.error;
    if (b.value) {
      if (reportsNothing(b.value)) continue;
      try {
        records.push(mapRecord(b.value, ctx));
        continue;
      } catch (e) {
        if (!(e instanceof RecordFault)) throw e;
        reason = e.message;
      }
    }
    if (++refused <= maxErrors) errors.push({ file, message: `record ${index} left out: ${reason}` });
  }
  if (refused > maxErrors) errors.push({ file, message: `${refused - maxErrors} more records left out` });
  const report: AggregateReport = {
    file,
    reportId,
    orgName,
    email,
    begin,
    end: new Date(endMs).toISOString(),
    policy: policyOf(policyBlock?.value),
    records,
  };
  return { report, errors };
}
