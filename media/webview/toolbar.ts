/**
 * The panel's toolbar: search, the panel toggles, columns, group-by, and on the right the
 * selection count and the exports. Its items keep their width when the selection changes, so
 * nothing reflows while rows are picked.
 */
import * as l10n from '@vscode/l10n';
import { button, el, icon, iconButton } from './dom';
import { formatCount, plural } from './format';

export interface ToolbarHost {
  onSearch(text: string): void;
  /** Down or Enter in the search box: on to the grid. */
  onSearchLeave(): void;
  onToggleFacets(): void;
  onToggleDetail(): void;
  onColumns(): void;
  onExport(format: 'json' | 'csv'): void;
}

export class Toolbar {
  readonly element: HTMLElement;
  readonly searchInput: HTMLInputElement;
  readonly columnsButton: HTMLButtonElement;
  private readonly searchClear: HTMLButtonElement;
  private readonly facetsToggle: HTMLButtonElement;
  private readonly detailToggle: HTMLButtonElement;
  private readonly selectedCount: HTMLElement;
  private readonly exportJson: HTMLButtonElement;
  private readonly exportCsv: HTMLButtonElement;
  readonly status: HTMLElement;
  private statusTimer = 0;

  constructor(private readonly host: ToolbarHost) {
    this.element = el('div', { class: 'toolbar', attrs: { role: 'toolbar', 'aria-label': l10n.t('Records') } });
    const searchBox = el('div', { class: 'search-box' });
    this.searchInput = el('input', {
      class: 'search-input',
      attrs: { type: 'text', placeholder: l10n.t('Search all fields'), 'aria-label': l10n.t('Search all fields'), 'data-testid': 'search', maxlength: 1000, spellcheck: 'false', autocomplete: 'off' },
    });
    this.searchClear = iconButton('close', l10n.t('Clear search'), 'search-clear');
    this.searchClear.classList.add('search-clear');
    searchBox.append(icon('search', 'search-icon'), this.searchInput, this.searchClear);
    this.facetsToggle = iconButton('filter', l10n.t('Show filters'), 'facets-toggle');
    this.columnsButton = button(l10n.t('Columns'), { icon: 'eye', class: 'toolbar-button', testid: 'columns-menu', title: l10n.t('Show, hide or reorder columns') });
    this.columnsButton.setAttribute('aria-haspopup', 'menu');
    this.columnsButton.setAttribute('aria-expanded', 'false');
    this.detailToggle = iconButton('layout-sidebar-right', l10n.t('Show details'), 'detail-toggle');
    this.selectedCount = el('span', { class: 'selected-count', attrs: { 'data-testid': 'selected-count', 'aria-live': 'polite' } });
    this.status = el('span', { class: 'export-status', attrs: { 'data-testid': 'export-status', role: 'status' } });
    this.exportJson = this.exportButton('JSON', 'export-json');
    this.exportCsv = this.exportButton('CSV', 'export-csv');
    this.element.append(searchBox, this.facetsToggle, this.columnsButton, this.detailToggle, this.status, this.selectedCount, this.exportJson, this.exportCsv);
    this.wire();
  }

  private exportButton(format: string, testid: string): HTMLButtonElement {
    const b = el('button', { class: 'button secondary', attrs: { type: 'button', 'data-testid': testid } });
    b.append(icon(format === 'JSON' ? 'json' : 'table'), el('span', { class: 'button-label', text: l10n.t('Export {0}', format) }));
    return b;
  }

  private wire(): void {
    this.searchInput.addEventListener('input', () => this.host.onSearch(this.searchInput.value));
    this.searchInput.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.searchInput.value) {
        e.preventDefault();
        this.setSearch('');
        this.host.onSearch('');
      } else if (e.key === 'ArrowDown' || e.key === 'Enter') {
        e.preventDefault();
        this.host.onSearchLeave();
      }
    });
    this.searchClear.addEventListener('click', () => {
      this.setSearch('');
      this.host.onSearch('');
      this.searchInput.focus();
    });
    this.facetsToggle.addEventListener('click', () => this.host.onToggleFacets());
    this.detailToggle.addEventListener('click', () => this.host.onToggleDetail());
    this.columnsButton.addEventListener('click', () => this.host.onColumns());
    this.columnsButton.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown') {
        e.preventDefault();
        this.host.onColumns();
      }
    });
    this.exportJson.addEventListener('click', () => this.host.onExport('json'));
    this.exportCsv.addEventListener('click', () => this.host.onExport('csv'));
  }

  setSearch(text: string): void {
    this.searchInput.value = text;
    this.searchClear.hidden = text === '';
  }

  setToggles(facetsOpen: boolean, detailOpen: boolean): void {
    const labels = { filters: [l10n.t('Show filters'), l10n.t('Hide filters')], details: [l10n.t('Show details'), l10n.t('Hide details')] };
    for (const [b, open, what] of [[this.facetsToggle, facetsOpen, 'filters'], [this.detailToggle, detailOpen, 'details']] as const) {
      b.setAttribute('aria-pressed', String(open));
      const label = labels[what][open ? 1 : 0]!;
      b.title = label;
      b.setAttribute('aria-label', label);
    }
  }

  /** The selection count and what the export buttons will export. */
  setSelection(selected: number, shown: number, filtered: number): void {
    this.selectedCount.textContent = selected === shown || selected === 0 ? l10n.t('{0} selected', formatCount(selected)) : l10n.t('{0} selected ({1} hidden by filters)', formatCount(selected), formatCount(selected - shown));
    this.selectedCount.dataset.value = String(selected);
    for (const [b, format] of [[this.exportJson, 'JSON'], [this.exportCsv, 'CSV']] as const) {
      if (selected > 0) {
        b.title = l10n.t('Export the {0} as {1}', plural(selected, l10n.t('selected row'), l10n.t('selected rows')), format);
        b.disabled = false;
        b.dataset.what = 'selected';
      } else {
        b.title = filtered > 0 ? l10n.t('Nothing is selected: export all {0} as {1}', plural(filtered, l10n.t('filtered row'), l10n.t('filtered rows')), format) : l10n.t('No rows to export');
        b.disabled = filtered === 0;
        b.dataset.what = 'filtered';
      }
      b.setAttribute('aria-label', b.title);
    }
  }

  setStatus(text: string, isError: boolean, sticky = false): void {
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.status.replaceChildren();
    if (text) this.status.append(icon(isError ? 'error' : sticky ? 'loading' : 'check', sticky ? 'codicon-modifier-spin' : ''), el('span', { text }));
    this.status.classList.toggle('error-text', isError);
    this.status.title = text;
    if (!isError && !sticky && text) this.statusTimer = window.setTimeout(() => this.status.replaceChildren(), 5000);
  }
}
