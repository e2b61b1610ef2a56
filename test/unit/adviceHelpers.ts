/** Shared by the advice's unit tests: hand-made records and the options they judge them with. */
import type { DmarcRecord } from '../../src/api/types';
import { DEFAULT_THRESHOLDS } from '../../src/advice/vocabulary';

let n = 0;

/**
 * A record with the row fields given (the rest fail, from an unknown source to acme.com), each a
 * millisecond after the one before; `reason` puts an override reason in its raw XML object.
 */
export function rec(over: Partial<DmarcRecord> & { reason?: string }): DmarcRecord {
  const { reason, ...rest } = over;
  const r: DmarcRecord = {
    source: 'Unknown', reporter: 'google.com', visibleFrom: 'acme.com', returnPath: 'acme.com', ipAddress: '203.0.113.9', rdns: [],
    emails: 1, category: 'rejected', date: '2026-11-01T00:00:00Z', dateMs: Date.UTC(2026, 10, 1) + n++, dmarc: 'none',
    alignedSpf: 'fail', alignedDkim: 'fail', spf: 'fail', dkims: [], ...rest,
  };
  if (reason) r.raw = { row: { policy_evaluated: { reason: { type: reason } } } };
  return r;
}

export const dk = (domain: string, result: string, selector = 's1') => ({ domain, result, selector });
export const opts = { thresholds: { ...DEFAULT_THRESHOLDS }, days: 30, locale: 'en-US' };
