/**
 * The records grid's header row: sort on click or Enter, resize by dragging a column's edge
 * (double-click resets it), reorder by dragging a header or with Alt+Left/Right. Widths and
 * order are the user's layout: every change is reported so the host can keep it for every panel.
 */
import * as l10n from '@vscode/l10n';
import type { ColumnId } from '../../src/shared/columns';
import { el, icon } from './dom';
import { COLUMN_LABELS, COLUMN_WIDTHS } from './format';
import type { SortSpec } from './data/ranks';

const MIN_WIDTH = 40;

export interface HeaderHost {
  onSort(column: ColumnId): void;
  /** A column was moved before `before` (undefined: to the end). */
  onMove(column: ColumnId, before: ColumnId | undefined): void;
  /** Widths changed (after a drag ends). */
  onResize(widths: Map<ColumnId, number>): void;
  /** Down or Escape from the header: back to the rows. */
  onLeave(): void;
  /** The grid template changed. */
  onTemplate(template: string, total: number): void;
}

export class GridHeader {
  readonly element: HTMLDivElement;
  private cells: HTMLDivElement[] = [];
  private columns: ColumnId[] = [];
  private focus = 0;
  private sort: SortSpec | undefined;
  readonly widths = new Map<ColumnId, number>(Object.entries(COLUMN_WIDTHS) as [ColumnId, number][]);
  private dragging: ColumnId | undefined;

  constructor(private readonly host: HeaderHost) {
    this.element = el('div', { class: 'header-row', attrs: { role: 'row', 'aria-rowindex': 1 } });
  }

  setWidths(widths: Partial<Record<ColumnId, number>>): void {
    for (const [c, w] of Object.entries(widths) as [ColumnId, number][]) if (w >= MIN_WIDTH) this.widths.set(c, Math.round(w));
    this.apply();
  }

  setColumns(columns: ColumnId[]): void {
    this.columns = columns;
    this.element.replaceChildren();
    this.cells = columns.map((c, k) => this.cell(c, k));
    this.apply();
    this.setSort(this.sort);
  }

  private cell(c: ColumnId, k: number): HTMLDivElement {
    const cell = el('div', {
      class: `header-cell${c === 'emails' ? ' numeric' : ''}`,
      attrs: { role: 'columnheader', 'aria-colindex': k + 1, 'data-column': c, tabindex: -1, 'aria-sort': 'none', draggable: 'true' },
      title: l10n.t('Sort by {0} (drag to move, Alt+Left/Right on the keyboard)', COLUMN_LABELS[c]),
    });
    const sash = el('div', { class: 'sash', attrs: { 'aria-hidden': 'true' } });
    cell.append(el('span', { class: 'header-label', text: COLUMN_LABELS[c] }), icon('arrow-up', 'sort-icon'), sash);
    cell.addEventListener('click', (e) => {
      if (e.target !== sash) this.host.onSort(c);
    });
    cell.addEventListener('keydown', (e) => this.onKey(e, k));
    cell.addEventListener('dragstart', (e) => {
      this.dragging = c;
      e.dataTransfer?.setData('text/plain', c);
      if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
    });
    cell.addEventListener('dragover', (e) => {
      if (!this.dragging || this.dragging === c) return;
      e.preventDefault();
      cell.classList.add('drop-target');
    });
    cell.addEventListener('dragleave', () => cell.classList.remove('drop-target'));
    cell.addEventListener('drop', (e) => {
      e.preventDefault();
      cell.classList.remove('drop-target');
      const moved = this.dragging;
      this.dragging = undefined;
      if (moved && moved !== c) {
        const from = this.columns.indexOf(moved);
        // Dropped on a column to the right: it goes after that column; to the left: before it.
        const before = from < k ? this.columns[k + 1] : c;
        this.host.onMove(moved, before);
      }
    });
    cell.addEventListener('dragend', () => (this.dragging = undefined));
    this.attachSash(sash, c);
    this.element.append(cell);
    return cell;
  }

  private attachSash(sash: HTMLDivElement, column: ColumnId): void {
    sash.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      e.stopPropagation();
      sash.setPointerCapture(e.pointerId);
      const startX = e.clientX;
      const startW = this.widths.get(column) ?? 100;
      const move = (ev: PointerEvent): void => {
        this.widths.set(column, Math.max(MIN_WIDTH, Math.round(startW + ev.clientX - startX)));
        this.apply();
      };
      const up = (): void => {
        sash.removeEventListener('pointermove', move);
        sash.removeEventListener('pointerup', up);
        sash.removeEventListener('pointercancel', up);
        this.host.onResize(this.widths);
      };
      sash.addEventListener('pointermove', move);
      sash.addEventListener('pointerup', up);
      sash.addEventListener('pointercancel', up);
    });
    sash.addEventListener('click', (e) => e.stopPropagation());
    sash.addEventListener('dblclick', (e) => {
      e.stopPropagation();
      this.widths.set(column, COLUMN_WIDTHS[column]);
      this.apply();
      this.host.onResize(this.widths);
    });
  }

  private apply(): void {
    const ws = this.columns.map((c) => this.widths.get(c) ?? 100);
    const total = ws.reduce((a, b) => a + b, 0);
    // The last column takes any spare width, so rows always reach the right edge.
    const template = ws.map((w, k) => (k === ws.length - 1 ? `minmax(${w}px, 1fr)` : `${w}px`)).join(' ');
    this.host.onTemplate(template || '1fr', total);
  }

  setSort(sort: SortSpec | undefined): void {
    this.sort = sort;
    this.columns.forEach((c, k) => {
      const cell = this.cells[k]!;
      const active = sort?.column === c;
      cell.setAttribute('aria-sort', active ? (sort.descending ? 'descending' : 'ascending') : 'none');
      cell.classList.toggle('sorted', active);
      cell.querySelector('.sort-icon')!.className = `codicon codicon-${active && sort.descending ? 'arrow-down' : 'arrow-up'} sort-icon`;
    });
  }

  private onKey(e: KeyboardEvent, k: number): void {
    let next = k;
    if (e.altKey && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
      e.preventDefault();
      e.stopPropagation();
      const c = this.columns[k]!;
      const to = e.key === 'ArrowLeft' ? k - 1 : k + 1;
      if (to < 0 || to >= this.columns.length) return;
      this.focus = to;
      this.host.onMove(c, e.key === 'ArrowLeft' ? this.columns[to] : this.columns[to + 1]);
      this.focusCell(to);
      return;
    }
    if (e.key === 'ArrowRight') next = Math.min(this.columns.length - 1, k + 1);
    else if (e.key === 'ArrowLeft') next = Math.max(0, k - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = this.columns.length - 1;
    else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      e.stopPropagation();
      this.host.onSort(this.columns[k]!);
      return;
    } else if (e.key === 'ArrowDown' || e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      this.host.onLeave();
      return;
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    this.focusCell(next);
  }

  focusCell(k = this.focus): void {
    const cell = this.cells[Math.max(0, Math.min(this.cells.length - 1, k))];
    if (!cell) return;
    this.focus = k;
    cell.focus();
    cell.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
}
