/**
 * Webview entry of the records panel (bundled to dist/webview.js, styles to dist/webview.css).
 * Wiring only: host messages in, one view state, the DOM-free model (data/) computes the view,
 * and each component (toolbar, facets, trend and groups, grid, details) renders its region.
 * Data flows one way: input → view state → compute → render. Record fields are only ever set as
 * textContent.
 */
import * as l10n from '@vscode/l10n';
import './styles.css';
import './l10nInit';
import { FACETS, NUMERIC_COLUMNS, type ColumnId, type FacetId } from '../../src/shared/columns';
import type { HostMessage, ViewState } from '../../src/shared/protocol';
import { Actions } from './actions';
import { Analysis } from './analysis';
import { RecordsModel, type Query, type View } from './data/query';
import { DetailPane } from './detail';
import { el } from './dom';
import { FacetsPanel } from './facets';
import { formatCount, plural } from './format';
import { Menu } from './menu';
import { errorBox, LoadStatus, Notices } from './panelStates';
import { RowPump, perf } from './rowPump';
import { Selection } from './selection';
import { SummaryBar } from './summary';
import { VirtualTable } from './table';
import { Toolbar } from './toolbar';
import { Persistence } from './persist';
import { onGridKey, wireDocumentKeys } from './gridKeys';
import { ColumnLayoutState } from './columnLayout';
import { emptyViewState, nextSort, startingPanes, startingView, toggledFacet } from './viewState';
import { post, settle, vscodeApi } from './vscode';
import { bootInit, takeEarlyMessages } from './boot';

type Phase = 'waiting' | 'loading' | 'ready' | 'error';

class App {
  readonly model = new RecordsModel();
  readonly selection = new Selection();
  view: View;
  state: ViewState = emptyViewState();
  phase: Phase = 'waiting';
  loadingMessage = l10n.t('Loading records…');
  total = 0;
  /** More rows are still arriving (the total is those known so far). */
  growing = false;
  complete = false;
  pendingRestore: { scrollTop: number; focused: number | undefined } | undefined;
  private selectionTimer = 0;
  private announceTimer = 0;
  private errorBox: HTMLElement | undefined;

  private readonly root: HTMLElement;
  readonly toolbar: Toolbar;
  private readonly rangeLabel = el('span', { class: 'range-label', attrs: { 'data-testid': 'range' } });
  private readonly summary = new SummaryBar();
  private readonly notices = new Notices();
  private readonly status: LoadStatus;
  private readonly bodyEl = el('div', { class: 'body' });
  private readonly facets: FacetsPanel;
  readonly table: VirtualTable;
  private readonly columns: ColumnLayoutState;
  readonly detail: DetailPane;
  private readonly analysis: Analysis;
  readonly actions: Actions;
  readonly contextMenu: Menu;
  private readonly columnsMenu: Menu;
  /** Screen-reader announcements (the row count after a search or filter). */
  private readonly announcer = el('div', { class: 'sr-only', attrs: { role: 'status', 'aria-live': 'polite' } });
  private readonly pump = new RowPump(this, { resend: (r) => post({ type: 'resend', load: r.load, from: r.from }), behind: (behind) => post({ type: 'rowsBehind', behind }) });
  private booted = false; // started from the page's copy of init (boot)
  private readonly persistence = new Persistence(() => ({ state: this.state, scrollTop: this.table.scrollTop, focused: this.selection.focus, pendingRestore: this.pendingRestore }));

