/**
 * The words of the advice rules: every reason a row's SPF or DKIM side gets, every class a row
 * falls in, and the verdicts a group gets, each with the rule behind it. One list for the rules
 * (src/advice/reasons.ts), the README's tables, the panel's tooltips and the tree's, so what the
 * product says and what it computes cannot drift apart (test/unit/adviceVocabulary.test.ts
 * checks the README against this file).
 *
 * The webview imports this file: it must stay free of zod, tldts-icann and `vscode`. Its words go
 * through `@vscode/l10n` when first asked for (after the extension or the webview loaded its
 * bundle), never at import.
 */
import * as l10n from '@vscode/l10n';

/** Why a row's SPF side passes or fails DMARC, one reason per row. */
export const SPF_REASONS = [
  'spf-aligned-pass', 'spf-unaligned-pass', 'spf-not-allowed-own', 'spf-not-allowed-other', 'spf-none', 'spf-error', 'spf-unknown',
] as const;
export type SpfReason = (typeof SPF_REASONS)[number];

/** Why a row's DKIM side passes or fails DMARC, one reason per row. */
export const DKIM_REASONS = [
  'dkim-aligned-pass', 'dkim-aligned-fails', 'dkim-other-domain', 'dkim-other-fails', 'dkim-none', 'dkim-error', 'dkim-unknown',
] as const;
export type DkimReason = (typeof DKIM_REASONS)[number];

/**
 * A row's class, in the order the rules try them: a row takes the first that fits. Also the
 * order they are listed in (the tree, facets, the README).
 */
export const ROW_CLASSES = ['compliant', 'forwarded', 'needs-fixing', 'unauthenticated'] as const;
export type RowClass = (typeof ROW_CLASSES)[number];

/** The receivers' override reasons (RFC 7489 §A.2 PolicyOverrideType; RFC 9990 adds `policy_test_mode`). */
export const OVERRIDE_REASONS = [
  'forwarded', 'mailing_list', 'trusted_forwarder', 'local_policy', 'sampled_out', 'policy_test_mode', 'other',
] as const;
/** Override reasons that make a failing row Forwarded. */
export const FORWARDING_OVERRIDES: ReadonlySet<string> = new Set(['forwarded', 'mailing_list', 'trusted_forwarder']);

export interface Term {
  /** The short name shown in cells, facets and the tree. */
  label: string;
  /** The rule, in one line: what makes a row (or group) get it. */
  rule: string;
}

/** `alignedSpf`, `spf`, `returnPath` are the row's fields (the API's names). */
const spfTerms = (): Record<SpfReason, Term> => ({
  'spf-aligned-pass': { label: l10n.t('SPF aligned pass'), rule: l10n.t('aligned SPF is pass') },
  'spf-unaligned-pass': {
    label: l10n.t('SPF passes, Return-Path not aligned'),
    rule: l10n.t('SPF is pass, aligned SPF is not: the Return-Path domain is not the Header From’s (organizational domain)'),
  },
  'spf-not-allowed-own': {
    label: l10n.t('IP not in your SPF'),
    rule: l10n.t('SPF is fail, softfail or neutral and the Return-Path aligns with Header From: your own SPF record does not list this IP'),
  },
  'spf-not-allowed-other': {
    label: l10n.t('IP not in another domain’s SPF'),
    rule: l10n.t('SPF is fail, softfail or neutral and the Return-Path is another domain (or none): that domain’s SPF does not list this IP'),
  },
  'spf-none': { label: l10n.t('No SPF record'), rule: l10n.t('SPF is none: the Return-Path domain publishes no SPF record') },
  'spf-error': { label: l10n.t('SPF error'), rule: l10n.t('SPF is temperror, temperr or permerror: a DNS failure or a broken record') },
  'spf-unknown': { label: l10n.t('SPF unknown'), rule: l10n.t('SPF is any other value (policy, skipped, unknown, empty, or one outside the documented set)') },
});

