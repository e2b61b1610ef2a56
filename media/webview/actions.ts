/**
 * What the user can do with rows: export (selected, else filtered), copy a row's JSON, the row
 * context menu, the columns menu (show, hide, move), and the details pane's loading of a row's
 * JSON from the host. Each asks the host and reports back on the toolbar's status line.
 */
import * as l10n from '@vscode/l10n';
import type { ColumnId } from '../../src/shared/columns';
import type { AdviceExportRow, GroupExportRow, RowDetail } from '../../src/shared/protocol';
import type { RecordsModel, View } from './data/query';
import type { DetailPane } from './detail';
import { COLUMN_LABELS, plural } from './format';
import type { MenuEntry } from './menu';
import type { Selection } from './selection';
import type { Toolbar } from './toolbar';
import { request } from './vscode';

const DETAIL_DELAY_MS = 60;
const DETAIL_CACHE = 64;

/** The host's answer to an export: how many it exported, and the tab's name when the tab waits behind the panel. */
type Exported = { count?: number; tab?: string } | null;

/** The page's width, with each export asked for: the host opens it beside a wide panel only (src/export/openExport.ts). */
function pageWidth(): number {
  return Math.round(innerWidth);
}

/** The name of the tab an export opened behind this panel (untrusted: text only, bounded). */
function tabOf(result: Exported): string | undefined {
  return typeof result?.tab === 'string' && result.tab ? result.tab.slice(0, 200) : undefined;
}

/** "Exported 3 selected rows as JSON.", naming the tab when it opened behind the panel (its place is not in sight). */
function exportedText(what: string, format: string, result: Exported): string {
  const tab = tabOf(result);
  return tab ? l10n.t('Exported {0} as {1} to the tab {2}, next to this one.', what, format, tab) : l10n.t('Exported {0} as {1}.', what, format);
}

export interface ActionsHost {
  view(): View;
  sortedAll(): Uint32Array;
  columns(): { order: ColumnId[]; hidden: Set<ColumnId> };
  setColumns(order: ColumnId[], hidden: Set<ColumnId>): void;
  selectAll(): void;
  clearSelection(): void;
}

export class Actions {
  private readonly detailCache = new Map<number, RowDetail>();
  private detailTimer = 0;
  /** The row whose JSON is asked for (waiting out DETAIL_DELAY_MS or on its way), -1 if none. */
  private detailWanted = -1;
  /** Counts the loads (resetDetail): an answer for an earlier one is dropped. */
  private detailLoad = 0;

  constructor(
    private readonly model: RecordsModel,
    private readonly selection: Selection,
    private readonly toolbar: Toolbar,
    private readonly detail: DetailPane,
    private readonly host: ActionsHost,
  ) {}

  /** A command from the host (palette, keybinding, title bar) on this panel's rows. */
  hostCommand(command: unknown): void {
    if (command === 'exportJson' || command === 'exportCsv') void this.exportRows(command === 'exportJson' ? 'json' : 'csv');
    else if (command === 'copyJson') void this.copyFocused();
    else if (command === 'selectAll') this.host.selectAll();
  }

  resetDetail(): void {
    this.detailCache.clear();
    this.cancelDetail();
    // A request of the previous load still on its way is not for these rows.
    this.detailLoad++;
    this.detail.showPlaceholder();
  }

  rowLabel(index: number): string {
    const s = this.model.store;
    return [s.cell(index, 'source'), s.cell(index, 'ipAddress')].filter(Boolean).join(' · ');
  }

  private cancelDetail(): void {
    if (this.detailTimer) clearTimeout(this.detailTimer);
    this.detailTimer = 0;
    this.detailWanted = -1;
  }

