// The record a wire row must become, written from the contract (§2, §2.5) independently of
// src/api/schema.ts, for the tests that compare every field of every normalised row.
import { strict as assert } from 'node:assert';
import { rawOf, type DmarcRecord } from '../../src/api';

export const RECORD_FIELDS = ['source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'rdns', 'emails', 'category', 'date', 'dateMs', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkims', 'reportId', 'raw'] as const;
export type ExpectedRecord = Record<(typeof RECORD_FIELDS)[number], unknown>;

/**
 * Every field copied under its own name; `from` only when `visibleFrom` is absent; optional
 * fields only when sent (null means not sent); a lone rDNS string as a one-element list ('' as
 * none); the date's instant (`Date.parse` of the sent string unless the caller knows it another
 * way, `dateMs`), and the row itself as raw.
 */
export function expectedRecord(w: Record<string, unknown>, dateMs: number = Date.parse(String(w.date))): ExpectedRecord {
  const rdns = w.rdns;
  return {
    source: w.source, reporter: w.reporter, visibleFrom: w.visibleFrom ?? w.from, returnPath: w.returnPath, to: w.to ?? undefined,
    ipAddress: w.ipAddress, ipCountryCode: w.ipCountryCode ?? undefined, rdns: typeof rdns === 'string' ? (rdns ? [rdns] : []) : rdns,
    emails: w.emails, category: w.category, date: w.date, dateMs, dmarc: w.dmarc,
    alignedSpf: w.alignedSpf, alignedDkim: w.alignedDkim, spf: w.spf,
    dkims: (w.dkims as Record<string, unknown>[]).map((d) => ({ selector: d.selector, domain: d.domain, result: d.result })),
    reportId: w.reportId ?? undefined, raw: w,
  };
}

/**
 * Every field of every record equals the independent mapping of its wire row; no field beyond
 * them. `instants`, when given, are the rows' dates as epoch ms, known without parsing the wire.
 */
export function assertRecordsMatch(records: readonly DmarcRecord[], wire: readonly Record<string, unknown>[], instants?: readonly number[]): void {
  assert.equal(records.length, wire.length);
  records.forEach((r, i) => {
    const want = expectedRecord(wire[i]!, instants?.[i]);
    for (const f of RECORD_FIELDS) {
      if (f !== 'raw') assert.deepStrictEqual((r as unknown as Record<string, unknown>)[f], want[f], `row ${i}: ${f}`);
    }
    // The row as sent: kept, or built again from its shape (src/api/rawRow.ts), its keys in the same order.
    assert.deepStrictEqual(rawOf(r), want.raw, `row ${i}: raw`);
    assert.equal(JSON.stringify(rawOf(r)), JSON.stringify(want.raw), `row ${i}: raw's JSON text`);
    assert.deepEqual(Object.keys(r).filter((k) => !(RECORD_FIELDS as readonly string[]).includes(k) && k !== 'shape'), [], `row ${i}: no other field`);
  });
}
