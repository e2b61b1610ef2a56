// The webview's text formatting (media/webview/format.ts) with exact expectations: every tone of
// every result column, the icon of each tone, group labels, counts and dates.
import { strict as assert } from 'node:assert';
import { dkimText, formatCount, formatDate, formatDay, formatShortDay, groupLabel, GROUP_LABELS, plural, toneIcon, toneOf, valueLabel } from '../../media/webview/format';

describe('webview formatting, exactly', () => {
  it('the tone of every result value, case-insensitively', () => {
    const generic: [string, string][] = [
      ['pass', 'pass'], ['PASS', 'pass'], ['fail', 'fail'], ['permerror', 'fail'], ['PermError', 'fail'],
      ['softfail', 'warn'], ['temperror', 'warn'], ['temperr', 'warn'], ['neutral', 'warn'], ['policy', 'warn'],
      ['none', 'neutral'], ['', 'neutral'], ['passed', 'neutral'],
    ];
    for (const column of ['spf', 'dkim', 'alignedSpf', 'alignedDkim', 'dmarcResult']) {
      assert.deepEqual(generic.map(([v]) => [v, toneOf(column, v)]), generic, column);
    }
    const category: [string, string][] = [
      ['authorized', 'pass'], ['Authorized', 'pass'], ['rejected', 'fail'], ['quarantined', 'warn'], ['partially-authorized', 'warn'], ['pass', 'neutral'], ['fail', 'neutral'], ['', 'neutral'],
    ];
    assert.deepEqual(category.map(([v]) => [v, toneOf('category', v)]), category);
    const dmarc: [string, string][] = [['reject', 'fail'], ['REJECT', 'fail'], ['quarantine', 'warn'], ['none', 'info'], ['pass', 'neutral'], ['fail', 'neutral'], ['', 'neutral']];
    assert.deepEqual(dmarc.map(([v]) => [v, toneOf('dmarc', v)]), dmarc);
    const aligned: [string, string][] = [['passed', 'pass'], ['PASSED', 'pass'], ['present, failed', 'fail'], ['none aligned', 'warn'], ['yes', 'neutral'], ['pass', 'neutral'], ['fail', 'neutral'], ['', 'neutral']];
    assert.deepEqual(aligned.map(([v]) => [v, toneOf('dkimAligned', v)]), aligned);
  });

  it('each tone has its own icon', () => {
    assert.deepEqual((['pass', 'fail', 'warn', 'info', 'neutral'] as const).map(toneIcon), ['pass', 'error', 'warning', 'circle-outline', 'circle-small']);
  });

  it('group labels: built-in fields by name, extra fields by their own name, anything else as given', () => {
    assert.equal(groupLabel('source'), 'Source');
    assert.equal(groupLabel('dkimPair'), 'DKIM domain + selector');
    for (const [field, label] of Object.entries(GROUP_LABELS)) assert.equal(groupLabel(field), label, field);
    assert.equal(groupLabel('extra:policy_override'), 'policy_override');
    assert.equal(groupLabel('extra:'), '');
    assert.equal(groupLabel('unknownField'), 'unknownField');
    assert.equal(groupLabel('xextra:a'), 'xextra:a');
  });

  it('counts with grouping and at most two decimals; plural by the number', () => {
    const expected = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
    for (const n of [0, 1, 1234567, 1.23456, 0.005]) assert.equal(formatCount(n), expected.format(n), String(n));
    assert.equal(formatCount(1.5), expected.format(1.5));
    assert.equal(plural(1, 'row', 'rows'), '1 row');
    assert.equal(plural(0, 'row', 'rows'), '0 rows');
    assert.equal(plural(2, 'row', 'rows'), '2 rows');
    assert.equal(plural(1234, 'row', 'rows'), `${expected.format(1234)} rows`);
  });

  it('dates in UTC: a row’s minute, a day, a chart’s short day; not-a-time is the fallback or empty', () => {
    const ms = Date.UTC(2026, 10, 16, 17, 20, 59, 999);
    assert.equal(formatDate(ms), '2026-11-16 17:20 UTC');
    assert.equal(formatDate(Date.UTC(2026, 0, 2, 3, 4)), '2026-01-02 03:04 UTC');
    assert.equal(formatDate(Number.NaN), '');
    assert.equal(formatDate(Number.NaN, '–'), '–');
    assert.equal(formatDate(Number.POSITIVE_INFINITY, '–'), '–');
    assert.equal(formatDay(ms), '2026-11-16');
    assert.equal(formatDay(Number.NaN), '');
    assert.equal(formatDay(Number.NEGATIVE_INFINITY), '');
    assert.equal(formatShortDay(ms), 'Nov 16');
    assert.equal(formatShortDay(Date.UTC(2026, 0, 1, 0, 30)), 'Jan 1');
    // UTC, not the machine's zone: the last minute of a UTC day is still that day.
    assert.equal(formatShortDay(Date.UTC(2026, 2, 31, 23, 59)), 'Mar 31');
  });

  it('an empty value reads "(empty)" in a DKIM list too', () => {
    assert.equal(valueLabel('x'), 'x');
    assert.equal(dkimText(['pass']), '1 (pass)');
    assert.equal(dkimText(['', 'fail', '']), '3 ((empty), fail, (empty))');
  });
});
