/**
 * A period's health from its rows: every source with its mix (emails per class), verdict and
 * fix, and readiness for the organization and each Header From domain. What the tree's Health
 * item shows; the panel's Advice computes the same from its columns with the same rules
 * (reasons.ts, verdict.ts, fix.ts, readiness.ts). One pass over the rows.
 */
import type { DmarcRecord } from '../api/types';
import { type FixFacts, fixText } from './fix';
import { overridesOf } from './overrides';
import { readiness, type Readiness, type SourceAtRisk } from './readiness';
import { adviceOf, aligns, type RowContext } from './reasons';
import { CLASS_INDEX, emptyMix, failingEmails, type Mix, verdictOf } from './verdict';
import type { AdviceThresholds, DkimReason, SpfReason, Verdict } from './vocabulary';

export interface SourceAdvice {
  source: string;
  emails: number;
  rows: number;
  mix: Mix;
  verdict: Verdict;
  /** Passing emails / emails; undefined without emails. */
  passRate: number | undefined;
  fix: string;
  facts: FixFacts;
  /** Legitimate emails that fail DMARC, and those of them receivers quarantined or rejected. */
  failing: number;
  lost: number;
  /** Per sending IP: its mix and verdict. */
  ips: Map<string, { mix: Mix; verdict: Verdict }>;
}

export interface DomainReadiness {
  domain: string;
  readiness: Readiness;
}

export interface PeriodHealth {
  mix: Mix;
  readiness: Readiness;
  /** Per Header From domain, most emails first. */
  domains: DomainReadiness[];
  /** Most failing emails first, then most emails. */
  sources: SourceAdvice[];
}

/** What a report file publishes for a Header From domain (the API gives none). */
export interface Published {
  p?: string;
  pct?: number;
  testing?: string;
  adkim?: string;
  aspf?: string;
}

export interface HealthOptions {
  thresholds: AdviceThresholds;
  days: number;
  policyOf?: (headerFrom: string) => Published | undefined;
  locale?: string;
}

class Counts {
  readonly m = new Map<string, number>();
  add(k: string, n: number): void {
    if (k) this.m.set(k, (this.m.get(k) ?? 0) + n);
  }
  top(n = 5): string[] {
    return [...this.m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n).map((e) => e[0]);
  }
}

interface SourceAcc {
  out: SourceAdvice;
  from: Counts;
  spf: Partial<Record<SpfReason, number>>;
  dkim: Partial<Record<DkimReason, number>>;
  returnPaths: Counts;
  otherDomains: Counts;
  selectors: Counts;
  ips: Counts;
}

interface ScopeAcc {
  mix: Mix;
  observed: { quarantine: number; reject: number };
  sources: Map<string, { failing: number; lost: number; mix: Mix }>;
}

const scope = (): ScopeAcc => ({ mix: emptyMix(), observed: { quarantine: 0, reject: 0 }, sources: new Map() });

function addScope(s: ScopeAcc, source: string, cls: number, emails: number, disposition: string): void {
  s.mix[cls] += emails;
  let src = s.sources.get(source);
  if (!src) s.sources.set(source, (src = { failing: 0, lost: 0, mix: emptyMix() }));
  src.mix[cls] += emails;
  if (cls === CLASS_INDEX.forwarded || cls === CLASS_INDEX['needs-fixing']) {
    src.failing += emails;
    if (disposition === 'quarantine' || disposition === 'reject') {
      src.lost += emails;
      s.observed[disposition] += emails;
    }
  }
}

function readinessOf(s: ScopeAcc, opts: HealthOptions, policy?: Published): Readiness {
  const fixSources: SourceAtRisk[] = [];
  for (const [source, v] of s.sources)
    if (verdictOf(v.mix, opts.thresholds.compliant) === 'needs-fixing') fixSources.push({ source, failing: v.failing, lost: v.lost });
  fixSources.sort((a, b) => b.failing - a.failing || (a.source < b.source ? -1 : 1));
  return readiness({ mix: s.mix, fixSources, observed: s.observed, days: opts.days, policy }, opts.thresholds, opts.locale);
}

