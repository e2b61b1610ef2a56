/**
 * Webview entry of the records panel (bundled to dist/webview.js, styles to dist/webview.css).
 * Wires the host messages (src/shared/protocol.ts) to the model (model.ts, selection.ts) and the
 * views (table, facets, summary, detail). Record fields are only ever set as textContent.
 */
import './styles.css';
import { COLUMNS, FACETS, type ColumnId, type FacetId } from '../../src/shared/columns';
import type { HostMessage, PanelIdentity, RowDetail, ViewState } from '../../src/shared/protocol';
import { DetailPane } from './detail';
import { button, el, icon, iconButton, primaryModifier } from './dom';
import { FacetsPanel } from './facets';
import { COLUMN_LABELS, formatCount, plural } from './format';
import { Menu, type MenuEntry } from './menu';
import { RecordsModel, type Query, type View } from './model';
import { Selection, type NavKey } from './selection';
import { SummaryBar } from './summary';
import { VirtualTable } from './table';
import { emptyViewState, readSavedState, sameIdentity, sanitizeViewState } from './viewState';
import { post, request, settle, vscodeApi } from './vscode';

type Phase = 'waiting' | 'loading' | 'ready' | 'error';
type RowsMessage = Extract<HostMessage, { type: 'rows' }>;

/** Timings for the benchmark: plain numbers, nothing that acts. */
interface Perf {
  rows: number;
  firstPaintMs: number | null;
  /** Wall-clock (Date.now) times, comparable with the extension host's trace. */
  firstPaintAt: number | null;
  /** When this script started, and when the first chunk of rows arrived. */
  scriptAt: number;
  firstChunkAt: number | null;
  loadedAt: number | null;
  lastSortMs: number | null;
  lastFilterMs: number | null;
}

declare global {
  interface Window {
    __dmarcPerf?: Perf;
  }
}

const perf: Perf = { rows: 0, firstPaintMs: null, firstPaintAt: null, scriptAt: Date.now(), firstChunkAt: null, loadedAt: null, lastSortMs: null, lastFilterMs: null };
window.__dmarcPerf = perf;

/** While rows stream in, the view is recomputed at most this often. */
const STREAM_UPDATE_MS = 200;
const DETAIL_DELAY_MS = 60;
const PERSIST_DELAY_MS = 250;
const DETAIL_CACHE = 64;

/** The bytes of a `rows` message, whatever shape structured cloning gave them. */
function decodeRows(data: unknown): unknown[] {
  let text: string;
  if (typeof data === 'string') text = data;
  else {
    let bytes: Uint8Array;
    if (data instanceof Uint8Array) bytes = data;
    else if (data instanceof ArrayBuffer) bytes = new Uint8Array(data);
    else if (ArrayBuffer.isView(data)) bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    else if (Array.isArray(data)) bytes = Uint8Array.from(data as number[]);
    else if (data && typeof data === 'object') bytes = Uint8Array.from(Object.values(data as Record<string, number>));
    else bytes = new Uint8Array(0);
    text = new TextDecoder().decode(bytes);
  }
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed : [];
}

class App {
  private readonly model = new RecordsModel();
  private readonly selection = new Selection();
  private view: View;
  private readonly query: Query & { facets: Partial<Record<FacetId, string[]>> } = { search: '', facets: {}, sort: undefined };
  private hidden = new Set<ColumnId>();
  private identity: PanelIdentity | undefined;
  private phase: Phase = 'waiting';
  private loadingMessage = 'Loading records…';
  private total = 0;
  private complete = false;
  private pendingRestore: { scrollTop: number; focused: number | undefined } | undefined;
  private facetsOpen = true;
  private detailOpen = true;
  private readonly detailCache = new Map<number, RowDetail>();
  private detailTimer = 0;
  private persistTimer = 0;
  private selectionTimer = 0;
  private updateTimer = 0;
  private lastUpdate = 0;
  private firstRowsAt = 0;
  private idleHandle = 0;
  private notices: string[] = [];
  private readonly rowQueue: RowsMessage[] = [];
  private pumping = false;
  private noticesExpanded = false;

  // DOM
  private readonly root: HTMLElement;
  private readonly searchInput: HTMLInputElement;
  private readonly searchClear: HTMLButtonElement;
  private readonly facetsToggle: HTMLButtonElement;
  private readonly columnsButton: HTMLButtonElement;
  private readonly detailToggle: HTMLButtonElement;
  private readonly selectedCount: HTMLElement;
  private readonly exportJson: HTMLButtonElement;
  private readonly exportCsv: HTMLButtonElement;
  private readonly exportStatus: HTMLElement;
  private readonly rangeLabel: HTMLElement;
  private readonly summary = new SummaryBar();
  private readonly noticesEl: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly progressBar: HTMLElement;
  private readonly loadNote: HTMLElement;
  private readonly bodyEl: HTMLElement;
  private readonly facets: FacetsPanel;
  private readonly table: VirtualTable;
  private readonly tableArea: HTMLElement;
  private readonly stateEl: HTMLElement;
  private readonly detail: DetailPane;
  private readonly contextMenu: Menu;
  /** Screen-reader announcements (the row count after a search or filter). */
  private readonly announcer: HTMLElement;
  private announceTimer = 0;
  private readonly columnsMenu: Menu;

