import { strict as assert } from 'node:assert';
import * as l10n from '@vscode/l10n';
import { SummaryText } from '../../src/records/summaryText';
import { formatPercent } from '../../media/webview/format';

describe('records: SummaryText (tree wording)', () => {
  const text = new SummaryText('en');

  it('singular and plural forms: "1 email in 1 row", not "1 emails in 1 rows"', () => {
    assert.equal(text.emailsInRows(1, 1), '1 email in 1 row');
    assert.equal(text.emailsInRows(2, 1), '2 emails in 1 row');
    assert.equal(text.emailsInRows(1234, 56), '1,234 emails in 56 rows');
    assert.equal(text.emailsInRows(0, 0), '0 emails in 0 rows');
    assert.equal(text.emails(1), '1 email');
    assert.equal(text.rows(1), '1 row');
    assert.equal(text.ips(1), '1 IP');
    assert.equal(text.ips(3), '3 IPs');
  });

  it('puts the pass rate before the emails; no rate, no "pass"', () => {
    assert.equal(text.passAndEmails(0.92, 1234), '92% pass · 1,234 emails');
    assert.equal(text.passAndEmails(1, 1), '100% pass · 1 email');
    assert.equal(text.passAndEmails(undefined, 0), '0 emails');
    assert.equal(text.passAndEmails(Number.NaN, 0), '0 emails');
  });

  it('percentages: whole from 10%, one decimal below, 100% and 0% only when exact', () => {
    const cases: [number | undefined, string][] = [
      [undefined, '–'],
      [1, '100%'],
      [0.9999, '99.9%'],
      [0.995, '99.5%'],
      [0.9949, '99%'],
      [0.92, '92%'],
      [0.923, '92%'],
      [0.925, '93%'],
      [0.1, '10%'],
      [0.0999, '10%'],
      [0.075, '7.5%'],
      [0.05, '5%'],
      [0.001, '0.1%'],
      [0.0005, '0.1%'], // the "<0.1%" bound is exclusive
      [0.0004, '<0.1%'],
      [0, '0%'],
      // Out of range (a summary of rows whose counts disagree): clamped, never "120%" or "-5%".
      [1.2, '100%'],
      [-0.05, '0%'],
    ];
    assert.deepEqual(cases.map(([r]) => [r, text.percent(r)]), cases);
    // The records panel writes every rate and share the same way (its summary, groups, trend).
    assert.deepEqual(cases.map(([r]) => [r, formatPercent(r ?? Number.NaN)]), cases);
    assert.equal(formatPercent(Number.POSITIVE_INFINITY), '–');
  });

  it('translates through @vscode/l10n (the bundle the extension loads), and formats numbers for its locale', () => {
    l10n.config({ contents: { '{0} emails': '{0} E-Mails', '{0} row': '{0} Zeile', '{0} in {1}': '{0} in {1}.' } });
    try {
      assert.equal(new SummaryText('de').emailsInRows(1234, 1), '1.234 E-Mails in 1 Zeile.');
    } finally {
      l10n.config({ contents: {} });
    }
    assert.equal(new SummaryText('de').emailsInRows(1234, 1), '1.234 emails in 1 row', 'English without a bundle');
  });
});
