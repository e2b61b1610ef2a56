/**
 * The detail pane: the focused row as the server sent it (pretty JSON, coloured), its DKIM
 * signatures, and a Copy JSON button. The row is fetched from the host on demand (`getRow`).
 */
import * as l10n from '@vscode/l10n';
import type { RowDetail } from '../../src/shared/protocol';
import { badge, button, el, iconButton } from './dom';
import { tokenizeJson } from './jsonTokens';
import { revealBidi } from './format';

export interface DetailHost {
  onCopy(index: number): Promise<void>;
  onClose(): void;
}

export class DetailPane {
  readonly element: HTMLElement;
  private readonly titleEl: HTMLElement;
  private readonly subtitleEl: HTMLElement;
  private readonly copyButton: HTMLButtonElement;
  private readonly body: HTMLElement;
  private index = -1;
  private edge: HTMLButtonElement | undefined;

  constructor(private readonly host: DetailHost) {
    this.element = el('aside', { class: 'detail', attrs: { 'aria-label': l10n.t('Row details'), 'data-testid': 'detail' } });
    const header = el('div', { class: 'pane-header' });
    this.titleEl = el('span', { class: 'pane-title', text: l10n.t('Details') });
    this.subtitleEl = el('span', { class: 'pane-subtitle' });
    this.copyButton = button(l10n.t('Copy JSON'), { icon: 'copy', class: 'button secondary small', testid: 'copy-json', title: l10n.t('Copy the row as JSON') });
    this.copyButton.addEventListener('click', () => void this.copy());
    const close = iconButton('close', l10n.t('Hide details'), 'detail-close');
    close.addEventListener('click', () => this.host.onClose());
    header.append(this.titleEl, this.subtitleEl, el('span', { class: 'spacer' }), this.copyButton, close);
    this.body = el('div', { class: 'detail-body' });
    this.element.append(header, this.body);
    this.showPlaceholder();
  }

  /** Collapsed, the pane is a strip at the edge with a button that opens it again. */
  setCollapsed(collapsed: boolean, onOpen: () => void): void {
    if (!this.edge) {
      this.edge = iconButton('layout-sidebar-right', l10n.t('Show details'), 'detail-edge');
      this.edge.classList.add('detail-edge');
      this.edge.addEventListener('click', () => onOpen());
      this.element.append(this.edge);
    }
    this.element.classList.toggle('collapsed', collapsed);
    this.element.setAttribute('aria-label', collapsed ? l10n.t('Row details (hidden)') : l10n.t('Row details'));
  }

  get shownIndex(): number {
    return this.index;
  }

  showPlaceholder(): void {
    this.index = -1;
    this.titleEl.textContent = l10n.t('Details');
    this.subtitleEl.textContent = '';
    this.copyButton.disabled = true;
    this.body.replaceChildren(el('p', { class: 'placeholder', text: l10n.t('Select a row to see the record as the server sent it.') }));
  }

  showLoading(index: number, label: string): void {
    if (this.index === index && !this.body.querySelector('.placeholder')) return;
    this.index = index;
    this.titleEl.textContent = l10n.t('Row {0}', index + 1);
    this.subtitleEl.textContent = revealBidi(label);
    this.copyButton.disabled = true;
    this.body.replaceChildren(el('p', { class: 'placeholder', text: l10n.t('Loading…') }));
  }

  showError(index: number, message: string): void {
    this.index = index;
    this.copyButton.disabled = true;
    this.body.replaceChildren(el('p', { class: 'placeholder error-text', text: message }));
  }

  show(detail: RowDetail, label: string): void {
    this.index = detail.index;
    this.titleEl.textContent = l10n.t('Row {0}', detail.index + 1);
    this.subtitleEl.textContent = revealBidi(label);
    this.copyButton.disabled = false;

    const dkims = Array.isArray(detail.dkims) ? detail.dkims : [];
    const dkimSection = el('section', { class: 'detail-section' });
    dkimSection.append(el('h3', { class: 'section-title', text: l10n.t('DKIM signatures ({0})', dkims.length) }));
    if (dkims.length === 0) {
      dkimSection.append(el('p', { class: 'muted', text: l10n.t('No DKIM signatures.'), attrs: { 'data-testid': 'detail-dkims' } }));
    } else {
      const table = el('table', { class: 'dkim-table', attrs: { 'data-testid': 'detail-dkims' } });
      const head = el('tr');
      for (const h of [l10n.t('Selector'), l10n.t('Domain'), l10n.t('Result')]) head.append(el('th', { text: h, attrs: { scope: 'col' } }));
      table.append(el('thead', {}, [head]));
      const tbody = el('tbody');
      for (const d of dkims) {
        const tr = el('tr', { class: 'dkim-row' });
        tr.append(el('td', { text: String(d.selector ?? ''), title: String(d.selector ?? '') }), el('td', { text: String(d.domain ?? ''), title: String(d.domain ?? '') }), el('td', {}, [badge('dkim', String(d.result ?? ''))]));
        tbody.append(tr);
      }
      table.append(tbody);
      dkimSection.append(table);
    }

    const jsonSection = el('section', { class: 'detail-section' });
    jsonSection.append(el('h3', { class: 'section-title', text: l10n.t('JSON') }));
    const pre = el('pre', { class: 'json', attrs: { 'data-testid': 'detail-json', tabindex: 0, 'aria-label': l10n.t('Row JSON') } });
    const json = typeof detail.json === 'string' ? detail.json : '';
    for (const t of tokenizeJson(json)) {
      if (t.kind === 'text') pre.append(t.text);
      else pre.append(el('span', { class: `json-${t.kind}`, text: t.text }));
    }
    jsonSection.append(pre);
    this.body.replaceChildren(dkimSection, jsonSection);
  }

  /** Copy JSON: asks the host to put the row on the clipboard, and says so on the button. */
  async copy(): Promise<void> {
    if (this.index < 0) return;
    const label = this.copyButton.querySelector('.button-label')!;
    const ic = this.copyButton.querySelector('.codicon')!;
    try {
      await this.host.onCopy(this.index);
      label.textContent = l10n.t('Copied');
      ic.className = 'codicon codicon-check';
    } catch (err) {
      label.textContent = l10n.t('Copy failed');
      this.copyButton.title = (err as Error).message;
    }
    setTimeout(() => {
      label.textContent = l10n.t('Copy JSON');
      ic.className = 'codicon codicon-copy';
      this.copyButton.title = l10n.t('Copy the row as JSON');
    }, 1500);
  }
}
