/**
 * Webview entry of the Overview (bundled to dist/overview.js, styles to dist/overview.css): the
 * toolbar (period, Refresh, exports, where the load stands), the table (grid.ts) and what the
 * host sends (src/shared/overviewProtocol.ts). The page carries the rows known when it opened;
 * the rest arrive one message per organization, each replacing its row. The sort is kept with
 * setState. Timings and CSP violations are kept on `window.__dmarcOverview` for the tests and
 * the benchmark: plain numbers and strings, nothing that acts.
 */
import * as l10n from '@vscode/l10n';
// The records panel's styles (dist/webview.css, linked by the page) are shared; these are the Overview's own.
import '../styles/overview.css';
import '../l10nInit';
import type { OverviewDays, OverviewHostMessage, OverviewInit, OverviewMessage, OverviewProgress, OverviewRow } from '../../../src/shared/overviewProtocol';
import { bootInit, takeEarlyMessages } from '../boot';
import { button, el, iconButton } from '../dom';
import { formatCount } from '../format';
import { vscodeApi } from '../vscode';
import { columnInfo, nextSort, OVERVIEW_COLUMNS, sortRows, type OverviewColumn, type OverviewSort } from './columns';
import { OverviewGrid } from './grid';

interface Perf {
  csp: string[];
  /** Date.now() when this script started. */
  scriptAt: number;
  /** Date.now() when a row with figures (or an error) was first on screen, and when every row was. */
  firstRowAt: number | null;
  completeAt: number | null;
  rows: number;
}

declare global {
  interface Window {
    __dmarcOverview?: Perf;
  }
}

const perf: Perf = { csp: [], scriptAt: Date.now(), firstRowAt: null, completeAt: null, rows: 0 };
window.__dmarcOverview = perf;
document.addEventListener('securitypolicyviolation', (e) => {
  if (perf.csp.length < 50) perf.csp.push(`${e.violatedDirective} ${e.blockedURI}`.slice(0, 300));
});

const DAYS: readonly OverviewDays[] = [7, 30, 90];
const DEFAULT_SORT: OverviewSort = { column: 'pass', descending: false };

function post(m: OverviewMessage): void {
  vscodeApi.postMessage(m);
}

/** The sort kept in the page's state, if it is one. */
function savedSort(): OverviewSort {
  const s = (vscodeApi.getState() as { sort?: { column?: unknown; descending?: unknown } } | undefined)?.sort;
  return s && OVERVIEW_COLUMNS.includes(s.column as OverviewColumn) && typeof s.descending === 'boolean' ? { column: s.column as OverviewColumn, descending: s.descending } : DEFAULT_SORT;
}

class OverviewApp {
  private load = -1;
  private days: OverviewDays = 30;
  private startMs = 0;
  private rows = new Map<string, OverviewRow>();
  private progress: OverviewProgress = { total: 0, loaded: 0, failed: 0, cancelled: 0, done: false };
  private sort = savedSort();
  private frame = 0;
  private nextRequest = 1;
  private readonly root = el('div', { class: 'overview', attrs: { 'data-testid': 'overview', 'data-phase': 'loading' } });
  private readonly range = el('span', { class: 'ov-range', attrs: { 'data-testid': 'overview-range' } });
  private readonly compared = el('span', { class: 'ov-compared muted' });
  private readonly status = el('span', { class: 'ov-status', attrs: { role: 'status', 'data-testid': 'overview-status' } });
  private readonly announce = el('div', { class: 'sr-only', attrs: { 'aria-live': 'polite', 'data-testid': 'overview-announce' } });
  private readonly empty = el('div', { class: 'ov-empty muted', text: l10n.t('No organizations yet: add an account and an organization, or open report files.'), attrs: { hidden: true } });
  private readonly periodButtons = new Map<OverviewDays, HTMLButtonElement>();
  private readonly grid = new OverviewGrid({
    onSort: (column) => this.setSort(nextSort(this.sort, column)),
    onOpen: (row) => post({ type: 'open', key: row.key }),
  });

  constructor() {
    const period = el('div', { class: 'segmented', attrs: { role: 'radiogroup', 'aria-label': l10n.t('Period'), 'data-testid': 'overview-period' } });
    for (const d of DAYS) {
      const b = el('button', { class: 'segment', text: l10n.t('{0} days', d), attrs: { type: 'button', role: 'radio', 'data-days': d } });
      b.addEventListener('click', () => this.setDays(d));
      this.periodButtons.set(d, b);
      period.append(b);
    }
    period.addEventListener('keydown', (e) => {
      const i = DAYS.indexOf(this.days) + (e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0);
      if (i === DAYS.indexOf(this.days) || i < 0 || i >= DAYS.length) return;
      e.preventDefault();
      this.setDays(DAYS[i]!);
      this.periodButtons.get(DAYS[i]!)?.focus();
    });
    const refresh = iconButton('refresh', l10n.t('Fetch every organization again'), 'overview-refresh');
    refresh.addEventListener('click', () => post({ type: 'refresh' }));
    const csv = button(l10n.t('CSV'), { icon: 'table', class: 'toolbar-button', title: l10n.t('Export the overview as CSV'), testid: 'overview-export-csv' });
    csv.addEventListener('click', () => void this.exportAs('csv'));
    const json = button(l10n.t('JSON'), { icon: 'json', class: 'toolbar-button', title: l10n.t('Export the overview as JSON'), testid: 'overview-export-json' });
    json.addEventListener('click', () => void this.exportAs('json'));
    const toolbar = el('div', { class: 'toolbar ov-toolbar' }, [
      el('h1', { class: 'ov-title', text: l10n.t('Overview') }), period, this.range, el('span', { class: 'spacer' }), this.status, refresh, csv, json,
    ]);
    const wrap = el('div', { class: 'ov-table-wrap' }, [this.grid.element, this.empty]);
    this.root.append(toolbar, el('div', { class: 'ov-subbar' }, [this.compared]), wrap, this.announce);
    document.getElementById('root')!.replaceChildren(this.root);
    window.addEventListener('message', (e) => this.onMessage(e.data as OverviewHostMessage));
  }

