// Shared by the import*.test.ts files: fixtures, report XML builders and a read that expects success.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readAggregateReports, type AggregateReport, type ImportResult, type ReadOptions } from '../../src/import';

export const FIXTURES = join(__dirname, '..', '..', 'test', 'fixtures', 'reports');

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, name)));
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

export interface RecordXml {
  ip?: string;
  count?: string;
  disposition?: string;
  dkim?: string;
  spf?: string;
  identifiers?: string;
  auth?: string;
  extra?: string;
}

export function recordXml(r: RecordXml = {}): string {
  return `<record><row><source_ip>${r.ip ?? '192.0.2.1'}</source_ip><count>${r.count ?? '1'}</count>` +
    `<policy_evaluated><disposition>${r.disposition ?? 'none'}</disposition><dkim>${r.dkim ?? 'pass'}</dkim><spf>${r.spf ?? 'pass'}</spf></policy_evaluated></row>` +
    `<identifiers>${r.identifiers ?? '<header_from>example.com</header_from>'}</identifiers>` +
    `<auth_results>${r.auth ?? '<dkim><domain>example.com</domain><selector>s1</selector><result>pass</result></dkim><spf><domain>example.com</domain><scope>mfrom</scope><result>pass</result></spf>'}</auth_results>${r.extra ?? ''}</record>`;
}

export interface ReportXml {
  orgName?: string | null;
  email?: string;
  reportId?: string;
  begin?: string;
  end?: string;
  policy?: string;
  records?: string[];
  /** Text before <feedback> (a DOCTYPE, say). */
  prolog?: string;
}

export function reportXml(o: ReportXml = {}): string {
  const org = o.orgName === null ? '' : `<org_name>${o.orgName ?? 'Receiver'}</org_name>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${o.prolog ?? ''}<feedback><report_metadata>${org}<email>${o.email ?? 'dmarc@receiver.example'}</email>` +
    `<report_id>${o.reportId ?? 'rid-1'}</report_id><date_range><begin>${o.begin ?? '1749513600'}</begin><end>${o.end ?? '1749599999'}</end></date_range></report_metadata>` +
    `<policy_published>${o.policy ?? '<domain>example.com</domain><p>reject</p>'}</policy_published>${(o.records ?? [recordXml()]).join('\n')}</feedback>\n`;
}

export async function read(name: string, bytes: Uint8Array, options?: ReadOptions): Promise<ImportResult> {
  return readAggregateReports(name, bytes, options);
}

/** Reads and expects exactly one report and no error. */
export async function readOne(name: string, bytes: Uint8Array, options?: ReadOptions): Promise<AggregateReport> {
  const r = await readAggregateReports(name, bytes, options);
  assert.deepEqual(r.errors, [], 'no errors');
  assert.equal(r.reports.length, 1, 'one report');
  return r.reports[0]!;
}

/** The rows without the parts that legitimately differ by container (none today but `file` on the report). */
export function rowsOf(reports: AggregateReport[]): unknown[] {
  return reports.flatMap((r) => r.records.map((rec) => JSON.parse(JSON.stringify(rec))));
}
