/**
 * The summary bar over the filtered rows: rows, emails, the email-weighted DMARC pass rate, and
 * emails by category and by disposition.
 */
import * as l10n from '@vscode/l10n';
import { badge, el } from './dom';
import { formatCount, formatPercent, plural, revealBidi, valueLabel } from './format';
import type { Summary } from './data/summary';
import { valueHelp } from './valueHelp';

/** Values shown by name on each line; past these, one "+N more" (the rest in its tooltip). */
const MAX_ITEMS = 6;

export class SummaryBar {
  readonly element: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly rowsOf: HTMLElement;
  private readonly emails: HTMLElement;
  private readonly pass: HTMLElement;
  private readonly meter: HTMLElement;
  private readonly meterFill: HTMLElement;
  private readonly categories: HTMLElement;
  private readonly dispositions: HTMLElement;

  constructor() {
    this.element = el('div', { class: 'summary', attrs: { 'data-testid': 'summary', 'aria-label': l10n.t('Summary of the filtered rows') } });
    this.rows = el('span', { class: 'stat-value', attrs: { 'data-testid': 'summary-rows' } });
    this.rowsOf = el('span', { class: 'muted' });
    this.emails = el('span', { class: 'stat-value', attrs: { 'data-testid': 'summary-emails' } });
    this.pass = el('span', { class: 'stat-value', attrs: { 'data-testid': 'summary-pass' } });
    this.meterFill = el('span', { class: 'meter-fill' });
    this.meter = el('span', { class: 'meter', attrs: { 'aria-hidden': 'true' } }, [this.meterFill]);
    const meter = this.meter;
    this.categories = el('span', { class: 'stat-list', attrs: { 'data-testid': 'summary-categories' } });
    this.dispositions = el('span', { class: 'stat-list', attrs: { 'data-testid': 'summary-dispositions' } });
    this.element.append(
      el('span', { class: 'stat' }, [this.rows, this.rowsOf]),
      el('span', { class: 'stat' }, [this.emails]),
      el('span', { class: 'stat', title: l10n.t('Emails passing DMARC (aligned SPF or aligned DKIM pass) out of all emails') }, [this.pass, meter]),
      el('span', { class: 'stat-divider', attrs: { 'aria-hidden': 'true' } }),
      this.categories,
      el('span', { class: 'stat-divider', attrs: { 'aria-hidden': 'true' } }),
      this.dispositions,
    );
  }

  update(s: Summary, totalRows: number): void {
    this.rows.textContent = plural(s.rows, l10n.t('row'), l10n.t('rows'));
    this.rows.dataset.value = String(s.rows);
    this.rowsOf.textContent = s.rows !== totalRows ? l10n.t('of {0}', formatCount(totalRows)) : '';
    this.emails.textContent = plural(s.emails, l10n.t('email'), l10n.t('emails'));
    this.emails.dataset.value = String(s.emails);
    this.pass.textContent = l10n.t('DMARC pass {0}', formatPercent(s.passRate));
    this.pass.dataset.value = Number.isFinite(s.passRate) ? String(s.passRate) : '';
    this.meterFill.style.width = `${Number.isFinite(s.passRate) ? Math.round(s.passRate * 1000) / 10 : 0}%`;
    this.meter.hidden = !Number.isFinite(s.passRate);
    this.fillList(this.categories, 'category', l10n.t('By category'), s.byCategory, s.emails);
    this.fillList(this.dispositions, 'dmarc', l10n.t('By disposition'), s.byDisposition, s.emails);
  }

  private fillList(target: HTMLElement, column: 'category' | 'dmarc', label: string, items: { value: string; emails: number }[], total: number): void {
    target.replaceChildren(el('span', { class: 'muted', text: `${label}:` }));
    target.setAttribute('aria-label', label);
    if (items.length === 0) target.append(el('span', { class: 'muted', text: '–' }));
    const share = (emails: number): string => formatPercent(total > 0 ? emails / total : Number.NaN);
    // The documented values are four categories and three dispositions; a server sending many
    // others (case variants, junk) would otherwise fill the panel's top with them.
    const shown = items.length > MAX_ITEMS + 1 ? items.slice(0, MAX_ITEMS) : items;
    for (const it of shown) {
      const counts = l10n.t('{0} emails ({1})', formatCount(it.emails), share(it.emails));
      const help = valueHelp(column, it.value);
      const item = el('span', { class: 'stat-item', attrs: { 'data-value': it.value }, title: help ? revealBidi(`${help}\n${counts}`) : counts });
      item.append(badge(column, it.value), el('span', { class: 'stat-count', text: formatCount(it.emails) }));
      target.append(item);
    }
    const rest = items.slice(shown.length);
    if (rest.length > 0) {
      const emails = rest.reduce((a, it) => a + it.emails, 0);
      target.append(el('span', {
        class: 'stat-item muted',
        text: l10n.t('+{0} more', rest.length),
        attrs: { 'data-testid': `summary-${column}-more` },
        title: [l10n.t('{0} emails ({1}) with other values:', formatCount(emails), share(emails)), ...rest.map((it) => `${revealBidi(valueLabel(it.value))}: ${formatCount(it.emails)}`)].join('\n'),
      }));
    }
  }
}
