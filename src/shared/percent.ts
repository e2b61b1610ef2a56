/**
 * One way to write a pass rate, in the tree and in the records panel alike: whole percent from
 * 10% ("92%"), one decimal below ("7.5%"). Only all emails passing reads "100%" and only none
 * "0%": 99.5% up to 100% is cut to one decimal ("99.9%"), and a rate under 0.05% reads "<0.1%".
 * "–" when there is no rate (no emails).
 */
export class RateFormat {
  private readonly whole: Intl.NumberFormat;
  private readonly tenth: Intl.NumberFormat;

  constructor(locale?: string) {
    this.whole = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
    this.tenth = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 0, maximumFractionDigits: 1 });
  }

  format(rate: number | undefined): string {
    if (rate === undefined || !Number.isFinite(rate)) return '–';
    if (rate >= 1) return this.whole.format(1);
    if (rate <= 0) return this.whole.format(0);
    if (rate >= 0.995) return this.tenth.format(Math.floor(rate * 1000) / 1000);
    if (rate >= 0.1) return this.whole.format(rate);
    if (rate < 0.0005) return `<${this.tenth.format(0.001)}`;
    return this.tenth.format(rate);
  }
}
