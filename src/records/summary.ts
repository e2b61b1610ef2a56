/**
 * Email-weighted summaries of a set of records, for tree descriptions and the panel header.
 * Each function is one pass over the rows with Map lookups, so 100k rows take a few ms.
 *
 * The per-key tallies (`emailsByCategory`, `byCategory`, `emailsByDisposition`) are
 * prototype-less objects: their keys are strings from the server (an unknown category is kept
 * as sent), and a key such as `__proto__` must be counted, not assigned to the prototype.
 */
import type { DmarcRecord } from '../api/types';

export interface Summary {
  rows: number;
  emails: number;
  passEmails: number;
  /** passEmails / emails; undefined when there are no emails (no rate to speak of). */
  passRate: number | undefined;
  /** Emails per category value, as sent (unknown values included). */
  emailsByCategory: Record<string, number>;
  /** Emails per `dmarc` disposition value, as sent. */
  emailsByDisposition: Record<string, number>;
}

export interface IpSummary {
  ipAddress: string;
  /** Every distinct rDNS name seen for this IP under this source, in first-seen order. */
  rdns: string[];
  /** The first country code seen for this IP. */
  ipCountryCode?: string;
  emails: number;
  rows: number;
  passEmails: number;
  /** passEmails / emails (email-weighted, like the source's); undefined when there are no emails. */
  passRate: number | undefined;
}

export interface SourceSummary {
  source: string;
  emails: number;
  rows: number;
  passEmails: number;
  passRate: number | undefined;
  /** Emails per category value. */
  byCategory: Record<string, number>;
  /** Sorted by emails, most first (ties by IP address). */
  ips: IpSummary[];
}

export type Health = 'good' | 'warn' | 'bad';

/**
 * Pass-rate thresholds for `health`. At or above 95% of mail passing DMARC a domain is in good
 * shape (what remains is typically forwarding and a little spoofing); below 80% a legitimate
 * sender is very likely failing alignment and mail is at risk under a quarantine or reject
 * policy.
 */
export const HEALTH_THRESHOLDS = { good: 0.95, warn: 0.8 } as const;

/** good ≥ 95%, warn ≥ 80%, bad below; undefined (no emails) has no health. */
export function health(passRate: number | undefined): Health | undefined {
  if (passRate === undefined || Number.isNaN(passRate)) return undefined;
  if (passRate >= HEALTH_THRESHOLDS.good) return 'good';
  if (passRate >= HEALTH_THRESHOLDS.warn) return 'warn';
  return 'bad';
}

/** A row passes DMARC when SPF or DKIM passed *aligned* with the From domain. */
export function passes(r: DmarcRecord): boolean {
  return r.alignedSpf === 'pass' || r.alignedDkim === 'pass';
}

function tally(): Record<string, number> {
  return Object.create(null) as Record<string, number>;
}

function rate(pass: number, total: number): number | undefined {
  return total > 0 ? pass / total : undefined;
}

export function summarize(records: readonly DmarcRecord[]): Summary {
  let emails = 0;
  let passEmails = 0;
  const byCat = tally();
  const byDisp = tally();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const n = r.emails;
    emails += n;
    if (r.alignedSpf === 'pass' || r.alignedDkim === 'pass') passEmails += n;
    byCat[r.category] = (byCat[r.category] ?? 0) + n;
    byDisp[r.dmarc] = (byDisp[r.dmarc] ?? 0) + n;
  }
  return {
    rows: records.length,
    emails,
    passEmails,
    passRate: rate(passEmails, emails),
    emailsByCategory: byCat,
    emailsByDisposition: byDisp,
  };
}

interface SourceAcc {
  out: SourceSummary;
  ips: Map<string, IpSummary>;
  /** rDNS sets of the IPs with many names, so de-duplicating them stays O(1) per name. */
  rdnsSets: Map<IpSummary, Set<string>> | undefined;
}

/** Beyond this many rDNS names on one IP, de-duplicate with a Set rather than `includes`. */
const RDNS_LINEAR_MAX = 8;

/** Per sending source, sorted by emails, most first (ties by source name). */
export function bySource(records: readonly DmarcRecord[]): SourceSummary[] {
  const sources = new Map<string, SourceAcc>();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    let acc = sources.get(r.source);
    if (!acc) {
      acc = {
        out: { source: r.source, emails: 0, rows: 0, passEmails: 0, passRate: undefined, byCategory: tally(), ips: [] },
        ips: new Map(),
        rdnsSets: undefined,
      };
      sources.set(r.source, acc);
    }
    const s = acc.out;
    const n = r.emails;
    s.emails += n;
    s.rows++;
    const pass = r.alignedSpf === 'pass' || r.alignedDkim === 'pass';
    if (pass) s.passEmails += n;
    s.byCategory[r.category] = (s.byCategory[r.category] ?? 0) + n;

    let ip = acc.ips.get(r.ipAddress);
    if (!ip) {
      ip = { ipAddress: r.ipAddress, rdns: [], emails: 0, rows: 0, passEmails: 0, passRate: undefined };
      acc.ips.set(r.ipAddress, ip);
    }
    ip.emails += n;
    ip.rows++;
    if (pass) ip.passEmails += n;
    if (ip.ipCountryCode === undefined && r.ipCountryCode !== undefined) ip.ipCountryCode = r.ipCountryCode;
    const names = ip.rdns;
    for (let k = 0; k < r.rdns.length; k++) {
      const name = r.rdns[k]!;
      if (names.length < RDNS_LINEAR_MAX) {
        if (!names.includes(name)) names.push(name);
        continue;
      }
      acc.rdnsSets ??= new Map();
      let set = acc.rdnsSets.get(ip);
      if (!set) {
        set = new Set(names);
        acc.rdnsSets.set(ip, set);
      }
      if (!set.has(name)) {
        set.add(name);
        names.push(name);
      }
    }
  }
  const out: SourceSummary[] = [];
  for (const { out: s, ips } of sources.values()) {
    s.passRate = rate(s.passEmails, s.emails);
    for (const ip of ips.values()) ip.passRate = rate(ip.passEmails, ip.emails);
    s.ips = Array.from(ips.values()).sort((a, b) => b.emails - a.emails || cmp(a.ipAddress, b.ipAddress));
    out.push(s);
  }
  return out.sort((a, b) => b.emails - a.emails || cmp(a.source, b.source));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
