/**
 * A period's health from its records: every source with its mix (emails per class), verdict and
 * fix, and readiness for the organization and each Header From domain (tally.ts, which the
 * panel's Advice feeds from its columns). What the tree's Health item shows. One pass over the
 * rows; the row rules (reasons.ts) run here, on the host, as where rows are encoded for the panel.
 * Report files' rows carry the policy their report states: readiness takes the latest one seen
 * for each Header From domain (and for them all), unless `policyOf` says otherwise. The owner's
 * marks (`opts.marks`, marks.ts) map each row's class before it is counted, IPs' mixes included.
 */
import type { DmarcRecord, PublishedPolicy } from '../api/types';
import { contextOf } from './context';
import { adviceOf } from './reasons';
import { AdviceTally, dispositionCode, type PeriodHealth, type SourceAdvice, type TallyOptions } from './tally';
import { CLASS_INDEX, emptyMix, verdictOf } from './verdict';

export type { DomainReadiness, PeriodHealth, Published, SourceAdvice } from './tally';
export type HealthOptions = TallyOptions;

/** The latest policy stated by the rows' reports, per Header From domain and over all (none for API rows). */
export function publishedOf(records: readonly DmarcRecord[]): { byDomain: Map<string, PublishedPolicy>; latest: PublishedPolicy | undefined } {
  const byDomain = new Map<string, PublishedPolicy>();
  const at = new Map<string, number>();
  let latest: PublishedPolicy | undefined;
  let latestAt = -Infinity;
  for (const r of records) {
    const p = r.published;
    if (!p) continue;
    if (!(r.dateMs < (at.get(r.visibleFrom) ?? -Infinity))) {
      byDomain.set(r.visibleFrom, p);
      at.set(r.visibleFrom, r.dateMs);
    }
    if (!(r.dateMs < latestAt)) {
      latest = p;
      latestAt = r.dateMs;
    }
  }
  return { byDomain, latest };
}

/** A source's Compliant rows per Header From: emails and rows, given to the tally once per pair. */
type CompliantPairs = Map<string, [number, number]>;

const NO_SIGNATURES = (): readonly never[] => [];

/**
 * The sources' IPs with their mixes and verdicts, made when first read (the tree reads them when
 * a source is expanded): from the source's rows and the classes the main pass gave them (one pass
 * over the records then: a list of rows per source cost every period more than it saves).
 */
function lazyIps(o: SourceAdvice, records: readonly DmarcRecord[], classes: Uint8Array, compliantShare: number): void {
  let ips: SourceAdvice['ips'] | undefined;
  Object.defineProperty(o, 'ips', {
    enumerable: true,
    configurable: true,
    get(): SourceAdvice['ips'] {
      if (ips) return ips;
      ips = new Map();
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!;
        if (r.source !== o.source) continue;
        let ip = ips.get(r.ipAddress);
        if (!ip) ips.set(r.ipAddress, (ip = { mix: emptyMix(), verdict: '' }));
        ip.mix[classes[i]!] += r.emails;
      }
      for (const ip of ips.values()) ip.verdict = verdictOf(ip.mix, compliantShare);
      return ips;
    },
  });
}

export function periodHealth(records: readonly DmarcRecord[], opts: HealthOptions): PeriodHealth {
  const tally = new AdviceTally(false, opts.marks);
  const classes = new Uint8Array(records.length);
  const sources = new Map<string, CompliantPairs>();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    // Compliant by its fields alone (the first rule): no reasons to work out, only sums.
    if (r.alignedSpf === 'pass' || r.alignedDkim === 'pass') {
      let s = sources.get(r.source);
      if (!s) sources.set(r.source, (s = new Map()));
      const c = s.get(r.visibleFrom);
      if (c) {
        c[0] += r.emails;
        c[1]++;
      } else s.set(r.visibleFrom, [r.emails, 1]);
      continue;
    }
    const a = adviceOf(r, contextOf(r));
    // The class counted: the row's, after its source's mark.
    classes[i] = tally.add(r.source, r.ipAddress, r.visibleFrom, r.returnPath, CLASS_INDEX[a.cls], a.spf, a.dkim, dispositionCode(r.dmarc), r.emails, () => r.dkims);
  }
  for (const [source, s] of sources)
    for (const [from, [emails, rows]] of s) tally.add(source, '', from, '', CLASS_INDEX.compliant, '', '', 0, emails, NO_SIGNATURES, rows);
  let health: PeriodHealth;
  if (opts.policyOf || opts.policy) health = tally.finish(opts);
  else {
    const published = publishedOf(records);
    health = published.latest ? tally.finish({ ...opts, policy: published.latest, policyOf: (d) => published.byDomain.get(d) }) : tally.finish(opts);
  }
  for (const o of health.sources) lazyIps(o, records, classes, opts.thresholds.compliant);
  return health;
}
