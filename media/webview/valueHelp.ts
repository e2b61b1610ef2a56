/**
 * What a result or disposition value means, for the tooltips of facet options (the README's
 * "What the values mean" says the same). Values are kept exactly as the server sent them, so two
 * spellings of one result (`temperror`, `temperr`) stay two options, each explained.
 */
import type { FacetId } from '../../src/shared/columns';
import { NO_SIGNATURES } from './format';

/** A lookup that knows only its own keys (a value named `__proto__` or `constructor` is just unknown). */
const table = (entries: Record<string, string>): ReadonlyMap<string, string> => new Map(Object.entries(entries));

const RESULTS = table({
  pass: 'the check passed',
  fail: 'the check failed',
  softfail: 'SPF: the domain says this IP is probably not allowed to send for it (~all)',
  neutral: 'SPF: the domain states nothing about this IP (?all)',
  none: 'nothing to check: no SPF record, or no DKIM signature for this check',
  temperror: 'a temporary error during the check (a DNS timeout, for example); it may pass later',
  temperr: 'a spelling some reporters send for temperror: the same temporary error, kept as sent',
  permerror: 'a permanent error: the domain\u2019s record is broken (bad syntax, too many DNS lookups)',
  policy: 'the receiver\u2019s local policy decided instead of the check',
  unknown: 'the reporter gave no recognised result',
  skipped: 'the receiver did not run the check',
  '': 'empty: the report gave no result for this check',
});

const DISPOSITIONS = table({
  none: 'delivered: the receiver took no action',
  quarantine: 'quarantined: delivered to spam or held',
  reject: 'rejected: refused by the receiver',
  '': 'empty: the report gave no disposition',
});

const DMARC_RESULTS = table({
  pass: 'aligned SPF or aligned DKIM passed',
  fail: 'neither aligned SPF nor aligned DKIM passed',
});

/** A sentence on what `value` means in `facet`, or undefined when its name says it all. */
export function valueHelp(facet: FacetId, value: string): string | undefined {
  switch (facet) {
    case 'alignedSpf':
      return RESULTS.get(value) && `Aligned SPF ${value || '(empty)'}: ${RESULTS.get(value)}`;
    case 'alignedDkim':
      return RESULTS.get(value) && `Aligned DKIM ${value || '(empty)'}: ${RESULTS.get(value)}`;
    case 'spf':
      return RESULTS.get(value) && `SPF ${value || '(empty)'}: ${RESULTS.get(value)}`;
    case 'dkim':
      if (value === NO_SIGNATURES) return 'No DKIM signature: the emails carried no signature to check';
      return RESULTS.get(value) && `A DKIM signature with the result ${value || '(empty)'}: ${RESULTS.get(value)}`;
    case 'dmarc':
      return DISPOSITIONS.get(value) && `Disposition ${value || '(empty)'}: ${DISPOSITIONS.get(value)}`;
    case 'dmarcResult':
      return DMARC_RESULTS.get(value) && `DMARC ${value}: ${DMARC_RESULTS.get(value)}`;
    default:
      return undefined;
  }
}
