/**
 * The sums behind a period's health, row by row: per source its mix (emails per class), per IP
 * its mix, what its failing rows show for its fix, and per scope (the whole set and each Header
 * From domain) what readiness needs. One implementation for the tree (health.ts feeds it
 * DmarcRecords) and the panel's Advice (fed from its columns), so both say the same.
 *
 * Fix facts are taken from the failing rows (not Compliant) only: the Header From with the most
 * of their emails; the Return-Paths of those whose SPF passes unaligned; the d= and selectors of
 * the passing signatures of those signed only by another domain; the selectors of the
 * signatures that do not pass, of those whose own signature fails or errs; their IPs.
 *
 * The owner's marks (marks.ts) move a marked source's failing rows between classes before they
 * are counted: its mix, verdict and fix, and every scope's readiness, follow them.
 *
 * The webview imports this file: it must stay free of zod, tldts-icann and `vscode`.
 */
import { fixText, type FixFacts } from './fix';
import { markedClass, type Marks, type SourceMark } from './marks';
import { readiness, type Readiness, type SourceAtRisk } from './readiness';
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
  /** Legitimate emails that fail DMARC (Forwarded, Needs fixing), and those of them receivers quarantined or rejected. */
  failing: number;
  lost: number;
  /** Per sending IP: its mix and verdict. */
  ips: Map<string, { mix: Mix; verdict: Verdict }>;
  /** The owner's mark on the source, when it has one. */
  mark?: SourceMark;
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
  /** Most failing emails first, then most emails, then by name. */
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

export interface TallyOptions {
  thresholds: AdviceThresholds;
  days: number;
  /** The policy published for the whole set (the organization's readiness), and per Header From domain. */
  policy?: Published;
  policyOf?: (headerFrom: string) => Published | undefined;
  locale?: string;
  /** The owner's marks on the sources (marks.ts), read where rows are added (`new AdviceTally(…, marks)`). */
  marks?: Marks;
}

/** A DKIM signature as the tally reads it. */
export interface TallySignature {
  readonly domain: string;
  readonly selector: string;
  readonly result: string;
}

/** Dispositions as codes: 0 none, 1 quarantine, 2 reject, 3 anything else. */
export const DISPOSITION_CODES: Readonly<Record<string, number>> = { none: 0, quarantine: 1, reject: 2 };
export const dispositionCode = (d: string): number => (Object.prototype.hasOwnProperty.call(DISPOSITION_CODES, d) ? DISPOSITION_CODES[d]! : 3);

