/**
 * What a value means, for the tooltips of facet options, table cells and the summary's counts,
 * and for the README's "What the values mean" (a unit test holds that table equal to VALUE_TABLE,
 * so the two cannot drift). Values are kept exactly as the server sent them, so two spellings of
 * one result (`temperror`, `temperr`) stay two options, each explained. The advice's reasons and
 * classes have their own table (src/advice/vocabulary.ts).
 */
import * as l10n from '@vscode/l10n';
import type { ColumnId, FacetId } from '../../src/shared/columns';
import { adviceRule } from './data/adviceLabels';
import { EMPTY_LABEL, NO_SIGNATURES } from './format';

/** Where a value can be: result fields, the DKIM signatures' results, dispositions… */
type Place = 'result' | 'dkim' | 'disposition' | 'dmarcResult' | 'category' | 'dkimAligned' | 'override';

export interface ValueEntry {
  place: Place;
  values: readonly string[];
  means: string;
}

/** Where each place is, as the README's "in" column names it. */
export const PLACE_NAMES: Readonly<Record<Place, string>> = {
  result: 'SPF, aligned SPF, aligned DKIM, DKIM',
  dkim: 'DKIM signatures',
  disposition: 'disposition',
  dmarcResult: 'DMARC result',
  category: 'category',
  dkimAligned: 'Aligned Signature',
  override: 'Override (report files)',
};

/** Every value explained, in the README's order. Made on first use: l10n has its bundle by then. */
function entries(): ValueEntry[] {
  return [
    { place: 'result', values: ['pass'], means: l10n.t('the check passed') },
    { place: 'result', values: ['fail'], means: l10n.t('the check failed') },
    { place: 'result', values: ['softfail'], means: l10n.t('SPF: the domain says this IP is probably not allowed to send for it (~all)') },
    { place: 'result', values: ['neutral'], means: l10n.t('SPF: the domain states nothing about this IP (?all)') },
    { place: 'result', values: ['none'], means: l10n.t('nothing to check: no SPF record, or no DKIM signature for this check') },
    { place: 'result', values: ['temperror'], means: l10n.t('a temporary error during the check (a DNS timeout, for example); it may pass later') },
    { place: 'result', values: ['temperr'], means: l10n.t('a spelling some reporters send for temperror: the same temporary error, kept as sent') },
    { place: 'result', values: ['permerror'], means: l10n.t('a permanent error: the domain’s record is broken (bad syntax, too many DNS lookups)') },
    { place: 'result', values: ['policy'], means: l10n.t('the receiver’s local policy decided instead of the check') },
    { place: 'result', values: ['unknown'], means: l10n.t('the reporter gave no recognised result') },
    { place: 'result', values: ['skipped'], means: l10n.t('the receiver did not run the check') },
    { place: 'result', values: [''], means: l10n.t('empty: the report gave no result for this check') },
    { place: 'dkim', values: [NO_SIGNATURES], means: l10n.t('the emails carried no DKIM signature to check') },
    { place: 'disposition', values: ['none'], means: l10n.t('delivered: the receiver took no action') },
    { place: 'disposition', values: ['quarantine'], means: l10n.t('quarantined: delivered to spam or held') },
    { place: 'disposition', values: ['reject'], means: l10n.t('rejected: refused by the receiver') },
    { place: 'disposition', values: [''], means: l10n.t('empty: the report gave no disposition') },
    { place: 'dmarcResult', values: ['pass'], means: l10n.t('aligned SPF or aligned DKIM passed') },
    { place: 'dmarcResult', values: ['fail'], means: l10n.t('neither aligned SPF nor aligned DKIM passed') },
    { place: 'category', values: ['authorized'], means: l10n.t('DMARC passed: aligned SPF or aligned DKIM') },
    { place: 'category', values: ['rejected'], means: l10n.t('DMARC failed and the receiver rejected the mail') },
    { place: 'category', values: ['quarantined'], means: l10n.t('DMARC failed and the receiver quarantined the mail') },
    { place: 'category', values: ['partially-authorized'], means: l10n.t('DMARC failed but the receiver delivered the mail (its policy was none, or it overrode it)') },
    { place: 'dkimAligned', values: ['passed'], means: l10n.t('a signature whose domain aligns with Header From passed') },
    { place: 'dkimAligned', values: ['present, failed'], means: l10n.t('signatures align with Header From, but none of them passed (changed in transit, a wrong or rotated key)') },
    { place: 'dkimAligned', values: ['none aligned'], means: l10n.t('no signing domain aligns with Header From: the sender signs as another domain') },
    { place: 'override', values: ['forwarded', 'mailing_list', 'trusted_forwarder'], means: l10n.t('the receiver saw forwarded or list mail and did not apply the policy: the row counts as Forwarded') },
    { place: 'override', values: ['local_policy'], means: l10n.t('the receiver’s own policy decided instead of yours') },
    { place: 'override', values: ['sampled_out'], means: l10n.t('left out by the policy’s pct= sampling (RFC 7489): the policy was not applied to these') },
    { place: 'override', values: ['policy_test_mode'], means: l10n.t('your policy is in test mode (t=y, RFC 9989): the receiver applied the next lower policy') },
    { place: 'override', values: ['other'], means: l10n.t('another reason, which the report may explain in its comment') },
  ];
}