export function periodHealth(records: readonly DmarcRecord[], opts: HealthOptions): PeriodHealth {
  const all = scope();
  const domains = new Map<string, ScopeAcc>();
  const sources = new Map<string, SourceAcc>();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const policy = opts.policyOf?.(r.visibleFrom);
    const overrides = r.raw ? overridesOf(r) : undefined;
    const ctx: RowContext | undefined = policy || overrides ? { adkim: policy?.adkim, aspf: policy?.aspf, overrides } : undefined;
    const a = adviceOf(r, ctx);
    const cls = CLASS_INDEX[a.cls];
    const n = r.emails;
    addScope(all, r.source, cls, n, r.dmarc);
    let d = domains.get(r.visibleFrom);
    if (!d) domains.set(r.visibleFrom, (d = scope()));
    addScope(d, r.source, cls, n, r.dmarc);
    let s = sources.get(r.source);
    if (!s) {
      const out: SourceAdvice = {
        source: r.source, emails: 0, rows: 0, mix: emptyMix(), verdict: '', passRate: undefined, fix: '', failing: 0, lost: 0, ips: new Map(),
        facts: { headerFrom: '', spf: {}, dkim: {}, returnPaths: [], otherDomains: [], selectors: [], ips: [] },
      };
      s = { out, from: new Counts(), spf: {}, dkim: {}, returnPaths: new Counts(), otherDomains: new Counts(), selectors: new Counts(), ips: new Counts() };
      sources.set(r.source, s);
    }
    const o = s.out;
    o.emails += n;
    o.rows++;
    o.mix[cls] += n;
    let ip = o.ips.get(r.ipAddress);
    if (!ip) o.ips.set(r.ipAddress, (ip = { mix: emptyMix(), verdict: '' }));
    ip.mix[cls] += n;
    if (cls === CLASS_INDEX.compliant) continue;
    if (cls !== CLASS_INDEX.unauthenticated) {
      o.failing += n;
      if (r.dmarc === 'quarantine' || r.dmarc === 'reject') o.lost += n;
    }
    s.from.add(r.visibleFrom, n);
    s.spf[a.spf] = (s.spf[a.spf] ?? 0) + n;
    s.dkim[a.dkim] = (s.dkim[a.dkim] ?? 0) + n;
    s.ips.add(r.ipAddress, n);
    if (a.spf === 'spf-unaligned-pass') s.returnPaths.add(r.returnPath, n);
    for (const sig of r.dkims) {
      const mine = aligns(sig.domain, r.visibleFrom, ctx?.adkim === 's');
      if (sig.result === 'pass' && !mine && a.dkim === 'dkim-other-domain') {
        s.otherDomains.add(sig.domain, n);
        s.selectors.add(sig.selector, n);
      } else if (mine && a.dkim !== 'dkim-other-domain') s.selectors.add(sig.selector, n);
    }
  }
  const list: SourceAdvice[] = [];
  for (const s of sources.values()) {
    const o = s.out;
    o.verdict = verdictOf(o.mix, opts.thresholds.compliant);
    o.passRate = o.emails > 0 ? o.mix[0] / o.emails : undefined;
    for (const ip of o.ips.values()) ip.verdict = verdictOf(ip.mix, opts.thresholds.compliant);
    o.facts = {
      headerFrom: s.from.top(1)[0] ?? '',
      spf: s.spf,
      dkim: s.dkim,
      returnPaths: s.returnPaths.top(),
      otherDomains: s.otherDomains.top(),
      selectors: s.selectors.top(3),
      ips: s.ips.top(3),
    };
    o.fix = fixText(o.verdict, o.facts);
    list.push(o);
  }
  list.sort((a, b) => failingEmails(b.mix) - failingEmails(a.mix) || b.emails - a.emails || (a.source < b.source ? -1 : 1));
  const domainList = [...domains].map(([domain, acc]) => ({ domain, acc, emails: acc.mix[0] + failingEmails(acc.mix) }));
  domainList.sort((a, b) => b.emails - a.emails || (a.domain < b.domain ? -1 : 1));
  return {
    mix: all.mix,
    readiness: readinessOf(all, opts),
    domains: domainList.map(({ domain, acc }) => ({ domain, readiness: readinessOf(acc, opts, opts.policyOf?.(domain)) })),
    sources: list,
  };
}