  constructor(root: HTMLElement) {
    this.root = root;
    this.view = this.model.compute(this.query());
    root.querySelector('.boot')?.remove();
    root.setAttribute('data-testid', 'records-panel');
    root.classList.add('records-panel');
    this.toolbar = new Toolbar({
      onSearch: (text) => this.change({ search: text }),
      onSearchLeave: () => this.focusGrid(),
      onToggleFacets: () => this.change({ facetsOpen: !this.state.facetsOpen }, false),
      onToggleDetail: () => this.change({ detailOpen: !this.state.detailOpen }, false),
      onColumns: () => (this.columnsMenu.isOpen ? this.columnsMenu.close() : this.columnsMenu.showBelow(this.toolbar.columnsButton)),
      onExport: (format) => void this.actions.exportRows(format),
    });
    this.facets = new FacetsPanel({
      onToggle: (f, key) => this.toggleFacet(f, key),
      onClear: (f) => this.change({ facets: f ? { ...this.state.facets, [f]: [] } : {} }),
      onWeight: (facetWeight) => this.change({ facetWeight }, false),
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
      onKey: (e) => onGridKey(this, e),
      onScroll: () => this.persistence.schedule(),
      onLayout: (change) => this.columns.changed(change),
    });
    this.columns = new ColumnLayoutState(this.table);
    this.detail = new DetailPane({ onCopy: () => this.actions.copyFocused(), onClose: () => this.change({ detailOpen: false }, false) });
    this.actions = new Actions(this.model, this.selection, this.toolbar, this.detail, {
      view: () => this.view,
      sortedAll: () => this.model.sortedOrder(this.state.sort),
      columns: () => this.columns.all(),
      setColumns: (order, hidden) => this.columns.set(order, hidden),
      selectAll: () => {
        // The host's Select All reaches us even while a text box has focus: select its text then.
        if (document.activeElement instanceof HTMLInputElement) return document.activeElement.select();
        this.selection.selectAll(this.view);
        this.afterSelection(false);
      },
      clearSelection: () => {
        this.selection.clear();
        this.afterSelection(false);
      },
    });
    this.analysis = new Analysis(this.model, { change: (p) => this.change(p), actions: () => this.actions, complete: () => this.complete });
    this.status = new LoadStatus(root, this.table.element);
    const center = el('div', { class: 'center' }, [this.analysis.advice.element, this.analysis.trend.element, this.analysis.groups.element, this.status.tableArea]);
    this.bodyEl.append(this.facets.element, center, this.detail.element);
    const summaryRow = el('div', { class: 'summary-row' }, [this.summary.element, this.status.loadNote, this.rangeLabel]);
    root.append(this.toolbar.element, summaryRow, this.analysis.chips, this.notices.element, this.status.progress, this.bodyEl, this.announcer);
    this.contextMenu = new Menu(() => this.actions.contextEntries(), (a) => this.actions.run(a), { testid: 'context-menu', label: l10n.t('Row actions') });
    this.columnsMenu = new Menu(() => this.actions.columnEntries(), (a) => this.actions.run(a), { testid: 'columns-popup', label: l10n.t('Columns'), opener: this.toolbar.columnsButton });
    this.wire();
    this.columns.apply();
    this.applyPanes();
    this.render();
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
    wireDocumentKeys(this);
  }

  // ---- host messages -------------------------------------------------------------------------

  private onMessage(raw: unknown): void {
    if (!raw || typeof raw !== 'object' || typeof (raw as { type?: unknown }).type !== 'string') return;
    const m = raw as HostMessage;
    switch (m.type) {
      case 'init':
        // Started from the page's own copy: only how many rows went out before is news.
        if (this.booted) return this.pump.start(m.rows);
        return this.onInit(m);
      case 'loading':
        if (typeof m.load === 'number' && this.pump.isStale(m.load)) return; // came after its rows: not news
        this.pump.cancel();
        this.phase = 'loading';
        this.complete = false;
        this.loadingMessage = typeof m.message === 'string' && m.message ? m.message : l10n.t('Loading records…');
        return this.render();
      case 'rows':
        return this.pump.push(m);
      case 'notices':
        return this.notices.set(Array.isArray(m.notices) ? m.notices.filter((n): n is string => typeof n === 'string') : []);
      case 'error':
        return this.onError(m);
      case 'response':
        return settle(m as { requestId: number; ok: boolean; result?: unknown; error?: string });
      case 'command':
        return this.actions.hostCommand(m.command);
      case 'compareRows': // the previous period's rows (the Compare switch), kept apart from the rows
        return this.analysis.compare.previous.onRows(m);
      case 'compareStatus':
        return this.analysis.compare.previous.onStatus(m.state, m.message);
      case 'advice': // the dmarc.advice settings, the policy the rows' reports state, or the owner's marks
        return this.analysis.setAdvice(m, () => [this.state, this.view]);
    }
  }

  /** Starts from the page's copy of `init` (boot.ts), then reads the messages that came before this script. */
  boot(init: Extract<HostMessage, { type: 'init' }> | undefined, early: unknown[]): void {
    if (init) this.onInit(init);
    this.booted = init !== undefined;
    for (const m of early) this.onMessage(m);
  }