  onMessage(m: OverviewHostMessage): void {
    if (!m || typeof m !== 'object') return;
    switch (m.type) {
      case 'init':
        return this.init(m);
      case 'row':
        if (m.load !== this.load) return;
        this.rows.set(m.row.key, m.row);
        this.progress = m.progress;
        return this.schedule();
      case 'progress':
        if (m.load !== this.load) return;
        this.progress = m.progress;
        return this.schedule();
      case 'response':
        this.settle(m);
        return;
    }
  }

  private init(m: OverviewInit): void {
    // An init of an older load (the page's own copy after a newer message) changes nothing.
    if (m.load < this.load) return;
    this.load = m.load;
    this.days = m.days;
    this.startMs = m.startMs;
    this.rows = new Map(m.rows.map((r) => [r.key, r]));
    this.progress = m.progress;
    this.range.textContent = m.rangeLabel;
    this.compared.textContent = l10n.t('Δ compares with the previous {0} days: {1}', m.days, m.previousLabel);
    for (const [d, b] of this.periodButtons) {
      b.classList.toggle('active', d === m.days);
      b.setAttribute('aria-checked', String(d === m.days));
      b.tabIndex = d === m.days ? 0 : -1;
    }
    this.schedule();
  }

  /** Draws now what came so far (the page's first rows: no frame to wait for). */
  renderNow(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.render();
  }

  /** Renders in the next frame: a burst of rows is drawn once. */
  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private render(): void {
    const rows = sortRows([...this.rows.values()], this.sort);
    this.grid.render(rows, this.sort, this.startMs);
    this.empty.hidden = rows.length > 0;
    const p = this.progress;
    this.root.setAttribute('data-phase', p.done ? 'done' : 'loading');
    this.status.textContent = !p.done
      ? l10n.t('{0} of {1} organizations in…', formatCount(p.loaded + p.failed), formatCount(p.total))
      : p.failed || p.cancelled
        ? l10n.t('{0} organizations: {1} loaded, {2} failed, {3} not loaded', formatCount(p.total), formatCount(p.loaded), formatCount(p.failed), formatCount(p.cancelled))
        : p.total === 1 ? l10n.t('1 organization') : l10n.t('{0} organizations', formatCount(p.total));
    const shown = rows.filter((r) => r.state !== 'loading').length;
    perf.rows = shown;
    if (shown > 0 && perf.firstRowAt === null) perf.firstRowAt = Date.now();
    if (p.done && perf.completeAt === null && shown === rows.length) perf.completeAt = Date.now();
  }

  private setSort(sort: OverviewSort): void {
    this.sort = sort;
    vscodeApi.setState({ sort });
    const info = columnInfo()[sort.column];
    this.announce.textContent = sort.descending ? l10n.t('Sorted by {0}, descending', info.spoken ?? info.label) : l10n.t('Sorted by {0}, ascending', info.spoken ?? info.label);
    this.render();
  }

  private setDays(days: OverviewDays): void {
    if (days === this.days) return;
    this.days = days;
    for (const [d, b] of this.periodButtons) {
      b.classList.toggle('active', d === days);
      b.setAttribute('aria-checked', String(d === days));
    }
    // The benchmark times a new load from here.
    perf.firstRowAt = perf.completeAt = null;
    post({ type: 'setPeriod', days });
  }

  private readonly pending = new Map<number, (ok: boolean, error?: string) => void>();

  private settle(m: Extract<OverviewHostMessage, { type: 'response' }>): void {
    const done = this.pending.get(m.requestId);
    this.pending.delete(m.requestId);
    done?.(m.ok, m.ok ? undefined : m.error);
  }

  private async exportAs(format: 'json' | 'csv'): Promise<void> {
    const requestId = this.nextRequest++;
    const order = sortRows([...this.rows.values()], this.sort).map((r) => r.key);
    const result = new Promise<{ ok: boolean; error?: string }>((resolve) => this.pending.set(requestId, (ok, error) => resolve({ ok, error })));
    post({ type: 'export', requestId, format, order });
    const { ok, error } = await result;
    this.announce.textContent = ok ? l10n.t('Exported {0} organizations as {1}', formatCount(order.length), format.toUpperCase()) : error ?? '';
  }
}

const app = new OverviewApp();
// The rows the page was opened with, then what the host posted before this script ran.
const init = bootInit(document.body.dataset.init);
if (init) app.onMessage(init as unknown as OverviewInit);
for (const m of takeEarlyMessages()) app.onMessage(m as OverviewHostMessage);
app.renderNow();
post({ type: 'ready' });
