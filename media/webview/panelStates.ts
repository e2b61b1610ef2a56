/**
 * What the table area shows instead of rows (loading, an error with its actions, no rows, no
 * matches), and the notices about rows the host left out or kept with warnings.
 */
import * as l10n from '@vscode/l10n';
import { button, el, icon, iconButton } from './dom';
import { formatCount } from './format';
import { post } from './vscode';

export function loadingBox(message: string): HTMLElement {
  const box = el('div', { class: 'state-box', attrs: { 'data-testid': 'loading' } });
  box.append(icon('loading', 'state-icon codicon-modifier-spin'), el('p', { class: 'state-message', text: message }));
  return box;
}

export function emptyBox(): HTMLElement {
  const box = el('div', { class: 'state-box', attrs: { 'data-testid': 'empty' } });
  box.append(icon('inbox', 'state-icon'), el('p', { class: 'state-title', text: l10n.t('No rows in this range') }), el('p', { class: 'state-message', text: l10n.t('The DMARC reports have no records between these dates.') }));
  // What to do next: another range of the same organization, or this one again (reports arrive daily).
  const actions = el('div', { class: 'state-actions' });
  const other = button(l10n.t('Fetch Another Range…'), { icon: 'calendar', testid: 'fetch-range' });
  other.addEventListener('click', () => post({ type: 'fetchRange' }));
  const again = button(l10n.t('Refresh'), { icon: 'refresh', class: 'button secondary', testid: 'refresh-empty' });
  again.addEventListener('click', () => post({ type: 'retry' }));
  actions.append(other, again);
  box.append(actions);
  return box;
}

export function noMatchesBox(onClear: () => void): HTMLElement {
  const box = el('div', { class: 'state-box', attrs: { 'data-testid': 'no-matches' } });
  const clear = button(l10n.t('Clear Search and Filters'), { class: 'button secondary', testid: 'clear-filters' });
  clear.addEventListener('click', onClear);
  box.append(icon('search', 'state-icon'), el('p', { class: 'state-title', text: l10n.t('No rows match') }), el('p', { class: 'state-message', text: l10n.t('No row matches the search and the filters.') }), clear);
  return box;
}

export function errorBox(message: string, canRetry: boolean, canUpdateKey: boolean, on: { retry(): void; updateKey(): void }): HTMLElement {
  const box = el('div', { class: 'state-box error', attrs: { 'data-testid': 'error', role: 'alert' } });
  box.append(icon('error', 'state-icon'), el('p', { class: 'state-title', text: l10n.t('The records could not be loaded') }), el('p', { class: 'state-message', text: message }));
  const actions = el('div', { class: 'state-actions' });
  if (canRetry) {
    const retry = button(l10n.t('Retry'), { icon: 'refresh', testid: 'retry' });
    retry.addEventListener('click', () => on.retry());
    actions.append(retry);
  }
  if (canUpdateKey) {
    const key = button(l10n.t('Update API Key…'), { icon: 'key', class: 'button secondary', testid: 'update-key' });
    key.addEventListener('click', () => on.updateKey());
    actions.append(key);
  }
  box.append(actions);
  return box;
}

export class Notices {
  readonly element = el('div', { class: 'notices', attrs: { 'data-testid': 'notices', role: 'status' } });
  private list: string[] = [];
  private action: { label: string; run: () => void } | undefined;
  private expanded = false;

  constructor() {
    this.element.hidden = true;
  }

  /** Says the rows shown are incomplete (the load failed after `rows` arrived), with Retry. */
  incomplete(rows: number, message: string, retry: () => void): void {
    this.set([l10n.t('Incomplete: only the first {0} rows arrived. {1}', formatCount(rows), message)], {
      label: l10n.t('Retry'),
      run: () => {
        this.set([]);
        retry();
      },
    });
  }

  /** Shows the notices, with one action button when given (e.g. Retry). */
  set(list: string[], action?: { label: string; run: () => void }): void {
    this.list = list;
    this.action = action;
    this.expanded = false;
    this.render();
  }

