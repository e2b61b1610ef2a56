/**
 * Am I ready to enforce? For an organization or a Header From domain over a period: the share of
 * legitimate mail (every class but Unauthenticated) that passes DMARC, what p=quarantine or
 * p=reject would do to it today, what receivers already did, and one next step with its reason.
 * The README's "Ready for p=reject?" states the rules; the thresholds are settings.
 *
 *   no emails                                   → nothing to judge
 *   a Needs-fixing source's mail is quarantined
 *   or rejected by receivers today               → fix those sources first: legitimate mail is lost now
 *   share < quarantine bar, Needs-fixing sources → fix N sources first (their share of legitimate mail)
 *   share < quarantine bar, none                 → the failing legitimate mail is forwarded: watch it
 *   share ≥ reject bar                           → ready for p=reject (p=quarantine first when p=none is published)
 *   share ≥ quarantine bar                       → ready for p=quarantine
 * A published p=reject that already holds says so; `t=y` (RFC 9989 test mode) and a pct under 100
 * (RFC 7489; DMARCbis removed it) are named, since receivers then apply less than p says.
 *
 * The webview imports this file: it must stay free of zod, tldts-icann and `vscode`.
 */
import * as l10n from '@vscode/l10n';
import { RateFormat } from '../shared/percent';
import { type Mix } from './verdict';
import type { AdviceThresholds } from './vocabulary';

export interface SourceAtRisk {
  source: string;
  /** Its legitimate emails that fail DMARC (Needs fixing and Forwarded). */
  failing: number;
  /** Of those, the emails receivers quarantined or rejected. */
  lost: number;
}

export interface ReadinessInput {
  mix: Readonly<Mix>;
  /** Sources whose verdict is Needs fixing, most failing emails first. */
  fixSources: readonly SourceAtRisk[];
  /** Legitimate emails that fail DMARC, by the disposition receivers applied. */
  observed: { quarantine: number; reject: number };
  /** Days in the period, for "over 30 days". */
  days: number;
  /** The published policy, when report files carry it (the API does not). */
  policy?: { p?: string; pct?: number; testing?: string };
}

export type StepKind = 'no-mail' | 'losing' | 'fix' | 'forwarded' | 'quarantine' | 'reject' | 'enforced';

export interface Readiness {
  emails: number;
  legitimate: number;
  legitimatePass: number;
  /** legitimatePass / legitimate; undefined without legitimate mail. */
  share: number | undefined;
  /** Legitimate mail that p=quarantine or p=reject would quarantine or reject today, and its sources. */
  atRisk: { emails: number; sources: number };
  /** Unauthenticated mail enforcement would stop. */
  stopped: number;
  observed: { quarantine: number; reject: number };
  /** Needs-fixing sources whose mail receivers quarantine or reject now, most first. */
  losing: readonly SourceAtRisk[];
  step: { kind: StepKind; text: string };
}

export function readiness(input: ReadinessInput, bars: Pick<AdviceThresholds, 'quarantine' | 'reject'>, locale?: string): Readiness {
  const [compliant, forwarded, needsFixing, unauthenticated] = input.mix;
  const emails = compliant + forwarded + needsFixing + unauthenticated;
  const legitimate = compliant + forwarded + needsFixing;
  const share = legitimate > 0 ? compliant / legitimate : undefined;
  const losing = input.fixSources.filter((s) => s.lost > 0).sort((a, b) => b.lost - a.lost);
  const atRiskSources = input.fixSources.filter((s) => s.failing > 0).length;
  const out: Readiness = {
    emails,
    legitimate,
    legitimatePass: compliant,
    share,
    atRisk: { emails: forwarded + needsFixing, sources: atRiskSources },
    stopped: unauthenticated,
    observed: input.observed,
    losing,
    step: { kind: 'no-mail', text: '' },
  };
  out.step = stepOf(out, input, bars, locale);
  return out;
}

function stepOf(r: Readiness, input: ReadinessInput, bars: Pick<AdviceThresholds, 'quarantine' | 'reject'>, locale?: string): Readiness['step'] {
  const n = new Intl.NumberFormat(locale);
  const pct = new RateFormat(locale);
  const days = input.days === 1 ? l10n.t('1 day') : l10n.t('{0} days', n.format(input.days));
  if (r.emails === 0) return { kind: 'no-mail', text: l10n.t('No mail in this period: nothing to judge yet.') };
  if (r.share === undefined) return { kind: 'fix', text: l10n.t('None of this mail authenticates: if any of it is yours, set up SPF and DKIM for it before enforcing.') };
  const fixing = input.fixSources.filter((s) => s.failing > 0);
  const fixShare = pct.format(fixing.reduce((a, s) => a + s.failing, 0) / r.legitimate);
  const passing = pct.format(r.share);
  const p = input.policy?.p;
  const notes: string[] = [];
  if (input.policy?.testing === 'y') notes.push(l10n.t('The policy is in test mode (t=y): receivers apply one step less than p says.'));
  if (input.policy?.pct !== undefined && input.policy.pct < 100) notes.push(l10n.t('pct={0}: receivers apply the policy to that share of failing mail only (DMARCbis removed pct).', input.policy.pct));
  const tail = notes.length ? ` ${notes.join(' ')}` : '';
  if (r.losing.length > 0) {
    const first = r.losing[0]!;
    const more = r.losing.length > 1 ? l10n.t(' (+{0} more sources)', r.losing.length - 1) : '';
    return {
      kind: 'losing',
      text: (first.lost === 1
        ? l10n.t('Legitimate mail is being lost: {0} had 1 email quarantined or rejected in {1}{2}. Fix it first.', first.source, days, more)
        : l10n.t('Legitimate mail is being lost: {0} had {1} emails quarantined or rejected in {2}{3}. Fix it first.', first.source, n.format(first.lost), days, more)) + tail,
    };
  }
  if (r.share < bars.quarantine) {
    if (fixing.length > 0)
      return {
        kind: 'fix',
        text: (fixing.length === 1
          ? l10n.t('Fix 1 source first: it sends {0} of your legitimate mail, which fails DMARC.', fixShare)
          : l10n.t('Fix {0} sources first: they send {1} of your legitimate mail, which fails DMARC.', fixing.length, fixShare)) + tail,
      };
    return { kind: 'forwarded', text: l10n.t('{0} of legitimate mail passes; the rest is forwarded mail, which enforcement may lose unless receivers trust the forwarders.', passing) + tail };
  }
  if (r.share >= bars.reject) {
    if (p === 'reject') return { kind: 'enforced', text: l10n.t('Enforced at p=reject: {0} of legitimate mail passes over {1}.', passing, days) + tail };
    if (p === 'none') return { kind: 'quarantine', text: l10n.t('Ready for p=quarantine, then p=reject: {0} of legitimate mail passes over {1}.', passing, days) + tail };
    return { kind: 'reject', text: l10n.t('Ready for p=reject: {0} of legitimate mail passes over {1}.', passing, days) + tail };
  }
  if (p === 'quarantine' || p === 'reject') return { kind: 'enforced', text: l10n.t('Enforced at p={0}: {1} of legitimate mail passes over {2}.', p, passing, days) + tail };
  return { kind: 'quarantine', text: l10n.t('Ready for p=quarantine: {0} of legitimate mail passes over {1}; fix the rest before p=reject.', passing, days) + tail };
}