  private onInit(m: Extract<HostMessage, { type: 'init' }>): void {
    this.persistence.identity = m.identity;
    document.title = typeof m.title === 'string' ? m.title : l10n.t('DMARC records');
    this.root.setAttribute('aria-label', document.title);
    this.rangeLabel.textContent = typeof m.rangeLabel === 'string' ? m.rangeLabel : '';
    const start = Date.parse(String(m.identity?.start));
    const end = Date.parse(String(m.identity?.end));
    if (Number.isFinite(start) && Number.isFinite(end)) this.analysis.setRange(start, end);
    this.analysis.setAdvice({ thresholds: m.thresholds, marks: m.marks }, () => [this.state, this.view]);
    this.columns.load(m.layout);
    const view = (this.state = startingView(vscodeApi.getState(), m, startingPanes(this.columns.panes, { width: innerWidth, height: innerHeight })));
    this.toolbar.setSearch(view.search);
    this.facets.setWeight(view.facetWeight);
    this.pendingRestore = view.scrollTop > 0 || view.focused !== undefined ? { scrollTop: view.scrollTop, focused: view.focused } : undefined;
    this.table.setSort(view.sort);
    this.applyPanes();
    this.update();
    this.persistence.now();
    this.pump.start(m.rows); // rows that came before init are read now
  }

  onError(m: Extract<HostMessage, { type: 'error' }>): void {
    const message = typeof m.message === 'string' ? m.message : l10n.t('Unknown error.');
    if (typeof m.partial === 'number' && m.partial > 0 && (this.model.length > 0 || this.pump.queued > 0)) {
      // The load failed after rows arrived: they stay (those still being read too), said to be incomplete, with Retry.
      this.phase = 'ready';
      this.complete = true;
      this.growing = false;
      this.notices.incomplete(Math.max(this.model.length, m.partial as number), message, () => post({ type: 'retry' }));
      return this.update();
    }
    this.pump.cancel();
    this.phase = 'error';
    this.complete = true;
    this.errorBox = errorBox(message, m.canRetry !== false, m.canUpdateKey === true, {
      retry: () => {
        this.phase = 'loading';
        this.loadingMessage = l10n.t('Retrying…');
        this.render();
        post({ type: 'retry' });
      },
      updateKey: () => post({ type: 'updateKey' }),
    });
    this.render();
    this.errorBox.querySelector('button')?.focus();
  }

  // ---- view state → compute → render ---------------------------------------------------------

  query(): Query {
    const s = this.state;
    return { search: s.search, facets: s.facets, sort: s.sort, days: s.days, groups: s.groups };
  }

  /** Applies a change to the view state; `recompute: false` for what only changes the layout. */
  change(patch: Partial<ViewState>, recompute = true): void {
    this.state = { ...this.state, ...patch };
    if ('facets' in patch) for (const f of FACETS) if (!this.state.facets[f]?.length) delete this.state.facets[f];
    if ('facetWeight' in patch) this.facets.setWeight(this.state.facetWeight);
    if ('facetsOpen' in patch || 'detailOpen' in patch) this.applyPanes();
    for (const [k, pane] of [['adviceOpen', 'advice'], ['trendOpen', 'trend'], ['detailOpen', 'detail']] as const) if (k in patch) this.columns.setPane(pane, this.state[k]);
    // How rows are grouped or the trend split changes no filter: only the analysis is redrawn.
    const analysisOnly = Object.keys(patch).every((k) => k === 'groupBy' || k === 'thenBy' || k === 'trendSplit' || k === 'share' || k === 'trendOpen' || k === 'compare');
    if (recompute && analysisOnly) {
      this.analysis.update(this.state, this.view);
      this.persistence.schedule();
    } else if (recompute) this.viewChanged('sort' in patch ? 'sort' : 'filter');
    else this.persistence.schedule();
  }

