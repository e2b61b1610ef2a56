// Shared by the import*.test.ts files: fixtures, report XML builders and a read that expects success.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { readAggregateReports, type AggregateReport, type ImportResult, type ReadOptions } from '../../src/import';

export const FIXTURES = join(__dirname, '..', '..', 'test', 'fixtures', 'reports');

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, name)));
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Bytes as MIME base64, in lines of 76. */
export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64').replace(/.{76}/g, '$&\r\n');

/** A message with these parts attached (base64); a part without a name has none in its headers. */
export function message(parts: { type: string; name?: string; body: Uint8Array }[]): Uint8Array {
  const head = 'From: reports@receiver.example\r\nTo: dmarc@example.com\r\nSubject: Report\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="B"\r\n\r\n';
  const body = parts
    .map((p) => `--B\r\nContent-Type: ${p.type}${p.name ? `; name="${p.name}"` : ''}\r\nContent-Disposition: attachment${p.name ? `; filename="${p.name}"` : ''}\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(p.body)}\r\n`)
    .join('');
  return utf8(`${head}${body}--B--\r\n`);
}

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

/** CRC-32 (zlib.crc32 is only in Node ≥ 20.15). */
function crc32(data: Uint8Array): number {
  let c = ~0;
  for (const b of data) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/**
 * A one-entry zip, written by hand so tests can make what libraries will not: `body` as stored
 * (already compressed for method 8), the sizes and CRC the headers claim, and optionally those
 * left out of the entry header and sent after the data (a data descriptor).
 */
export function rawZip(o: { name: string; body: Uint8Array; method: 0 | 8; crc: number; size: number; descriptor: boolean }): Uint8Array {
  const n = Buffer.from(o.name);
  const body = Buffer.from(o.body);
  const flags = o.descriptor ? 0x08 : 0;
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(flags, 6);
  local.writeUInt16LE(o.method, 8);
  if (!o.descriptor) {
    local.writeUInt32LE(o.crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(o.size, 22);
  }
  local.writeUInt16LE(n.length, 26);
  const descriptor = Buffer.alloc(o.descriptor ? 16 : 0);
  if (o.descriptor) {
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(o.crc, 4);
    descriptor.writeUInt32LE(body.length, 8);
    descriptor.writeUInt32LE(o.size, 12);
  }
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(flags, 8);
  central.writeUInt16LE(o.method, 10);
  central.writeUInt32LE(o.crc, 16);
  central.writeUInt32LE(body.length, 20);
  central.writeUInt32LE(o.size, 24);
  central.writeUInt16LE(n.length, 28);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(1, 8);
  eocd.writeUInt16LE(1, 10);
  eocd.writeUInt32LE(46 + n.length, 12);
  eocd.writeUInt32LE(30 + n.length + body.length + descriptor.length, 16);
  return Buffer.concat([local, n, body, descriptor, central, n, eocd]);
}

/**
 * A one-entry zip written the way streaming zip writers (Java's ZipOutputStream, many mail
 * systems) write it: sizes and CRC left out of the entry header and sent after the data.
 */
export function zipWithDescriptor(name: string, data: Uint8Array, method: 0 | 8): Uint8Array {
  const body = method === 8 ? zlib.deflateRawSync(data) : Buffer.from(data);
  return rawZip({ name, body, method, crc: crc32(data), size: data.length, descriptor: true });
}
