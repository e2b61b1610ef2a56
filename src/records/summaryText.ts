/**
 * How the tree words a summary: the pass rate first (the default sidebar is narrow and cuts a
 * description from its end), then counts in their singular or plural form ("1 email in 1 row",
 * "1,234 emails in 56 rows"). Pure, like the rest of src/records: the tree passes its locale and
 * `vscode.l10n.t`; the unit tests use it as is.
 */

import { RateFormat } from '../shared/percent';

/** `vscode.l10n.t`'s shape: `{0}`, `{1}`… in the message are replaced by the arguments. */
export type Translate = (message: string, ...args: (string | number)[]) => string;

export const englishText: Translate = (message, ...args) =>
  message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));

export class SummaryText {
  private readonly numbers: Intl.NumberFormat;
  private readonly rates: RateFormat;

  constructor(locale = 'en', private readonly t: Translate = englishText) {
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
    return n === 1 ? this.t('{0} email', this.count(n)) : this.t('{0} emails', this.count(n));
  }

  rows(n: number): string {
    return n === 1 ? this.t('{0} row', this.count(n)) : this.t('{0} rows', this.count(n));
  }

  ips(n: number): string {
    return n === 1 ? this.t('{0} IP', this.count(n)) : this.t('{0} IPs', this.count(n));
  }

  /** "1 email in 1 row", "1,234 emails in 56 rows". */
  emailsInRows(emails: number, rows: number): string {
    return this.t('{0} in {1}', this.emails(emails), this.rows(rows));
  }

  /** "92% pass · 1,234 emails"; only "0 emails" when there is no rate. */
  passAndEmails(passRate: number | undefined, emails: number): string {
    if (passRate === undefined || Number.isNaN(passRate)) return this.emails(emails);
    return this.t('{0} pass · {1}', this.percent(passRate), this.emails(emails));
  }
}