  private render(): void {
    const list = this.list;
    this.element.replaceChildren();
    this.element.hidden = list.length === 0;
    if (!list.length) return;
    const shown = this.expanded ? list : list.slice(0, 2);
    const items = el('ul', { class: 'notice-list' });
    for (const n of shown) items.append(el('li', { text: n }));
    const actions = el('div', { class: 'notice-actions' });
    if (this.action) {
      const { label, run } = this.action;
      const b = el('button', { class: 'link-button', text: label, attrs: { type: 'button', 'data-testid': 'notice-action' } });
      b.addEventListener('click', run);
      actions.append(b);
    }
    if (list.length > 2) {
      const more = el('button', { class: 'link-button', text: this.expanded ? l10n.t('Show less') : l10n.t('Show all {0}', list.length), attrs: { type: 'button' } });
      more.addEventListener('click', () => {
        this.expanded = !this.expanded;
        this.render();
      });
      actions.append(more);
    }
    const dismiss = iconButton('close', l10n.t('Dismiss'), 'notices-dismiss');
    dismiss.addEventListener('click', () => this.set([]));
    actions.append(dismiss);
    this.element.append(icon('warning', 'notice-icon'), items, actions);
  }
}

export interface StatusView {
  phase: 'waiting' | 'loading' | 'ready' | 'error';
  rows: number;
  total: number;
  /** More rows are still arriving: `total` is a lower bound. */
  growing: boolean;
  /** Rows passing the filters. */
  shown: number;
  loadingMessage: string;
  errorBox: HTMLElement | undefined;
  onClear(): void;
}

/** The progress bar, the "Loading… N of M rows" note, and the box shown over the table area. */
export class LoadStatus {
  readonly progress: HTMLElement;
  readonly loadNote = el('span', { class: 'load-note', attrs: { 'data-testid': 'load-progress' } });
  readonly tableArea = el('div', { class: 'table-area' });
  private readonly bar = el('span', { class: 'progress-bar' });
  private readonly stateEl = el('div', { class: 'state' });

  constructor(
    private readonly root: HTMLElement,
    grid: HTMLElement,
  ) {
    this.progress = el('div', { class: 'progress', attrs: { role: 'progressbar', 'aria-label': l10n.t('Loading records'), 'data-testid': 'progress' } }, [this.bar]);
    this.tableArea.append(grid, this.stateEl);
  }

  render(v: StatusView): void {
    const { rows, total } = v;
    this.root.dataset.phase = v.phase;
    this.root.classList.toggle('no-rows', rows === 0);
    const loading = v.phase === 'waiting' || v.phase === 'loading';
    this.progress.classList.toggle('active', loading);
    this.progress.hidden = !loading;
    // While rows stream in, the bar shows how many arrived (when the total is known); before
    // the first ones, or while the server still sends them, it just moves.
    const streaming = loading && rows > 0;
    const determinate = streaming && !v.growing && total > 0;
    this.progress.classList.toggle('determinate', determinate);
    this.bar.style.width = determinate ? `${Math.min(100, (rows / total) * 100)}%` : '';
    const note = v.growing ? l10n.t('{0} rows so far…', formatCount(rows)) : l10n.t('Loading… {0} of {1} rows', formatCount(rows), formatCount(total));
    const text = loading ? (rows > 0 ? note : v.loadingMessage) : l10n.t('Done');
    this.progress.setAttribute('aria-valuetext', text);
    this.progress.title = streaming ? text : '';
    this.loadNote.textContent = streaming ? note : '';
    this.loadNote.hidden = !streaming;
    let box: HTMLElement | undefined;
    if (v.phase === 'error') box = v.errorBox;
    else if (rows === 0 && loading) box = loadingBox(v.loadingMessage);
    else if (rows === 0 && v.phase === 'ready') box = emptyBox();
    else if (rows > 0 && v.shown === 0) box = noMatchesBox(v.onClear);
    if (v.phase !== 'error' || this.stateEl.firstChild !== box) this.stateEl.replaceChildren(...(box ? [box] : []));
    this.stateEl.hidden = !box;
    this.tableArea.classList.toggle('has-state', !!box && (rows === 0 || v.phase === 'error'));
  }
}
