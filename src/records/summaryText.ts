/**
 * How the tree words a summary: the pass rate first (the default sidebar is narrow and cuts a
 * description from its end), then counts in their singular or plural form ("1 email in 1 row",
 * "1,234 emails in 56 rows"). Pure, like the rest of src/records: the tree passes its locale and
 * `vscode.l10n.t`; the unit tests use it as is.
 */

/** `vscode.l10n.t`'s shape: `{0}`, `{1}`… in the message are replaced by the arguments. */
export type Translate = (message: string, ...args: (string | number)[]) => string;

export const englishText: Translate = (message, ...args) =>
  message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));

export class SummaryText {
  private readonly numbers: Intl.NumberFormat;
  private readonly wholePercent: Intl.NumberFormat;
  private readonly tenthPercent: Intl.NumberFormat;

  constructor(locale = 'en', private readonly t: Translate = englishText) {
    this.numbers = new Intl.NumberFormat(locale);
    this.wholePercent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
    this.tenthPercent = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 0, maximumFractionDigits: 1 });
  }

  count(n: number): string {
    return this.numbers.format(n);
  }

  /**
   * A pass rate (0–1): whole percent from 10% ("92%"), one decimal below ("7.5%"). Only all
   * emails passing reads "100%" and only none "0%": 99.5% up to 100% is cut to one decimal
   * ("99.9%"), and a rate under 0.05% reads "<0.1%". "–" when there is no rate (no emails).
   */
  percent(rate: number | undefined): string {
    if (rate === undefined || Number.isNaN(rate)) return '–';
    if (rate >= 1) return this.wholePercent.format(1);
    if (rate <= 0) return this.wholePercent.format(0);
    if (rate >= 0.995) return this.tenthPercent.format(Math.floor(rate * 1000) / 1000);
    if (rate >= 0.1) return this.wholePercent.format(rate);
    if (rate < 0.0005) return `<${this.tenthPercent.format(0.001)}`;
    return this.tenthPercent.format(rate);
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
