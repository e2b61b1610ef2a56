// Shared by the RecordStore tests (records.store.test.ts, records.storeDisk.test.ts): a fake API
// with a deterministic data set, the buckets of a fixed "now", and scopes.
import { rawOf } from '../../src/api/rawRow';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord, FetchResult } from '../../src/api/types';
import { buildBuckets, DAY_MS } from '../../src/records/buckets';
import type { RecordScope } from '../../src/records/recordStore';

export const HOUR = 3_600_000;
export const API_KEY = 'SECRET-KEY-7f3a9c-do-not-store';
export const scope: RecordScope = { accountId: 'acct-1', baseUrl: 'http://127.0.0.1:9', apiKey: API_KEY, organizationId: 'org/1 ü' };
export const otherOrg: RecordScope = { ...scope, organizationId: 'org-2' };
export const now = new Date('2026-11-21T12:00:00.000Z');
export const buckets = buildBuckets(now);
export const last7 = buckets[0]!;
export const last30 = buckets[1]!;
export const nov = buckets[2]!;
export const oct = buckets[3]!;
export const sep = buckets[4]!;
export const octDay = (d: number) => oct.children!.find((x) => x.start.getUTCDate() === d)!;

/**
 * The fake API's whole data set: one row every 5 hours, plus one at the first and one at the
 * very last millisecond of each day. `version` changes the email counts, to tell a re-fetch from cached data.
 */
export function recordAt(t: number, version: number): DmarcRecord {
  const i = Math.floor(t / HOUR);
  const wire: Record<string, unknown> = {
    source: ['Google', 'Microsoft', 'Unknown'][i % 3],
    reporter: 'google.com',
    visibleFrom: 'example.com',
    returnPath: 'bounce.example.com',
    ipAddress: `198.51.100.${i % 200}`,
    ipCountryCode: 'US',
    rdns: i % 7 === 0 ? [] : [`mail${i % 11}.example.net`],
    emails: 1 + (i % 13) + version * 1000,
    category: 'authorized',
    date: new Date(t).toISOString(),
    dmarc: 'none',
    alignedSpf: i % 4 === 0 ? 'fail' : 'pass',
    alignedDkim: 'pass',
    spf: 'pass',
    dkims: [{ selector: 'sel', domain: 'example.com', result: 'pass', extra: { nested: [1, 2.5, null] } }],
    from: 'example.com',
    note: 'line\u2028separator \u2029 "quoted" \n newline',
  };
  // The record the client makes of that row (the disk cache makes it again from the row).
  const r = normaliseRow(wire);
  if (!('record' in r)) throw new Error(r.reason);
  return r.record;
}

export function dataset(start: number, end: number, version = 0): DmarcRecord[] {
  const out: DmarcRecord[] = [];
  const first = Math.ceil(start / (5 * HOUR)) * 5 * HOUR;
  const times = new Set<number>();
  for (let t = first; t <= end; t += 5 * HOUR) times.add(t);
  for (let d = Math.floor(start / DAY_MS) * DAY_MS; d <= end; d += DAY_MS) {
    if (d >= start) times.add(d);
    if (d + DAY_MS - 1 >= start && d + DAY_MS - 1 <= end) times.add(d + DAY_MS - 1);
  }
  for (const t of [...times].sort((a, b) => a - b)) out.push(recordAt(t, version));
  return out;
}

export interface Call { start: Date; end: Date; scope: RecordScope; signal: AbortSignal | undefined }

/** A counting stand-in for the HTTP client (tested on its own against the local server). */
export class FakeApi {
  calls: Call[] = [];
  version = 0;
  fail: Error | undefined;
  /** Each call waits for this while set (to hold requests in flight). */
  gate: Promise<void> | undefined;
  /** Add rows just outside the range, as a sloppy server might. */
  leaky = false;

  fetch = async (s: RecordScope, start: Date, end: Date, signal?: AbortSignal): Promise<FetchResult> => {
    this.calls.push({ start, end, scope: s, signal });
    if (this.gate) {
      await new Promise<void>((resolve, reject) => {
        this.gate!.then(resolve);
        signal?.addEventListener('abort', () => reject(Object.assign(new Error('cancelled'), { kind: 'cancelled' })));
      });
    }
    if (this.fail) throw this.fail;
    const records = dataset(start.getTime(), end.getTime(), this.version);
    if (this.leaky) {
      records.unshift(recordAt(start.getTime() - 1, this.version));
      records.push(recordAt(end.getTime() + 1, this.version));
    }
    return {
      records,
      warnings: [{ field: 'category', value: 'x', count: 1, firstIndex: 0, message: `v${this.version}` }],
      rejected: { count: 0, samples: [] },
    };
  };
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

export const expectRecords = (start: Date, end: Date, version = 0) => dataset(start.getTime(), end.getTime(), version);

/**
 * Records as the disk cache stores them: with `raw` (built again for one that holds its row's
 * shape, src/api/rawRow.ts) and no `shape`. Records read back hold the shape instead of a row
 * of documented fields only, as they do when they come from the server: compare through this.
 */
export function asStored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (isRecord(v) ? { ...v, raw: rawOf(v), shape: undefined } : v))) as T;
}

function isRecord(v: unknown): v is DmarcRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'dateMs' in v && 'dkims' in v;
}