  constructor(root: HTMLElement) {
    this.root = root;
    this.view = this.model.compute(this.query);
    root.setAttribute('data-testid', 'records-panel');
    root.classList.add('records-panel');

    // Toolbar: search, panel toggles, columns; selection count and export on the right.
    const toolbar = el('div', { class: 'toolbar', attrs: { role: 'toolbar', 'aria-label': 'Records' } });
    const searchBox = el('div', { class: 'search-box' });
    this.searchInput = el('input', {
      class: 'search-input',
      attrs: { type: 'text', placeholder: 'Search all fields', 'aria-label': 'Search all fields', 'data-testid': 'search', maxlength: 1000, spellcheck: 'false', autocomplete: 'off' },
    });
    this.searchClear = iconButton('close', 'Clear search', 'search-clear');
    this.searchClear.classList.add('search-clear');
    searchBox.append(icon('search', 'search-icon'), this.searchInput, this.searchClear);
    this.facetsToggle = iconButton('filter', 'Show filters', 'facets-toggle');
    this.columnsButton = button('Columns', { icon: 'eye', class: 'toolbar-button', testid: 'columns-menu', title: 'Show or hide columns' });
    this.columnsButton.setAttribute('aria-haspopup', 'menu');
    this.columnsButton.setAttribute('aria-expanded', 'false');
    this.detailToggle = iconButton('layout-sidebar-right', 'Show details', 'detail-toggle');
    this.selectedCount = el('span', { class: 'selected-count', attrs: { 'data-testid': 'selected-count', 'aria-live': 'polite' } });
    this.exportStatus = el('span', { class: 'export-status', attrs: { 'data-testid': 'export-status', role: 'status' } });
    this.exportJson = this.exportButton('JSON', 'export-json');
    this.exportCsv = this.exportButton('CSV', 'export-csv');
    toolbar.append(searchBox, this.facetsToggle, this.columnsButton, this.detailToggle, el('span', { class: 'spacer' }), this.exportStatus, this.selectedCount, this.exportJson, this.exportCsv);

    this.progressBar = el('span', { class: 'progress-bar' });
    this.progress = el('div', { class: 'progress', attrs: { role: 'progressbar', 'aria-label': 'Loading records', 'data-testid': 'progress' } }, [this.progressBar]);
    this.loadNote = el('span', { class: 'load-note', attrs: { 'data-testid': 'load-progress' } });
    const summaryRow = el('div', { class: 'summary-row' });
    this.rangeLabel = el('span', { class: 'range-label', attrs: { 'data-testid': 'range' } });
    summaryRow.append(this.summary.element, this.loadNote, this.rangeLabel);
    this.noticesEl = el('div', { class: 'notices', attrs: { 'data-testid': 'notices', role: 'status' } });
    this.noticesEl.hidden = true;

    this.facets = new FacetsPanel({
      onToggle: (f, key) => this.toggleFacet(f, key),
      onClear: (f) => this.clearFacets(f),
    });
    this.table = new VirtualTable({
      store: this.model.store,
      isSelected: (i) => this.selection.has(i),
      focusedIndex: () => this.selection.focus,
      onRowClick: (i, mods) => {
        this.selection.click(this.view, i, mods);
        this.afterSelection(false);
      },
      onContextMenu: (i, x, y) => this.openContextMenu(i, x, y),
      onSort: (c) => this.sortBy(c),
      onKey: (e) => this.onGridKey(e),
      onScroll: () => this.schedulePersist(),
    });
    this.tableArea = el('div', { class: 'table-area' });
    this.stateEl = el('div', { class: 'state' });
    this.tableArea.append(this.table.element, this.stateEl);
    this.detail = new DetailPane({
      onCopy: (i) => request<null>({ type: 'copyRow', index: i }).then(() => undefined),
      onClose: () => this.setDetailOpen(false),
    });
    this.bodyEl = el('div', { class: 'body' });
    this.bodyEl.append(this.facets.element, this.tableArea, this.detail.element);

    this.announcer = el('div', { class: 'sr-only', attrs: { role: 'status', 'aria-live': 'polite' } });
    root.append(toolbar, summaryRow, this.noticesEl, this.progress, this.bodyEl, this.announcer);

    this.contextMenu = new Menu(() => this.contextEntries(), (a) => this.runAction(a), { testid: 'context-menu', label: 'Row actions' });
    this.columnsMenu = new Menu(() => this.columnEntries(), (a) => this.runAction(a), { testid: 'columns-popup', label: 'Columns', opener: this.columnsButton });

    this.wire();
    this.table.setColumns(this.visibleColumns());
    this.setFacetsOpen(true);
    this.setDetailOpen(true);
    this.render();
  }

  private exportButton(format: string, testid: string): HTMLButtonElement {
    const b = el('button', { class: 'button secondary', attrs: { type: 'button', 'data-testid': testid } });
    b.append(icon(format === 'JSON' ? 'json' : 'table'), el('span', { class: 'button-label', text: `Export ${format}` }), el('span', { class: 'button-scope' }));
    return b;
  }