  /** Shows the focused row in the details pane, asking the host for its JSON once. */
  showFocused(open: boolean): void {
    const index = this.selection.focus;
    if (!open) return this.cancelDetail();
    if (index < 0 || index >= this.model.length) {
      this.cancelDetail();
      this.detail.showPlaceholder();
      return;
    }
    const cached = this.detailCache.get(index);
    if (cached) {
      this.cancelDetail();
      if (this.detail.shownIndex !== index) this.detail.show(cached, this.rowLabel(index));
      return;
    }
    // Asked for already (waiting out the delay, or on its way): the answer shows it. Called again
    // for the same row meanwhile (a click then Ctrl+A), it used to cancel the wait and never ask,
    // leaving the pane on "Loading…".
    if (this.detailWanted === index) return;
    this.cancelDetail();
    this.detailWanted = index;
    this.detail.showLoading(index, this.rowLabel(index));
    const load = this.detailLoad;
    this.detailTimer = window.setTimeout(() => {
      this.detailTimer = 0;
      const done = (): void => {
        if (this.detailWanted === index && this.detailLoad === load) this.detailWanted = -1;
      };
      request<RowDetail>({ type: 'getRow', index })
        .then((d) => {
          if (this.detailLoad !== load) return;
          if (!d || typeof d !== 'object') throw new Error('The host sent no row.');
          done();
          this.detailCache.set(index, d);
          if (this.detailCache.size > DETAIL_CACHE) this.detailCache.delete(this.detailCache.keys().next().value!);
          if (this.selection.focus === index) this.detail.show(d, this.rowLabel(index));
        })
        .catch((err: Error) => {
          if (this.detailLoad !== load) return;
          done();
          if (this.selection.focus === index) this.detail.showError(index, err.message);
        });
    }, DETAIL_DELAY_MS);
  }

  async copyFocused(): Promise<void> {
    let index = this.selection.focus;
    if (index < 0 && this.selection.count > 0) index = this.selection.selectedIn(this.host.view().order)[0] ?? -1;
    if (index < 0) {
      this.toolbar.setStatus(l10n.t('Select a row to copy its JSON.'), true);
      return;
    }
    try {
      await request<null>({ type: 'copyRow', index });
      this.toolbar.setStatus(l10n.t('Copied row {0} as JSON.', index + 1), false);
    } catch (err) {
      this.toolbar.setStatus((err as Error).message, true);
    }
  }

  async exportRows(format: 'json' | 'csv'): Promise<void> {
    const selected = this.selection.count > 0;
    // Selected rows in the current sort order (rows hidden by the filters included); or, with
    // nothing selected, every filtered row as shown.
    const indices = selected ? this.selection.selectedIn(this.host.sortedAll()) : this.host.view().order;
    const what = selected ? 'selected' : 'filtered';
    const label = format.toUpperCase();
    const rows = (n: number) => (selected ? plural(n, l10n.t('selected row'), l10n.t('selected rows')) : plural(n, l10n.t('filtered row'), l10n.t('filtered rows')));
    if (indices.length === 0) {
      this.toolbar.setStatus(l10n.t('No rows to export.'), true);
      return;
    }
    this.toolbar.setStatus(l10n.t('Exporting {0} as {1}…', rows(indices.length), label), false, true);
    try {
      const result = await request<Exported>({ type: 'export', format, indices: Array.from(indices), what, pageWidth: pageWidth() });
      const count = result && typeof result.count === 'number' ? result.count : indices.length;
      this.toolbar.setStatus(exportedText(rows(count), label, result), false);
    } catch (err) {
      this.toolbar.setStatus(l10n.t('Export failed: {0}', (err as Error).message), true);
    }
  }

  async exportGroups(format: 'json' | 'csv', title: string, rows: GroupExportRow[]): Promise<void> {
    const label = format.toUpperCase();
    if (rows.length === 0) {
      this.toolbar.setStatus(l10n.t('No groups to export.'), true);
      return;
    }
    this.toolbar.setStatus(l10n.t('Exporting {0} as {1}…', plural(rows.length, l10n.t('group'), l10n.t('groups')), label), false, true);
    try {
      const result = await request<Exported>({ type: 'exportGroups', format, title: title.slice(0, 500), rows, pageWidth: pageWidth() });
      this.toolbar.setStatus(exportedText(plural(rows.length, l10n.t('group'), l10n.t('groups')), label, result), false);
    } catch (err) {
      this.toolbar.setStatus(l10n.t('Export failed: {0}', (err as Error).message), true);
    }
  }

