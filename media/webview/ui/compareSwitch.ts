/**
 * The Compare switch beside the groups' controls: a toggle button (aria-pressed, Space/Enter as any
 * button) that puts the previous period of equal length beside this one, and after it what the
 * previous period's fetch is doing: loading, or why it failed (the host's sentence, as text).
 */
import * as l10n from '@vscode/l10n';
import { el, icon } from '../dom';
import { formatDay } from '../format';
import type { PreviousStatus } from '../data/previous';

export class CompareSwitch {
  readonly element: HTMLElement;
  readonly button: HTMLButtonElement;
  private readonly note: HTMLElement;

  constructor(onToggle: (on: boolean) => void) {
    this.button = el('button', { class: 'toggle-button compare-toggle', attrs: { type: 'button', 'aria-pressed': 'false', 'data-testid': 'compare-toggle' } }, [icon('git-compare'), el('span', { text: l10n.t('Compare') })]);
    this.button.addEventListener('click', () => onToggle(this.button.getAttribute('aria-pressed') !== 'true'));
    this.note = el('span', { class: 'compare-note muted', attrs: { role: 'status', 'data-testid': 'compare-note' } });
    this.element = el('span', { class: 'compare-switch' }, [this.button, this.note]);
  }

  /** The previous period named in the tooltip: its first and last day (UTC). */
  setRange(range: { startMs: number; endMs: number }): void {
    const dates = l10n.t('{0} – {1}', formatDay(range.startMs), formatDay(range.endMs));
    this.button.title = l10n.t('Compare with the previous period of equal length ({0})', dates);
  }

  update(on: boolean, status: PreviousStatus, message: string): void {
    this.button.setAttribute('aria-pressed', String(on));
    this.button.classList.toggle('active', on);
    const text = !on ? '' : status === 'loading' ? l10n.t('Fetching the previous period…') : status === 'error' ? l10n.t('The previous period could not be fetched: {0}', message || l10n.t('Unknown error.')) : '';
    this.note.textContent = text;
    this.note.title = text;
    this.note.classList.toggle('compare-error', on && status === 'error');
    this.note.hidden = text === '';
  }
}