  /** Recomputes the view (filter, sort, summary, and the facets, trend and groups: now, 'later' (after the next frame) or not) and repaints. */
  update(renderTable = true, analysis: boolean | 'later' = true): void {
    this.pump.settleUpdate();
    this.view = this.model.compute(this.query());
    this.table.setRows(this.view.order, renderTable);
    if (analysis === 'later') this.facets.updateLater(() => this.view.facets);
    else this.facets.update(this.view.facets);
    this.summary.update(this.view.summary, this.model.length);
    if (analysis) this.analysis.refresh(analysis, () => [this.state, this.view]);
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

  /** A search, filter or sort change: recompute now, keep the focused row in sight. */
  private viewChanged(kind: 'filter' | 'sort'): void {
    const t0 = performance.now();
    this.pendingRestore = undefined;
    const resorted = kind === 'sort' ? this.model.resort(this.view, this.state.sort) : undefined;
    if (resorted) {
      this.pump.settleUpdate();
      this.view = resorted;
      this.table.setRows(resorted.order, false);
      this.render();
    } else this.update(false, kind === 'filter' ? 'later' : true);
    const pos = this.selection.focus >= 0 ? this.view.posOf[this.selection.focus] ?? -1 : -1;
    if (pos >= 0) this.table.reveal(pos);
    else this.table.scrollTop = 0;
    const ms = Math.round((performance.now() - t0) * 10) / 10;
    if (kind === 'sort') perf.lastSortMs = ms;
    else {
      perf.lastFilterMs = ms;
      perf.lastSearchMs = Math.round(this.model.timings.searchMs * 10) / 10;
      if (this.announceTimer) clearTimeout(this.announceTimer);
      this.announceTimer = window.setTimeout(() => (this.announcer.textContent = l10n.t('{0} of {1}', plural(this.view.order.length, l10n.t('row'), l10n.t('rows')), formatCount(this.model.length))), 600);
    }
    this.updateSelectionUi();
    this.persistence.schedule();
  }

  private sortBy(column: ColumnId): void {
    const sort = nextSort(this.state.sort, column, NUMERIC_COLUMNS.includes(column));
    this.table.setSort(sort);
    this.change({ sort });
  }

  private toggleFacet(f: FacetId, key: string): void {
    this.change({ facets: toggledFacet(this.state.facets, f, key) });
  }

  // ---- selection and keyboard ----------------------------------------------------------------

  focusGrid(): void {
    this.table.element.focus();
    if (this.selection.focus < 0 && this.view.order.length > 0) {
      this.selection.navigate(this.view, 'home', { shift: false, ctrl: true }, 1);
      this.afterSelection(true);
    }
  }

  afterSelection(reveal: boolean, persist = true): void {
    const pos = this.selection.focus >= 0 ? this.view.posOf[this.selection.focus] ?? -1 : -1;
    if (reveal && pos >= 0) this.table.reveal(pos);
    else this.table.render();
    this.updateSelectionUi();
    this.actions.showFocused(this.state.detailOpen);
    if (this.selectionTimer) clearTimeout(this.selectionTimer);
    this.selectionTimer = window.setTimeout(() => post({ type: 'selectionChanged', count: this.selection.count }), 100);
    if (persist) this.persistence.schedule();
  }

  private updateSelectionUi(): void {
    this.toolbar.setSelection(this.selection.count, this.selection.visibleCount(this.view), this.view.order.length);
  }

  private openContextMenu(index: number, x: number, y: number): void {
    if (index >= 0 && !this.selection.has(index)) this.selection.selectOnly(index);
    else if (index >= 0) this.selection.focus = index;
    if (index >= 0) this.afterSelection(false);
    this.contextMenu.showAt(x, y);
  }

  // ---- layout and states ---------------------------------------------------------------------

  private applyPanes(): void {
    this.bodyEl.classList.toggle('hide-facets', !this.state.facetsOpen);
    this.bodyEl.classList.toggle('hide-detail', !this.state.detailOpen);
    this.detail.setCollapsed(!this.state.detailOpen, () => this.change({ detailOpen: true }, false));
    this.toolbar.setToggles(this.state.facetsOpen, this.state.detailOpen);
    this.table.render();
    if (this.state.detailOpen) this.actions.showFocused(true);
  }

  /** Shows the state that fits: loading, error, empty, no matches, or the table. */
  render(): void {
    this.status.render({
      phase: this.phase,
      rows: this.model.length,
      total: this.total,
      growing: this.growing,
      shown: this.view.order.length,
      loadingMessage: this.loadingMessage,
      errorBox: this.errorBox,
      onClear: () => (this.facets.clearFilterText(), this.change({ search: '', facets: {}, days: undefined, groups: [] })),
    });
    this.toolbar.setSearch(this.state.search);
    this.updateSelectionUi();
  }
}

export type { App };

const rootEl = document.getElementById('root');
if (rootEl) {
  const early = takeEarlyMessages();
  new App(rootEl).boot(bootInit(document.body.dataset.init), early);
  post({ type: 'ready' });
}
