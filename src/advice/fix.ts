/**
 * The fix for a sending source, in one or two sentences that name what to change and where,
 * with the domains, selectors and IPs from its own rows. Which sentences: the DKIM side's most
 * common failing reason (by emails of its failing rows), then the SPF side's when it is one the
 * owner can act on; a source whose verdict is Unauthenticated or Forwarded gets that class's
 * sentence instead; one the owner marked not theirs (marks.ts) is theirs to stop, not to fix, and
 * one marked theirs whose reasons name nothing to change gets its servers' setup. Generic on purpose: no provider's menu names (none checked against their
 * documentation yet).
 *
 * The webview imports this file: it must stay free of zod, tldts-icann and `vscode`.
 */
import * as l10n from '@vscode/l10n';
import type { SourceMark } from './marks';
import { DKIM_REASONS, SPF_REASONS, type DkimReason, type SpfReason, type Verdict } from './vocabulary';

/** What a source's failing rows (those not Compliant) show, to word its fix. */
export interface FixFacts {
  /** The Header From domain with the most failing emails. */
  headerFrom: string;
  /** Failing emails per SPF reason and per DKIM reason. */
  spf: Partial<Record<SpfReason, number>>;
  dkim: Partial<Record<DkimReason, number>>;
  /** Return-Path domains of the rows whose SPF passes unaligned, most emails first. */
  returnPaths: readonly string[];
  /** d= domains of passing signatures that do not align, most emails first. */
  otherDomains: readonly string[];
  /** Selectors of those signatures, and of failing aligned ones, most emails first. */
  selectors: readonly string[];
  /** Failing IPs, most emails first. */
  ips: readonly string[];
}

const code = (s: string): string => `\`${s}\``;

/** Up to `n` values as `a`, `b` (+3 more). */
function some(values: readonly string[], n = 2): string {
  const shown = values.slice(0, n).map(code).join(', ');
  return values.length > n ? l10n.t('{0} (+{1} more)', shown, values.length - n) : shown;
}

function top<K extends string>(order: readonly K[], counts: Partial<Record<K, number>>, among: ReadonlySet<K>): K | undefined {
  let best: K | undefined;
  for (const k of order) if (among.has(k) && (counts[k] ?? 0) > 0 && (best === undefined || counts[k]! > counts[best]!)) best = k;
  return best;
}

const DKIM_ACTIONABLE: ReadonlySet<DkimReason> = new Set(['dkim-other-domain', 'dkim-none', 'dkim-aligned-fails', 'dkim-error', 'dkim-other-fails']);
const SPF_ACTIONABLE: ReadonlySet<SpfReason> = new Set(['spf-unaligned-pass', 'spf-not-allowed-own', 'spf-error']);

function dkimSentence(reason: DkimReason, f: FixFacts): string {
  const from = code(f.headerFrom);
  const sel = f.selectors.length ? l10n.t(' (selector seen: {0})', some(f.selectors)) : '';
  switch (reason) {
    case 'dkim-other-domain':
      return l10n.t('Signed by {0} only: set up DKIM for {1} at this sender{2}.', some(f.otherDomains.map((d) => `d=${d}`)), from, sel);
    case 'dkim-none':
    case 'dkim-other-fails':
      return l10n.t('No DKIM signature for {0}: turn on DKIM signing with {0} at this sender.', from);
    case 'dkim-aligned-fails':
      return l10n.t('The {0} signature fails{1}: check that the key published in DNS for that selector is the one the sender signs with (rotated?), or what changes the message after signing.', from, sel);
    default:
      return l10n.t('DKIM for {0} gave an error{1}: check its key record in DNS.', from, sel);
  }
}

function spfSentence(reason: SpfReason, f: FixFacts): string {
  const from = code(f.headerFrom);
  switch (reason) {
    case 'spf-unaligned-pass':
      return l10n.t('SPF passes for {0}, which does not align with {1}: set a custom Return-Path (bounce domain) under {1} in this sender’s settings.', some(f.returnPaths), from);
    case 'spf-not-allowed-own':
      return l10n.t('{0}’s SPF record does not list this sender’s IPs ({1}): add the sender’s include or its IPs to it.', from, some(f.ips));
    default:
      return l10n.t('SPF gave an error for {0}: check the record’s syntax and that it needs at most 10 DNS lookups.', from);
  }
}

/** The fix of a source with this verdict, these facts and the owner's mark; '' for a Compliant one (nothing to fix). */
export function fixText(verdict: Verdict, f: FixFacts, mark?: SourceMark): string {
  const from = code(f.headerFrom);
  if (verdict === 'compliant' || verdict === '') return '';
  if (verdict === 'unauthenticated' && mark === 'not-mine')
    return l10n.t('Marked as not yours: nothing to set up. p=quarantine or p=reject stops this mail (IPs: {0}).', some(f.ips));
  if (verdict === 'unauthenticated')
    return l10n.t('Nothing authenticates this mail. If these servers are yours, add their IPs ({0}) to {1}’s SPF record and sign with DKIM for {1}; if not, p=quarantine or p=reject stops it.', some(f.ips), from);
  if (verdict === 'forwarded')
    return l10n.t('Forwarded by a mailbox provider or a list, which broke the {0} signature in transit or sent the mail as itself: nothing to change at the sender. Keep signing with DKIM; receivers that trust the forwarder (ARC) keep delivering it.', from);
  const dkim = top(DKIM_REASONS, f.dkim, DKIM_ACTIONABLE);
  const spf = top(SPF_REASONS, f.spf, SPF_ACTIONABLE);
  const out = [dkim && dkimSentence(dkim, f), spf && spfSentence(spf, f)].filter(Boolean);
  if (!out.length && mark === 'mine')
    return l10n.t('These servers are marked as yours: add their IPs ({0}) to {1}’s SPF record and sign with DKIM for {1}.', some(f.ips), from);
  return out.length ? out.join(' ') : l10n.t('This mail authenticates, but not as {0}: sign it with DKIM for {0} at this sender.', from);
}