class Counts {
  readonly m = new Map<string, number>();
  add(k: string, n: number): void {
    if (k) this.m.set(k, (this.m.get(k) ?? 0) + n);
  }
  /** The n with the most, ties by name: kept in a small sorted list (a source can have thousands of IPs). */
  top(n = 5): string[] {
    const best: [string, number][] = [];
    const before = (a: [string, number], b: [string, number]): boolean => a[1] > b[1] || (a[1] === b[1] && a[0] < b[0]);
    for (const e of this.m) {
      if (best.length === n && !before(e, best[n - 1]!)) continue;
      let k = best.length < n ? best.length : n - 1;
      best[k] = e;
      for (; k > 0 && before(best[k]!, best[k - 1]!); k--) [best[k], best[k - 1]] = [best[k - 1]!, best[k]!];
    }
    return best.map((e) => e[0]);
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

const FORWARDED = CLASS_INDEX.forwarded;
const NEEDS_FIXING = CLASS_INDEX['needs-fixing'];
const COMPLIANT = CLASS_INDEX.compliant;
const UNAUTHENTICATED = CLASS_INDEX.unauthenticated;

/** Adds to a scope's mix and what receivers did; and to its source's sums, unless the scope takes them from the sources (the whole set). */
function addScope(s: ScopeAcc, source: string | undefined, cls: number, emails: number, disposition: number): void {
  s.mix[cls] += emails;
  if (source === undefined) {
    if ((cls === FORWARDED || cls === NEEDS_FIXING) && (disposition === 1 || disposition === 2)) s.observed[disposition === 1 ? 'quarantine' : 'reject'] += emails;
    return;
  }
  let src = s.sources.get(source);
  if (!src) s.sources.set(source, (src = { failing: 0, lost: 0, mix: emptyMix() }));
  src.mix[cls] += emails;
  if (cls === FORWARDED || cls === NEEDS_FIXING) {
    src.failing += emails;
    if (disposition === 1) {
      src.lost += emails;
      s.observed.quarantine += emails;
    } else if (disposition === 2) {
      src.lost += emails;
      s.observed.reject += emails;
    }
  }
}

function readinessOf(s: ScopeAcc, opts: TallyOptions, policy?: Published): Readiness {
  const fixSources: SourceAtRisk[] = [];
  for (const [source, v] of s.sources)
    if (verdictOf(v.mix, opts.thresholds.compliant) === 'needs-fixing') fixSources.push({ source, failing: v.failing, lost: v.lost });
  fixSources.sort((a, b) => b.failing - a.failing || (a.source < b.source ? -1 : 1));
  return readiness({ mix: s.mix, fixSources, observed: s.observed, days: opts.days, policy }, opts.thresholds, opts.locale);
}

export class AdviceTally {
  /**
   * `ipMixes`: count each source's IPs' mixes as rows come (SourceAdvice.ips); without it they
   * stay empty, for a caller that does without them (the panel) or works them out when asked
   * (health.ts: a map per source and IP for every row was most of the tree's cost). `marks`: the
   * owner's marks, which map each row's class before it is counted (marks.ts markedClass).
   */
  constructor(
    private readonly ipMixes = false,
    private readonly marks?: Marks,
  ) {}

  private readonly all = scope();
  private readonly domains = new Map<string, ScopeAcc>();
  private readonly sources = new Map<string, SourceAcc>();

  /**
   * One row. `cls` is its class's index (CLASS_INDEX; any other number is not counted), `spf` and
   * `dkim` its reasons, `disposition` a DISPOSITION_CODES code; `sigs` gives its signatures, and is
   * called only for the failing rows whose fix names them. `rows` > 1 adds that many rows alike
   * at once (their emails summed); an `ip` of '' is counted in no IP's mix (nor is any without `ipMixes`).
   * Returns the class counted (after the source's mark), or -1 when the row was not counted.
   */
  add(
    source: string, ip: string, headerFrom: string, returnPath: string, cls: number, spf: string, dkim: string, disposition: number, emails: number,
    sigs: () => readonly TallySignature[], rows = 1,
  ): number {
    if (!(cls >= COMPLIANT && cls <= UNAUTHENTICATED)) return -1;
    const mark = this.marks?.get(source);
    if (mark) cls = markedClass(cls, mark);
    addScope(this.all, undefined, cls, emails, disposition);
    let d = this.domains.get(headerFrom);
    if (!d) this.domains.set(headerFrom, (d = scope()));
    addScope(d, source, cls, emails, disposition);
    let s = this.sources.get(source);
    if (!s) {
      const out: SourceAdvice = {
        source, emails: 0, rows: 0, mix: emptyMix(), verdict: '', passRate: undefined, fix: '', failing: 0, lost: 0, ips: new Map(),
        facts: { headerFrom: '', spf: {}, dkim: {}, returnPaths: [], otherDomains: [], selectors: [], ips: [] },
        ...(mark ? { mark } : {}),
      };
      s = { out, from: new Counts(), spf: {}, dkim: {}, returnPaths: new Counts(), otherDomains: new Counts(), selectors: new Counts(), ips: new Counts() };
      this.sources.set(source, s);
    }
    const o = s.out;
    o.emails += emails;
    o.rows += rows;
    o.mix[cls] += emails;
    if (ip && this.ipMixes) {
      let ipAcc = o.ips.get(ip);
      if (!ipAcc) o.ips.set(ip, (ipAcc = { mix: emptyMix(), verdict: '' }));
      ipAcc.mix[cls] += emails;
    }
    if (cls === COMPLIANT) return cls;
    if (cls !== UNAUTHENTICATED) {
      o.failing += emails;
      if (disposition === 1 || disposition === 2) o.lost += emails;
    }
    s.from.add(headerFrom, emails);
    s.spf[spf as SpfReason] = (s.spf[spf as SpfReason] ?? 0) + emails;
    s.dkim[dkim as DkimReason] = (s.dkim[dkim as DkimReason] ?? 0) + emails;
    s.ips.add(ip, emails);
    if (spf === 'spf-unaligned-pass') s.returnPaths.add(returnPath, emails);
    if (dkim === 'dkim-other-domain') {
      for (const sig of sigs())
        if (sig.result === 'pass') {
          s.otherDomains.add(sig.domain, emails);
          s.selectors.add(sig.selector, emails);
        }
    } else if (dkim === 'dkim-aligned-fails' || dkim === 'dkim-error') {
      for (const sig of sigs()) if (sig.result !== 'pass') s.selectors.add(sig.selector, emails);
    }
    return cls;
  }

  finish(opts: TallyOptions): PeriodHealth {
    const list: SourceAdvice[] = [];
    for (const s of this.sources.values()) {
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
      o.fix = fixText(o.verdict, o.facts, o.mark);
      list.push(o);
    }
    list.sort((a, b) => failingEmails(b.mix) - failingEmails(a.mix) || b.emails - a.emails || (a.source < b.source ? -1 : 1));
    const domainList = [...this.domains].map(([domain, acc]) => ({ domain, acc, emails: acc.mix[0] + failingEmails(acc.mix) }));
    domainList.sort((a, b) => b.emails - a.emails || (a.domain < b.domain ? -1 : 1));
    return {
      mix: this.all.mix,
      readiness: readinessOf({ ...this.all, sources: new Map([...this.sources].map(([k, s]) => [k, s.out])) }, opts, opts.policy),
      domains: domainList.map(({ domain, acc }) => ({ domain, readiness: readinessOf(acc, opts, opts.policyOf?.(domain)) })),
      sources: list,
    };
  }
}
