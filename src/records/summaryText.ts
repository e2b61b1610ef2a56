/**
 * How the tree words a summary: the pass rate first (the default sidebar is narrow and cuts a
 * description from its end), then counts in their singular or plural form ("1 email in 1 row",
 * "1,234 emails in 56 rows"). Pure, like the rest of src/records: it translates through
 * `@vscode/l10n` (which the extension loads with `vscode.l10n.bundle` at activation, and which
 * answers in English until then), so `npm run l10n` finds its strings as it finds the host's.
 */

import * as l10n from '@vscode/l10n';
import { RateFormat } from '../shared/percent';

export class SummaryText {
  private readonly numbers: Intl.NumberFormat;
  private readonly rates: RateFormat;

  constructor(locale = 'en') {
    this.numbers = new Intl.NumberFormat(locale);
    this.rates = new RateFormat(locale);
  }

  count(n: number): string {
    return this.numbers.format(n);
  }

  /** A pass rate (0–1), written as the records panel writes it (src/shared/percent.ts). */
  percent(rate: number | undefined): string {
    return this.rates.format(rate);
  }

  emails(n: number): string {
    return n === 1 ? l10n.t('{0} email', this.count(n)) : l10n.t('{0} emails', this.count(n));
  }

  rows(n: number): string {
    return n === 1 ? l10n.t('{0} row', this.count(n)) : l10n.t('{0} rows', this.count(n));
  }

  ips(n: number): string {
    return n === 1 ? l10n.t('{0} IP', this.count(n)) : l10n.t('{0} IPs', this.count(n));
  }

  /** "1 email in 1 row", "1,234 emails in 56 rows". */
  emailsInRows(emails: number, rows: number): string {
    return l10n.t('{0} in {1}', this.emails(emails), this.rows(rows));
  }

  /** "92% pass · 1,234 emails"; only "0 emails" when there is no rate. */
  passAndEmails(passRate: number | undefined, emails: number): string {
    if (passRate === undefined || Number.isNaN(passRate)) return this.emails(emails);
    return l10n.t('{0} pass · {1}', this.percent(passRate), this.emails(emails));
  }
}
