/**
 * What a result or disposition value means, for the tooltips of facet options (the README's
 * "What the values mean" says the same). Values are kept exactly as the server sent them, so two
 * spellings of one result (`temperror`, `temperr`) stay two options, each explained.
 */
import * as l10n from '@vscode/l10n';
import type { FacetId } from '../../src/shared/columns';
import { adviceRule } from './data/adviceLabels';
import { EMPTY_LABEL, NO_SIGNATURES } from './format';

/** A lookup that knows only its own keys (a value named `__proto__` or `constructor` is just unknown). */
const table = (entries: Record<string, string>): ReadonlyMap<string, string> => new Map(Object.entries(entries));

const RESULTS = table({
  pass: l10n.t('the check passed'),
  fail: l10n.t('the check failed'),
  softfail: l10n.t('SPF: the domain says this IP is probably not allowed to send for it (~all)'),
  neutral: l10n.t('SPF: the domain states nothing about this IP (?all)'),
  none: l10n.t('nothing to check: no SPF record, or no DKIM signature for this check'),
  temperror: l10n.t('a temporary error during the check (a DNS timeout, for example); it may pass later'),
  temperr: l10n.t('a spelling some reporters send for temperror: the same temporary error, kept as sent'),
  permerror: l10n.t('a permanent error: the domain\u2019s record is broken (bad syntax, too many DNS lookups)'),
  policy: l10n.t('the receiver\u2019s local policy decided instead of the check'),
  unknown: l10n.t('the reporter gave no recognised result'),
  skipped: l10n.t('the receiver did not run the check'),
  '': l10n.t('empty: the report gave no result for this check'),
});

const DISPOSITIONS = table({
  none: l10n.t('delivered: the receiver took no action'),
  quarantine: l10n.t('quarantined: delivered to spam or held'),
  reject: l10n.t('rejected: refused by the receiver'),
  '': l10n.t('empty: the report gave no disposition'),
});

const DMARC_RESULTS = table({
  pass: l10n.t('aligned SPF or aligned DKIM passed'),
  fail: l10n.t('neither aligned SPF nor aligned DKIM passed'),
});

/** The receiver's override reasons (RFC 7489 §A.2 PolicyOverrideType; RFC 9990 keeps them). */
const OVERRIDES = table({
  forwarded: l10n.t('the receiver saw the mail was forwarded and did not apply the policy (the row counts as Forwarded)'),
  mailing_list: l10n.t('the receiver judged it a mailing list’s mail and did not apply the policy (the row counts as Forwarded)'),
  trusted_forwarder: l10n.t('relayed by a forwarder the receiver trusts, so the policy was not applied (the row counts as Forwarded)'),
  local_policy: l10n.t('the receiver’s own policy decided instead of yours'),
  sampled_out: l10n.t('left out by the policy’s pct= sampling (DMARC of RFC 7489): the policy was not applied to these'),
  policy_test_mode: l10n.t('your policy is in test mode (t=y, RFC 9989): the receiver applied the next lower policy'),
  other: l10n.t('another reason, which the report may explain in its comment'),
  '': l10n.t('no override: the receiver applied the policy as published (API rows carry no override)'),
});

/** A sentence on what `value` means in `facet`, or undefined when its name says it all. */
export function valueHelp(facet: FacetId, value: string): string | undefined {
  switch (facet) {
    case 'alignedSpf':
      return RESULTS.get(value) && l10n.t('Aligned SPF {0}: {1}', value || EMPTY_LABEL, RESULTS.get(value)!);
    case 'alignedDkim':
      return RESULTS.get(value) && l10n.t('Aligned DKIM {0}: {1}', value || EMPTY_LABEL, RESULTS.get(value)!);
    case 'spf':
      return RESULTS.get(value) && l10n.t('SPF {0}: {1}', value || EMPTY_LABEL, RESULTS.get(value)!);
    case 'dkim':
      if (value === NO_SIGNATURES) return l10n.t('No DKIM signature: the emails carried no signature to check');
      return RESULTS.get(value) && l10n.t('A DKIM signature with the result {0}: {1}', value || EMPTY_LABEL, RESULTS.get(value)!);
    case 'dmarc':
      return DISPOSITIONS.get(value) && l10n.t('Disposition {0}: {1}', value || EMPTY_LABEL, DISPOSITIONS.get(value)!);
    case 'dmarcResult':
      return DMARC_RESULTS.get(value) && l10n.t('DMARC {0}: {1}', value, DMARC_RESULTS.get(value)!);
    case 'rowClass':
    case 'spfReason':
    case 'dkimReason': {
      const rule = adviceRule(value);
      return rule && l10n.t('{0}: {1}', value, rule);
    }
    case 'override':
      return OVERRIDES.get(value) && l10n.t('Override {0}: {1}', value || EMPTY_LABEL, OVERRIDES.get(value)!);
    default:
      return undefined;
  }
}
