/**
 * The user's column layout (order, widths, hidden columns): one for every panel, kept by the host
 * in globalState. Changes made in the grid or the Columns menu are applied and sent to the host.
 */
import { COLUMNS, type ColumnId } from '../../src/shared/columns';
import type { ColumnLayout } from '../../src/shared/protocol';
import type { VirtualTable } from './table';
import { orderedColumns, sanitizeLayout } from './viewState';
import { post } from './vscode';

export class ColumnLayoutState {
  private layout: ColumnLayout = { order: [], widths: {}, hidden: [] };

  constructor(private readonly table: VirtualTable) {}

  /** The layout the host sent (untrusted: sanitised). */
  load(raw: unknown): void {
    this.layout = sanitizeLayout(raw);
    this.table.header.setWidths(this.layout.widths);
    this.apply();
  }

  /** The panes the user last opened or closed, if ever. */
  get panes(): ColumnLayout['panes'] {
    return this.layout.panes;
  }

  /** The user opened or closed a pane: new panels start so (kept with the layout, for every panel). */
  setPane(pane: 'advice' | 'trend' | 'detail', open: boolean): void {
    if (this.layout.panes?.[pane] === open) return;
    this.layout = { ...this.layout, panes: { ...this.layout.panes, [pane]: open } };
    this.save();
  }

  visible(): ColumnId[] {
    const hidden = new Set(this.layout.hidden);
    const cols = orderedColumns(this.layout).filter((c) => !hidden.has(c));
    return cols.length ? cols : [...COLUMNS];
  }

  all(): { order: ColumnId[]; hidden: Set<ColumnId> } {
    return { order: orderedColumns(this.layout), hidden: new Set(this.layout.hidden) };
  }

  apply(): void {
    this.table.setColumns(this.visible());
  }

  /** From the grid: a column moved (before another, or to the end) or resized. */
  changed(change: { move?: { column: ColumnId; before: ColumnId | undefined }; widths?: Map<ColumnId, number> }): void {
    if (change.widths) this.layout.widths = Object.fromEntries(change.widths);
    const move = change.move;
    if (move) {
      const order = this.visible().filter((c) => c !== move.column);
      const at = move.before ? order.indexOf(move.before) : -1;
      order.splice(at < 0 ? order.length : at, 0, move.column);
      this.layout.order = [...order, ...orderedColumns(this.layout).filter((c) => !order.includes(c))];
      this.apply();
    }
    this.save();
  }

  /** From the Columns menu: an order and the hidden columns; an empty order resets to the defaults. */
  set(order: ColumnId[], hidden: Set<ColumnId>): void {
    if (order.length) this.layout = { ...this.layout, order, hidden: [...hidden] };
    else {
      this.layout = { order: [], widths: {}, hidden: [], ...(this.layout.panes ? { panes: this.layout.panes } : {}) };
      this.table.header.widths.clear();
      this.table.header.setWidths({});
    }
    this.apply();
    this.save();
  }

  private save(): void {
    post({ type: 'saveLayout', layout: this.layout });
  }
}