let table: { list: ValueEntry[]; byPlace: Map<Place, Map<string, string>> } | undefined;

function lookup(): NonNullable<typeof table> {
  if (table) return table;
  const list = entries();
  // Maps know only their own keys: a value named `__proto__` or `constructor` is just unknown.
  const byPlace = new Map<Place, Map<string, string>>();
  for (const e of list) {
    let m = byPlace.get(e.place);
    if (!m) byPlace.set(e.place, (m = new Map()));
    for (const v of e.values) m.set(v, e.means);
  }
  return (table = { list, byPlace });
}

/** Every explained value, in order (the README's table is made of these). */
export function valueTable(): readonly ValueEntry[] {
  return lookup().list;
}

function help(place: Place, value: string): string | undefined {
  return lookup().byPlace.get(place)?.get(value);
}

/** A sentence on what `value` means in a facet or column, or undefined when its name says it all. */
export function valueHelp(where: FacetId | ColumnId, value: string): string | undefined {
  const v = value || EMPTY_LABEL;
  // Whole sentences for the translators (word order is theirs), each with the value's meaning.
  const m = (place: Place): string | undefined => help(place, value);
  switch (where) {
    case 'alignedSpf':
      return m('result') && l10n.t('Aligned SPF {0}: {1}', v, m('result')!);
    case 'alignedDkim':
      return m('result') && l10n.t('Aligned DKIM {0}: {1}', v, m('result')!);
    case 'spf':
      return m('result') && l10n.t('SPF {0}: {1}', v, m('result')!);
    case 'dkim':
      if (value === NO_SIGNATURES) return l10n.t('No DKIM signature: {0}', m('dkim')!);
      return m('result') && l10n.t('A DKIM signature with the result {0}: {1}', v, m('result')!);
    case 'dmarc':
      return m('disposition') && l10n.t('Disposition {0}: {1}', v, m('disposition')!);
    case 'dmarcResult':
      return m('dmarcResult') && l10n.t('DMARC {0}: {1}', v, m('dmarcResult')!);
    case 'category':
      return m('category') && l10n.t('Category {0}: {1}', v, m('category')!);
    case 'dkimAligned':
      return m('dkimAligned') && l10n.t('Aligned signature {0}: {1}', v, m('dkimAligned')!);
    case 'override':
      return m('override') && l10n.t('Override {0}: {1}', v, m('override')!);
    case 'verdict': {
      const rule = adviceRule(value);
      return rule && l10n.t('Rows of sources whose verdict is {0}. A row is {0} when {1}', value, rule);
    }
    case 'rowClass':
    case 'spfReason':
    case 'dkimReason': {
      const rule = adviceRule(value);
      return rule && l10n.t('{0}: {1}', value, rule);
    }
    default:
      return undefined;
  }
}
