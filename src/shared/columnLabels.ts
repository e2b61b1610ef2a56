/**
 * The records table's column names as the user reads them ("Header From", not `visibleFrom`):
 * one table for the panel's column headers and the host's CSV export, so both say the same. No
 * `vscode` and no DOM. Translated through `@vscode/l10n`, whose bundle the host loads at
 * activation and the webview from its page: a function, so that it answers in the language
 * loaded when it is called, not in the one (English) of the moment the module was loaded.
 */
import * as l10n from '@vscode/l10n';
import type { ColumnId } from './columns';

export function columnLabels(): Record<ColumnId, string> {
  return {
    source: l10n.t('Source'),
    ipAddress: l10n.t('IP Address'),
    emails: l10n.t('Emails'),
    dmarcResult: l10n.t('DMARC'),
    alignedSpf: l10n.t('Aligned SPF'),
    alignedDkim: l10n.t('Aligned DKIM'),
    dmarc: l10n.t('Disposition'),
    date: l10n.t('Date'),
    rowClass: l10n.t('Class'),
    spfReason: l10n.t('Why SPF'),
    dkimReason: l10n.t('Why DKIM'),
    category: l10n.t('Category'),
    visibleFrom: l10n.t('Header From'),
    dkimDomains: l10n.t('DKIM Signatures'),
    dkimAligned: l10n.t('Aligned Signature'),
    returnPath: l10n.t('Return-Path'),
    reporter: l10n.t('Reporter'),
    to: l10n.t('To'),
    ipCountryCode: l10n.t('Country'),
    rdns: l10n.t('Reverse DNS'),
    spf: l10n.t('SPF'),
    dkim: l10n.t('DKIM Results'),
    override: l10n.t('Override'),
  };
}
