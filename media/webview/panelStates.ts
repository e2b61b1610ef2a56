/**
 * What the table area shows instead of rows (loading, an error with its actions, no rows, no
 * matches), and the notices about rows the host left out or kept with warnings.
 */
import { button, el, icon, iconButton } from './dom';

export function loadingBox(message: string): HTMLElement {
  const box = el('div', { class: 'state-box', attrs: { 'data-testid': 'loading' } });
  box.append(icon('loading', 'state-icon codicon-modifier-spin'), el('p', { class: 'state-message', text: message }));
  return box;
}

export function emptyBox(): HTMLElement {
  const box = el('div', { class: 'state-box', attrs: { 'data-testid': 'empty' } });
  box.append(icon('inbox', 'state-icon'), el('p', { class: 'state-title', text: 'No rows in this range' }), el('p', { class: 'state-message', text: 'The DMARC reports have no records between these dates.' }));
  return box;
}

export function noMatchesBox(onClear: () => void): HTMLElement {
  const box = el('div', { class: 'state-box', attrs: { 'data-testid': 'no-matches' } });
  const clear = button('Clear Search and Filters', { class: 'button secondary', testid: 'clear-filters' });
  clear.addEventListener('click', onClear);
  box.append(icon('search', 'state-icon'), el('p', { class: 'state-title', text: 'No rows match' }), el('p', { class: 'state-message', text: 'No row matches the search and the filters.' }), clear);
  return box;
}

export function errorBox(message: string, canRetry: boolean, canUpdateKey: boolean, on: { retry(): void; updateKey(): void }): HTMLElement {
  const box = el('div', { class: 'state-box error', attrs: { 'data-testid': 'error', role: 'alert' } });
  box.append(icon('error', 'state-icon'), el('p', { class: 'state-title', text: 'The records could not be loaded' }), el('p', { class: 'state-message', text: message }));
  const actions = el('div', { class: 'state-actions' });
  if (canRetry) {
    const retry = button('Retry', { icon: 'refresh', testid: 'retry' });
    retry.addEventListener('click', () => on.retry());
    actions.append(retry);
  }
  if (canUpdateKey) {
    const key = button('Update API Key…', { icon: 'key', class: 'button secondary', testid: 'update-key' });
    key.addEventListener('click', () => on.updateKey());
    actions.append(key);
  }
  box.append(actions);
  return box;
}

export class Notices {
  readonly element = el('div', { class: 'notices', attrs: { 'data-testid': 'notices', role: 'status' } });
  private list: string[] = [];
  private expanded = false;

  constructor() {
    this.element.hidden = true;
  }

  set(list: string[]): void {
    this.list = list;
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
    if (list.length > 2) {
      const more = el('button', { class: 'link-button', text: this.expanded ? 'Show less' : `Show all ${list.length}`, attrs: { type: 'button' } });
      more.addEventListener('click', () => {
        this.expanded = !this.expanded;
        this.render();
      });
      actions.append(more);
    }
    const dismiss = iconButton('close', 'Dismiss', 'notices-dismiss');
    dismiss.addEventListener('click', () => this.set([]));
    actions.append(dismiss);
    this.element.append(icon('warning', 'notice-icon'), items, actions);
  }
}