/** `alignedDkim` and the DKIM signatures (`d=`, result) are the row's; "aligned" compares `d=` with Header From. */
const dkimTerms = (): Record<DkimReason, Term> => ({
  'dkim-aligned-pass': { label: l10n.t('DKIM aligned pass'), rule: l10n.t('aligned DKIM is pass') },
  'dkim-aligned-fails': {
    label: l10n.t('Your signature fails'),
    rule: l10n.t('a signature whose d= aligns with Header From is there but fails (fail, neutral, policy, none): changed in transit, or a wrong or rotated key'),
  },
  'dkim-other-domain': {
    label: l10n.t('Signed only by another domain'),
    rule: l10n.t('no aligned signature fails, and a signature passes that does not align, or that the receiver did not count as aligned (the sender signs as itself)'),
  },
  'dkim-other-fails': {
    label: l10n.t('Another domain’s signature fails'),
    rule: l10n.t('only signatures whose d= does not align, none passing'),
  },
  'dkim-none': { label: l10n.t('No DKIM signature'), rule: l10n.t('the row carries no DKIM signature') },
  'dkim-error': {
    label: l10n.t('DKIM error'),
    rule: l10n.t('the signatures that decide have temperror, temperr or permerror (or there is none and aligned DKIM has one)'),
  },
  'dkim-unknown': {
    label: l10n.t('DKIM unknown'),
    rule: l10n.t('the signatures’ results are outside the documented set (unknown, skipped, empty, or another value)'),
  },
});

const classTerms = (): Record<RowClass, Term> => ({
  compliant: { label: l10n.t('Compliant'), rule: l10n.t('DMARC passes: aligned SPF or aligned DKIM is pass') },
  forwarded: {
    label: l10n.t('Forwarded'),
    rule: l10n.t(
      'not compliant, and either the receiver overrode the policy as forwarded, mailing_list or trusted_forwarder, or the IP is a mailbox provider’s or a list server’s (by source or reverse DNS) and either an aligned DKIM signature is there but broken (“Your signature fails”) or SPF passes for the relay’s own domain (its reverse DNS, rewritten by SRS)',
    ),
  },
  'needs-fixing': {
    label: l10n.t('Needs fixing'),
    rule: l10n.t('not compliant or forwarded, but SPF passes (for another domain) or a DKIM signature passes: a real sender, set up wrong'),
  },
  unauthenticated: {
    label: l10n.t('Unauthenticated'),
    rule: l10n.t('neither SPF nor any DKIM signature passes: spoofing, or a server nobody set up; enforcement stops this mail'),
  },
});

let terms: { spf: Record<SpfReason, Term>; dkim: Record<DkimReason, Term>; cls: Record<RowClass, Term> } | undefined;
const all = () => (terms ??= { spf: spfTerms(), dkim: dkimTerms(), cls: classTerms() });
const own = <K extends string>(map: Record<K, Term>, key: string): Term | undefined =>
  Object.prototype.hasOwnProperty.call(map, key) ? map[key as K] : undefined;

/** The words of an SPF reason, a DKIM reason or a class; undefined for any other string. */
export function termOf(code: string): Term | undefined {
  const t = all();
  return own(t.spf, code) ?? own(t.dkim, code) ?? own(t.cls, code);
}

/**
 * Thresholds of the verdicts and of the readiness advice, as fractions of emails. Settings
 * (`dmarc.advice.*`) override them; these are their defaults.
 */
export interface AdviceThresholds {
  /** A group is Compliant when at least this share of its emails passes DMARC. */
  compliant: number;
  /** Ready for p=quarantine when at least this share of legitimate mail passes DMARC. */
  quarantine: number;
  /** Ready for p=reject when at least this share of legitimate mail passes DMARC. */
  reject: number;
}
export const DEFAULT_THRESHOLDS: Readonly<AdviceThresholds> = Object.freeze({ compliant: 0.98, quarantine: 0.95, reject: 0.99 });

/** A group with no emails has no verdict: ''. */
export type Verdict = RowClass | '';