  async exportAdvice(format: 'json' | 'csv', title: string, rows: AdviceExportRow[]): Promise<void> {
    if (rows.length === 0) {
      this.toolbar.setStatus(l10n.t('No sources to export: every source is Compliant.'), true);
      return;
    }
    try {
      const result = await request<Exported>({ type: 'exportAdvice', format, title: title.slice(0, 2000), rows, pageWidth: pageWidth() });
      const sources = plural(rows.length, l10n.t('source'), l10n.t('sources'));
      const tab = tabOf(result);
      this.toolbar.setStatus(
        tab ? l10n.t('Exported the advice on {0} as {1} to the tab {2}, next to this one.', sources, format.toUpperCase(), tab) : l10n.t('Exported the advice on {0} as {1}.', sources, format.toUpperCase()),
        false,
      );
    } catch (err) {
      this.toolbar.setStatus(l10n.t('Export failed: {0}', (err as Error).message), true);
    }
  }

  async copyText(text: string): Promise<void> {
    if (!text) return;
    try {
      await request<null>({ type: 'copyText', text: text.slice(0, 20_000) });
      this.toolbar.setStatus(l10n.t('Fix text copied.'), false);
    } catch (err) {
      this.toolbar.setStatus(l10n.t('Copy failed: {0}', (err as Error).message), true);
    }
  }

  contextEntries(): MenuEntry[] {
    const n = this.selection.count;
    const filtered = this.host.view().order.length;
    const scope = n > 0 ? plural(n, l10n.t('Selected Row'), l10n.t('Selected Rows')) : plural(filtered, l10n.t('Filtered Row'), l10n.t('Filtered Rows'));
    const none = n === 0 && filtered === 0;
    return [
      { label: l10n.t('Export {0} as JSON', scope), action: 'export-json', disabled: none },
      { label: l10n.t('Export {0} as CSV', scope), action: 'export-csv', disabled: none },
      'separator',
      { label: l10n.t('Copy Row JSON'), action: 'copy-json', disabled: this.selection.focus < 0 },
      'separator',
      { label: l10n.t('Select All'), action: 'select-all', disabled: filtered === 0 },
      { label: l10n.t('Clear Selection'), action: 'clear-selection', disabled: n === 0 },
    ];
  }

  columnEntries(): MenuEntry[] {
    const { order, hidden } = this.host.columns();
    const visible = order.filter((c) => !hidden.has(c)).length;
    const entries: MenuEntry[] = order.map((c) => ({
      label: COLUMN_LABELS[c],
      action: `toggle-column:${c}`,
      checked: !hidden.has(c),
      // The last visible column stays.
      disabled: !hidden.has(c) && visible === 1,
      keepOpen: true,
      attrs: { 'data-column-toggle': c },
    }));
    entries.push('separator', { label: l10n.t('Show All Columns'), action: 'show-all-columns', disabled: hidden.size === 0, keepOpen: true });
    entries.push({ label: l10n.t('Reset Column Order and Widths'), action: 'reset-columns', keepOpen: false });
    return entries;
  }

  run(action: string): void {
    const { order, hidden } = this.host.columns();
    if (action.startsWith('toggle-column:')) {
      const c = action.slice('toggle-column:'.length) as ColumnId;
      if (!order.includes(c)) return;
      if (hidden.has(c)) hidden.delete(c);
      else if (order.filter((x) => !hidden.has(x)).length > 1) hidden.add(c);
      this.host.setColumns(order, hidden);
      return;
    }
    switch (action) {
      case 'show-all-columns':
        this.host.setColumns(order, new Set());
        return;
      case 'reset-columns':
        this.host.setColumns([], new Set());
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
        this.host.selectAll();
        return;
      case 'clear-selection':
        this.host.clearSelection();
        return;
    }
  }
}