  private wire(): void {
    window.addEventListener('message', (e: MessageEvent) => this.onMessage(e.data));
    // Tabbing into the grid focuses a row, so the keyboard always has a place to start.
    this.table.element.addEventListener('focus', () => {
      if (!this.table.element.matches(':focus-visible')) return;
      if (this.selection.focus >= 0 && (this.view.posOf[this.selection.focus] ?? -1) >= 0) return;
      if (this.view.order.length === 0) return;
      this.selection.navigate(this.view, 'home', { shift: false, ctrl: true }, 1);
      this.afterSelection(true);
    });
    // Once the user scrolls or picks a row, a restore still waiting for the last rows is dropped.
    for (const type of ['wheel', 'pointerdown', 'keydown'] as const) {
      this.table.element.addEventListener(type, () => (this.pendingRestore = undefined), { capture: true, passive: true });
    }
    this.searchInput.addEventListener('input', () => {
      this.query.search = this.searchInput.value;
      this.viewChanged('filter');
    });
    this.searchInput.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.searchInput.value) {
        e.preventDefault();
        this.setSearch('');
      } else if (e.key === 'ArrowDown' || e.key === 'Enter') {
        e.preventDefault();
        this.focusGrid();
      }
    });
    this.searchClear.addEventListener('click', () => {
      this.setSearch('');
      this.searchInput.focus();
    });
    this.facetsToggle.addEventListener('click', () => this.setFacetsOpen(!this.facetsOpen));
    this.detailToggle.addEventListener('click', () => this.setDetailOpen(!this.detailOpen));
    this.columnsButton.addEventListener('click', () => {
      if (this.columnsMenu.isOpen) this.columnsMenu.close();
      else this.columnsMenu.showBelow(this.columnsButton);
    });
    this.columnsButton.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown') {
        e.preventDefault();
        this.columnsMenu.showBelow(this.columnsButton);
      }
    });
    this.exportJson.addEventListener('click', () => void this.exportRows('json'));
    this.exportCsv.addEventListener('click', () => void this.exportRows('csv'));
    document.addEventListener('keydown', (e) => {
      // Ctrl/Cmd+F: VS Code keeps the key from the browser's own find; use it for the search box.
      if (primaryModifier(e) && !e.altKey && (e.key === 'f' || e.key === 'F')) {
        e.preventDefault();
        this.searchInput.focus();
        this.searchInput.select();
      }
    });
    // Copy (Ctrl/Cmd+C, or VS Code's Copy command) on the grid copies the focused row's JSON.
    document.addEventListener('copy', (e) => {
      if (document.activeElement !== this.table.element) return;
      const sel = window.getSelection();
      if (sel && !sel.isCollapsed && sel.toString()) return;
      e.preventDefault();
      void this.copyFocused();
    });
  }

  // ---- host messages -------------------------------------------------------------------------

  private onMessage(raw: unknown): void {
    if (!raw || typeof raw !== 'object' || typeof (raw as { type?: unknown }).type !== 'string') return;
    const m = raw as HostMessage;
    switch (m.type) {
      case 'init':
        this.onInit(m);
        return;
      case 'loading':
        this.rowQueue.length = 0;
        this.phase = 'loading';
        this.complete = false;
        this.loadingMessage = typeof m.message === 'string' && m.message ? m.message : 'Loading records…';
        this.render();
        return;
      case 'rows':
        this.rowQueue.push(m);
        if (!this.pumping) this.pumpRows();
        return;
      case 'notices':
        this.notices = Array.isArray(m.notices) ? m.notices.filter((n): n is string => typeof n === 'string') : [];
        this.noticesExpanded = false;
        this.renderNotices();
        return;
      case 'error':
        this.onError(m);
        return;
      case 'response':
        settle(m as { requestId: number; ok: boolean; result?: unknown; error?: string });
        return;
      case 'command':
        this.onCommand(m.command);
        return;
    }
  }

  private onInit(m: Extract<HostMessage, { type: 'init' }>): void {
    this.identity = m.identity;
    document.title = typeof m.title === 'string' ? m.title : 'DMARC records';
    this.root.setAttribute('aria-label', document.title);
    this.rangeLabel.textContent = typeof m.rangeLabel === 'string' ? m.rangeLabel : '';
    // The state VS Code kept for this webview is the newest (it survives hiding the panel); the
    // host's copy is what the serializer restored after a window reload.
    const saved = readSavedState(vscodeApi.getState());
    let view: ViewState | undefined;
    if (saved.view && sameIdentity(saved.identity, m.identity)) view = saved.view;
    else if (m.state) view = sanitizeViewState(m.state);
    if (!view) {
      view = emptyViewState();
      if (typeof m.initialSearch === 'string') view.search = m.initialSearch.slice(0, 1000);
    }
    this.applyViewState(view);
    this.persistNow();
  }

  private applyViewState(v: ViewState): void {
    this.hidden = new Set(v.hiddenColumns);
    if (this.hidden.size >= COLUMNS.length) this.hidden.clear();
    this.query.sort = v.sort ? { ...v.sort } : undefined;
    this.query.search = v.search;
    this.searchInput.value = v.search;
    this.query.facets = {};
    for (const f of FACETS) {
      const keys = v.facets[f];
      if (keys && keys.length) this.query.facets[f] = [...keys];
    }
    this.pendingRestore = v.scrollTop > 0 || v.focused !== undefined ? { scrollTop: v.scrollTop, focused: v.focused } : undefined;
    this.table.setColumns(this.visibleColumns());
    this.table.setSort(this.query.sort);
    this.update();
  }

  /**
   * Reads queued row chunks one task at a time, so input and painting get their turn between
   * chunks; after the first chunk it waits for a frame, so the first rows show at once.
   */
  private pumpRows(): void {
    const m = this.rowQueue.shift();
    if (!m) {
      this.pumping = false;
      return;
    }
    this.pumping = true;
    this.onRows(m);
    let done = false;
    const next = (): void => {
      if (done) return;
      done = true;
      this.pumpRows();
    };
    if (m.offset === 0) {
      requestAnimationFrame(() => setTimeout(next, 0));
      // rAF does not run while the panel is hidden.
      setTimeout(next, 100);
    } else {
      setTimeout(next, 0);
    }
  }

  private onRows(m: RowsMessage): void {
    const t0 = performance.now();
    let tuples: unknown[];
    try {
      tuples = decodeRows(m.data);
    } catch (err) {
      this.onError({ type: 'error', message: `The rows could not be read: ${(err as Error).message}`, canRetry: true, canUpdateKey: false });
      return;
    }
    const offset = typeof m.offset === 'number' ? m.offset : this.model.length;
    if (offset === 0) {
      // A (re)load: start over, keep the view settings.
      if (this.model.length > 0) {
        const focused = this.selection.focus;
        this.pendingRestore ??= { scrollTop: this.table.scrollTop, focused: focused >= 0 ? focused : undefined };
      }
      this.model.clear();
      this.selection.reset(typeof m.total === 'number' ? m.total : 0);
      this.detailCache.clear();
      this.detail.showPlaceholder();
      this.firstRowsAt = t0;
      perf.firstChunkAt = Date.now();
      perf.firstPaintMs = null;
      perf.firstPaintAt = null;
      perf.loadedAt = null;
    }
    this.total = typeof m.total === 'number' ? m.total : this.model.length + tuples.length;
    this.model.append(tuples, this.total);
    this.selection.resize(this.model.length);
    perf.rows = this.model.length;
    this.complete = m.last === true;
    this.phase = this.complete ? 'ready' : 'loading';
    if (offset === 0 || this.complete) {
      this.update();
      if (offset === 0) {
        requestAnimationFrame(() => {
          perf.firstPaintMs = Math.round((performance.now() - this.firstRowsAt) * 10) / 10;
          perf.firstPaintAt = Date.now();
        });
      }
    } else {
      this.scheduleStreamUpdate();
    }
    if (this.complete) {
      perf.loadedAt = Date.now();
      this.prerankWhenIdle();
    }
  }

  private onError(m: Extract<HostMessage, { type: 'error' }>): void {
    this.rowQueue.length = 0;
    this.phase = 'error';
    this.complete = true;
    this.stateEl.replaceChildren();
    const box = el('div', { class: 'state-box error', attrs: { 'data-testid': 'error', role: 'alert' } });
    box.append(icon('error', 'state-icon'), el('p', { class: 'state-title', text: 'The records could not be loaded' }), el('p', { class: 'state-message', text: typeof m.message === 'string' ? m.message : 'Unknown error.' }));
    const actions = el('div', { class: 'state-actions' });
    if (m.canRetry !== false) {
      const retry = button('Retry', { icon: 'refresh', testid: 'retry' });
      retry.addEventListener('click', () => {
        this.phase = 'loading';
        this.loadingMessage = 'Retrying…';
        this.render();
        post({ type: 'retry' });
      });
      actions.append(retry);
    }
    if (m.canUpdateKey) {
      const key = button('Update API Key…', { icon: 'key', class: 'button secondary', testid: 'update-key' });
      key.addEventListener('click', () => post({ type: 'updateKey' }));
      actions.append(key);
    }
    box.append(actions);
    this.stateEl.append(box);
    this.render();
    (actions.querySelector('button') as HTMLButtonElement | null)?.focus();
  }

  private onCommand(command: unknown): void {
    switch (command) {
      case 'exportJson':
        void this.exportRows('json');
        return;
      case 'exportCsv':
        void this.exportRows('csv');
        return;
      case 'copyJson':
        void this.copyFocused();
        return;
      case 'selectAll': {
        // The host's Select All reaches us even while the search box has focus: select its text then.
        const active = document.activeElement;
        if (active instanceof HTMLInputElement) {
          active.select();
          return;
        }
        this.selection.selectAll(this.view);
        this.afterSelection(false);
        return;
      }
    }
  }

  // ---- view computation ----------------------------------------------------------------------

  private scheduleStreamUpdate(): void {
    if (this.updateTimer) return;
    const wait = Math.max(0, STREAM_UPDATE_MS - (performance.now() - this.lastUpdate));
    this.updateTimer = window.setTimeout(() => {
      this.updateTimer = 0;
      this.update();
    }, wait);
  }

  /** Recomputes the view (filter, sort, facets, summary) and repaints; `renderTable: false` when the caller scrolls next. */
  private update(renderTable = true): void {
    if (this.updateTimer) {
      clearTimeout(this.updateTimer);
      this.updateTimer = 0;
    }
    this.lastUpdate = performance.now();
    this.view = this.model.compute(this.query);
    this.table.setRows(this.view.order, renderTable);
    this.facets.update(this.view.facets);
    this.summary.update(this.view.summary, this.model.length);
    this.applyRestore();
    this.render();
  }

  private applyRestore(): void {
    const r = this.pendingRestore;
    if (!r || !this.complete || this.phase === 'error') return;
    this.pendingRestore = undefined;
    if (r.focused !== undefined && r.focused < this.model.length) {
      this.selection.selectOnly(r.focused);
      this.afterSelection(false, false);
    }
    this.table.scrollTop = r.scrollTop;
  }

  /** A search, facet or sort change: recompute now, keep the focused row in sight. */
  private viewChanged(kind: 'filter' | 'sort'): void {
    const t0 = performance.now();
    this.pendingRestore = undefined;
    this.update(false);
    const pos = this.selection.focus >= 0 ? this.view.posOf[this.selection.focus] ?? -1 : -1;
    if (pos >= 0) this.table.reveal(pos);
    else this.table.scrollTop = 0;
    const ms = Math.round((performance.now() - t0) * 10) / 10;
    if (kind === 'sort') perf.lastSortMs = ms;
    else {
      perf.lastFilterMs = ms;
      if (this.announceTimer) clearTimeout(this.announceTimer);
      this.announceTimer = window.setTimeout(() => {
        this.announcer.textContent = `${plural(this.view.order.length, 'row', 'rows')} of ${formatCount(this.model.length)}`;
      }, 600);
    }
    this.updateSelectionUi();
    this.schedulePersist();
  }

  private sortBy(column: ColumnId): void {
    const cur = this.query.sort;
    this.query.sort = cur && cur.column === column ? { column, descending: !cur.descending } : { column, descending: false };
    this.table.setSort(this.query.sort);
    this.viewChanged('sort');
  }

  private setSearch(text: string): void {
    this.searchInput.value = text;
    this.query.search = text;
    this.viewChanged('filter');
  }

  private toggleFacet(f: FacetId, key: string): void {
    const cur = new Set(this.query.facets[f] ?? []);
    if (cur.has(key)) cur.delete(key);
    else cur.add(key);
    if (cur.size) this.query.facets[f] = [...cur];
    else delete this.query.facets[f];
    this.viewChanged('filter');
  }

  private clearFacets(f: FacetId | undefined): void {
    if (f) delete this.query.facets[f];
    else this.query.facets = {};
    this.viewChanged('filter');
  }

  /** After the rows are all in, rank the other columns in idle time so a first sort is instant. */
  private prerankWhenIdle(): void {
    if (this.idleHandle) cancelIdleCallback(this.idleHandle);
    const step = (deadline: IdleDeadline): void => {
      this.idleHandle = 0;
      while (deadline.timeRemaining() > 8) if (!this.model.prerankNext()) return;
      this.idleHandle = requestIdleCallback(step, { timeout: 2000 });
    };
    this.idleHandle = requestIdleCallback(step, { timeout: 2000 });
  }

  // ---- selection and keyboard ----------------------------------------------------------------

  private onGridKey(e: KeyboardEvent): boolean {
    const mods = { shift: e.shiftKey, ctrl: primaryModifier(e) };
    const nav: Record<string, NavKey> = { ArrowUp: 'up', ArrowDown: 'down', PageUp: 'pageUp', PageDown: 'pageDown', Home: 'home', End: 'end' };
    const key = nav[e.key];
    if (key) {
      this.selection.navigate(this.view, key, mods, this.table.pageSize());
      this.afterSelection(true);
      return true;
    }
    if (e.key === ' ') {
      if (this.selection.focus < 0 || (this.view.posOf[this.selection.focus] ?? -1) < 0) this.selection.navigate(this.view, 'home', { shift: false, ctrl: false }, 1);
      else this.selection.toggleFocused();
      this.afterSelection(true);
      return true;
    }
    if (mods.ctrl && !e.altKey && (e.key === 'a' || e.key === 'A')) {
      this.selection.selectAll(this.view);
      this.afterSelection(false);
      return true;
    }
    if (e.key === 'Escape' && this.selection.count > 0) {
      this.selection.clear();
      this.afterSelection(false);
      return true;
    }
    if (e.key === 'Enter' && this.selection.focus >= 0) {
      this.setDetailOpen(true);
      return true;
    }
    if (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) {
      const pos = this.selection.focus >= 0 ? this.view.posOf[this.selection.focus] ?? -1 : -1;
      if (pos >= 0) this.table.reveal(pos);
      const rect = pos >= 0 ? this.table.rowRect(pos) : undefined;
      const area = this.table.element.getBoundingClientRect();
      this.openContextMenu(pos >= 0 ? this.selection.focus : -1, rect ? rect.left + 24 : area.left + 24, rect ? rect.bottom : area.top + 40);
      return true;
    }
    return false;
  }

  private focusGrid(): void {
    this.table.element.focus();
    if ((this.selection.focus < 0 || (this.view.posOf[this.selection.focus] ?? -1) < 0) && this.view.order.length > 0) {
      this.selection.navigate(this.view, 'home', { shift: false, ctrl: true }, 1);
      this.afterSelection(true);
    }
  }

  /** Repaints what depends on the selection; `reveal` scrolls the focused row into view. */
  private afterSelection(reveal: boolean, persist = true): void {
    const pos = this.selection.focus >= 0 ? this.view.posOf[this.selection.focus] ?? -1 : -1;
    if (reveal && pos >= 0) this.table.reveal(pos);
    this.table.render();
    this.updateSelectionUi();
    this.focusChanged();
    if (this.selectionTimer) clearTimeout(this.selectionTimer);
    this.selectionTimer = window.setTimeout(() => post({ type: 'selectionChanged', count: this.selection.count }), 100);
    if (persist) this.schedulePersist();
  }

  private updateSelectionUi(): void {
    const n = this.selection.count;
    const shown = this.selection.visibleCount(this.view);
    this.selectedCount.textContent = n === shown || n === 0 ? `${formatCount(n)} selected` : `${formatCount(n)} selected (${formatCount(n - shown)} hidden by filters)`;
    this.selectedCount.dataset.value = String(n);
    const filtered = this.view.order.length;
    for (const [b, format] of [[this.exportJson, 'JSON'], [this.exportCsv, 'CSV']] as const) {
      const scope = b.querySelector('.button-scope')!;
      if (n > 0) {
        scope.textContent = ` (${formatCount(n)} selected)`;
        b.title = `Export the ${plural(n, 'selected row', 'selected rows')} as ${format}`;
        b.disabled = false;
        b.dataset.what = 'selected';
      } else {
        scope.textContent = ` (${formatCount(filtered)} filtered)`;
        b.title = filtered > 0 ? `Nothing is selected: export all ${plural(filtered, 'filtered row', 'filtered rows')} as ${format}` : 'No rows to export';
        b.disabled = filtered === 0;
        b.dataset.what = 'filtered';
      }
      b.setAttribute('aria-label', b.title);
    }
  }

  // ---- detail --------------------------------------------------------------------------------

  private focusChanged(): void {
    const index = this.selection.focus;
    if (this.detailTimer) clearTimeout(this.detailTimer);
    if (!this.detailOpen) return;
    if (index < 0 || index >= this.model.length) {
      this.detail.showPlaceholder();
      return;
    }
    if (this.detail.shownIndex === index && !this.detailCache.has(index)) return;
    const cached = this.detailCache.get(index);
    if (cached) {
      if (this.detail.shownIndex !== index) this.detail.show(cached, this.rowLabel(index));
      return;
    }
    this.detail.showLoading(index, this.rowLabel(index));
    this.detailTimer = window.setTimeout(() => {
      this.detailTimer = 0;
      request<RowDetail>({ type: 'getRow', index })
        .then((d) => {
          if (!d || typeof d !== 'object') throw new Error('The host sent no row.');
          this.detailCache.set(index, d);
          if (this.detailCache.size > DETAIL_CACHE) this.detailCache.delete(this.detailCache.keys().next().value!);
          if (this.selection.focus === index) this.detail.show(d, this.rowLabel(index));
        })
        .catch((err: Error) => {
          if (this.selection.focus === index) this.detail.showError(index, err.message);
        });
    }, DETAIL_DELAY_MS);
  }

  private rowLabel(index: number): string {
    const s = this.model.store;
    return [s.cell(index, 'source'), s.cell(index, 'ipAddress')].filter(Boolean).join(' · ');
  }

  private async copyFocused(): Promise<void> {
    let index = this.selection.focus;
    if (index < 0 && this.selection.count > 0) index = this.selection.selectedIn(this.view.order)[0] ?? -1;
    if (index < 0) {
      this.setStatus('Select a row to copy its JSON.', true);
      return;
    }
    try {
      await request<null>({ type: 'copyRow', index });
      this.setStatus(`Copied row ${index + 1} as JSON.`, false);
    } catch (err) {
      this.setStatus((err as Error).message, true);
    }
  }

  // ---- export --------------------------------------------------------------------------------

  private async exportRows(format: 'json' | 'csv'): Promise<void> {
    const selected = this.selection.count > 0;
    // Selected rows in the current sort order (rows hidden by the filters included); or, with
    // nothing selected, every filtered row as shown.
    const indices = selected ? this.selection.selectedIn(this.model.sortedOrder(this.query.sort)) : this.view.order;
    const what = selected ? 'selected' : 'filtered';
    const label = format.toUpperCase();
    if (indices.length === 0) {
      this.setStatus('No rows to export.', true);
      return;
    }
    const rows = plural(indices.length, `${what} row`, `${what} rows`);
    this.setStatus(`Exporting ${rows} as ${label}…`, false, true);
    try {
      const result = await request<{ count?: number } | null>({ type: 'export', format, indices: Array.from(indices), what });
      const count = result && typeof result.count === 'number' ? result.count : indices.length;
      this.setStatus(`Exported ${plural(count, `${what} row`, `${what} rows`)} as ${label}.`, false);
    } catch (err) {
      this.setStatus(`Export failed: ${(err as Error).message}`, true);
    }
  }

  private statusTimer = 0;

  private setStatus(text: string, isError: boolean, sticky = false): void {
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.exportStatus.replaceChildren();
    if (text) this.exportStatus.append(icon(isError ? 'error' : sticky ? 'loading' : 'check', sticky ? 'codicon-modifier-spin' : ''), el('span', { text }));
    this.exportStatus.classList.toggle('error-text', isError);
    this.exportStatus.title = text;
    if (!isError && !sticky && text) this.statusTimer = window.setTimeout(() => this.exportStatus.replaceChildren(), 5000);
  }

  // ---- menus ---------------------------------------------------------------------------------

  private openContextMenu(index: number, x: number, y: number): void {
    if (index >= 0 && !this.selection.has(index)) {
      this.selection.selectOnly(index);
      this.afterSelection(false);
    } else if (index >= 0 && this.selection.focus !== index) {
      this.selection.focus = index;
      this.afterSelection(false);
    }
    this.contextMenu.showAt(x, y);
  }

  private contextEntries(): MenuEntry[] {
    const n = this.selection.count;
    const filtered = this.view.order.length;
    const scope = n > 0 ? plural(n, 'Selected Row', 'Selected Rows') : plural(filtered, 'Filtered Row', 'Filtered Rows');
    const none = n === 0 && filtered === 0;
    return [
      { label: `Export ${scope} as JSON`, action: 'export-json', disabled: none },
      { label: `Export ${scope} as CSV`, action: 'export-csv', disabled: none },
      'separator',
      { label: 'Copy Row JSON', action: 'copy-json', disabled: this.selection.focus < 0 },
      'separator',
      { label: 'Select All', action: 'select-all', disabled: filtered === 0 },
      { label: 'Clear Selection', action: 'clear-selection', disabled: n === 0 },
    ];
  }

  private columnEntries(): MenuEntry[] {
    const visible = this.visibleColumns().length;
    const entries: MenuEntry[] = COLUMNS.map((c) => ({
      label: COLUMN_LABELS[c],
      action: `toggle-column:${c}`,
      checked: !this.hidden.has(c),
      // The last visible column stays.
      disabled: !this.hidden.has(c) && visible === 1,
      keepOpen: true,
      attrs: { 'data-column-toggle': c },
    }));
    entries.push('separator', { label: 'Show All Columns', action: 'show-all-columns', disabled: this.hidden.size === 0, keepOpen: true });
    return entries;
  }

  private runAction(action: string): void {
    if (action.startsWith('toggle-column:')) {
      const c = action.slice('toggle-column:'.length) as ColumnId;
      if (!(COLUMNS as readonly string[]).includes(c)) return;
      if (this.hidden.has(c)) this.hidden.delete(c);
      else if (this.visibleColumns().length > 1) this.hidden.add(c);
      this.table.setColumns(this.visibleColumns());
      this.schedulePersist();
      return;
    }
    switch (action) {
      case 'show-all-columns':
        this.hidden.clear();
        this.table.setColumns(this.visibleColumns());
        this.schedulePersist();
        return;
      case 'export-json':
        void this.exportRows('json');
        return;
      case 'export-csv':
        void this.exportRows('csv');
        return;
      case 'copy-json':
        void this.copyFocused();
        return;
      case 'select-all':
        this.selection.selectAll(this.view);
        this.afterSelection(false);
        return;
      case 'clear-selection':
        this.selection.clear();
        this.afterSelection(false);
        return;
    }
  }

  private visibleColumns(): ColumnId[] {
    return COLUMNS.filter((c) => !this.hidden.has(c));
  }

  // ---- layout and states ---------------------------------------------------------------------

  private setFacetsOpen(open: boolean): void {
    this.facetsOpen = open;
    this.bodyEl.classList.toggle('hide-facets', !open);
    this.facetsToggle.setAttribute('aria-pressed', String(open));
    const label = open ? 'Hide filters' : 'Show filters';
    this.facetsToggle.title = label;
    this.facetsToggle.setAttribute('aria-label', label);
    this.table.render();
  }

  private setDetailOpen(open: boolean): void {
    this.detailOpen = open;
    this.bodyEl.classList.toggle('hide-detail', !open);
    this.detailToggle.setAttribute('aria-pressed', String(open));
    const label = open ? 'Hide details' : 'Show details';
    this.detailToggle.title = label;
    this.detailToggle.setAttribute('aria-label', label);
    this.table.render();
    if (open) this.focusChanged();
  }

  /** Shows the state that fits: loading, error, empty, no matches, or the table. */
  private render(): void {
    const rows = this.model.length;
    this.root.dataset.phase = this.phase;
    this.root.classList.toggle('no-rows', rows === 0);
    const loading = this.phase === 'waiting' || this.phase === 'loading';
    this.progress.classList.toggle('active', loading);
    this.progress.hidden = !loading;
    // While rows stream in, the bar shows how many arrived; before the first ones it just moves.
    const streaming = loading && rows > 0 && this.total > 0;
    this.progress.classList.toggle('determinate', streaming);
    this.progressBar.style.width = streaming ? `${Math.min(100, (rows / this.total) * 100)}%` : '';
    if (streaming) {
      this.progress.setAttribute('aria-valuemin', '0');
      this.progress.setAttribute('aria-valuemax', String(this.total));
      this.progress.setAttribute('aria-valuenow', String(rows));
    } else {
      for (const a of ['aria-valuemin', 'aria-valuemax', 'aria-valuenow']) this.progress.removeAttribute(a);
    }
    this.loadNote.textContent = streaming ? `Loading… ${formatCount(rows)} of ${formatCount(this.total)} rows` : '';
    this.loadNote.hidden = !streaming;
    if (this.phase === 'error') {
      this.stateEl.hidden = false;
      this.tableArea.classList.add('has-state');
      return;
    }
    this.stateEl.replaceChildren();
    let box: HTMLElement | undefined;
    if (rows === 0 && loading) {
      box = el('div', { class: 'state-box', attrs: { 'data-testid': 'loading' } });
      box.append(icon('loading', 'state-icon codicon-modifier-spin'), el('p', { class: 'state-message', text: this.loadingMessage }));
    } else if (rows === 0 && this.phase === 'ready') {
      box = el('div', { class: 'state-box', attrs: { 'data-testid': 'empty' } });
      box.append(icon('inbox', 'state-icon'), el('p', { class: 'state-title', text: 'No rows in this range' }), el('p', { class: 'state-message', text: 'The DMARC reports have no records between these dates.' }));
    } else if (rows > 0 && this.view.order.length === 0) {
      box = el('div', { class: 'state-box', attrs: { 'data-testid': 'no-matches' } });
      const clear = button('Clear Search and Filters', { class: 'button secondary', testid: 'clear-filters' });
      clear.addEventListener('click', () => {
        this.searchInput.value = '';
        this.query.search = '';
        this.query.facets = {};
        this.viewChanged('filter');
      });
      box.append(icon('search', 'state-icon'), el('p', { class: 'state-title', text: 'No rows match' }), el('p', { class: 'state-message', text: 'No row matches the search and the filters.' }), clear);
    }
    if (box) this.stateEl.append(box);
    this.stateEl.hidden = !box;
    this.tableArea.classList.toggle('has-state', !!box && rows === 0);
    this.searchClear.hidden = this.searchInput.value === '';
    this.progress.title = loading && rows > 0 && this.total > 0 ? `Loaded ${formatCount(rows)} of ${formatCount(this.total)} rows` : '';
    this.progress.setAttribute('aria-valuetext', loading ? (rows > 0 ? `Loaded ${formatCount(rows)} of ${formatCount(this.total)} rows` : this.loadingMessage) : 'Done');
    this.updateSelectionUi();
  }

  private renderNotices(): void {
    const list = this.notices;
    this.noticesEl.replaceChildren();
    this.noticesEl.hidden = list.length === 0;
    if (!list.length) return;
    const shown = this.noticesExpanded ? list : list.slice(0, 2);
    const items = el('ul', { class: 'notice-list' });
    for (const n of shown) items.append(el('li', { text: n }));
    const actions = el('div', { class: 'notice-actions' });
    if (list.length > 2) {
      const more = el('button', { class: 'link-button', text: this.noticesExpanded ? 'Show less' : `Show all ${list.length}`, attrs: { type: 'button' } });
      more.addEventListener('click', () => {
        this.noticesExpanded = !this.noticesExpanded;
        this.renderNotices();
      });
      actions.append(more);
    }
    const dismiss = iconButton('close', 'Dismiss', 'notices-dismiss');
    dismiss.addEventListener('click', () => {
      this.notices = [];
      this.renderNotices();
    });
    actions.append(dismiss);
    this.noticesEl.append(icon('warning', 'notice-icon'), items, actions);
  }

  // ---- persistence ---------------------------------------------------------------------------

  private currentViewState(): ViewState {
    const facets: ViewState['facets'] = {};
    for (const f of FACETS) {
      const keys = (this.query.facets[f] ?? []).filter((k) => k.length <= 200).slice(0, 100);
      if (keys.length) facets[f] = keys;
    }
    const v: ViewState = {
      hiddenColumns: [...this.hidden],
      search: this.query.search.slice(0, 1000),
      facets,
      scrollTop: Math.max(0, Math.round(this.table.scrollTop)),
      ...(this.query.sort ? { sort: { ...this.query.sort } } : {}),
      ...(this.selection.focus >= 0 ? { focused: this.selection.focus } : {}),
    };
    // A restore still waiting for its rows keeps its targets.
    if (this.pendingRestore) {
      v.scrollTop = this.pendingRestore.scrollTop;
      if (this.pendingRestore.focused !== undefined) v.focused = this.pendingRestore.focused;
    }
    return v;
  }

  private schedulePersist(): void {
    if (!this.identity) return;
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = window.setTimeout(() => this.persistNow(), PERSIST_DELAY_MS);
  }

  private persistNow(): void {
    if (!this.identity) return;
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = 0;
    const view = this.currentViewState();
    vscodeApi.setState({ identity: this.identity, view });
    post({ type: 'saveState', state: view });
  }
}

const rootEl = document.getElementById('root');
if (rootEl) {
  new App(rootEl);
  post({ type: 'ready' });
}

