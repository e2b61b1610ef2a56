/**
 * The records grid: a virtual table with fixed-height rows. Only the rows in view (plus a small
 * margin) exist in the DOM, taken from a pool and re-filled as the view scrolls; a display
 * position always maps to the same pooled element, so scrolling by one row re-fills one row.
 *
 * Browsers cap an element's height (~16–33M px), so past MAX_SPACER the scroll spacer stays at
 * that height and scrollTop maps proportionally onto the virtual height.
 */
import * as l10n from '@vscode/l10n';
import type { ColumnId } from '../../src/shared/columns';
import type { SortSpec } from './data/ranks';
import { signatureText, type RowStore } from './data/store';
import { badge, el, primaryModifier, toneText } from './dom';
import { BADGE_COLUMNS, formatCount, formatDate, revealBidi } from './format';
import { GridHeader } from './gridHeader';
import { SidewaysScroll } from './sideways';
import { valueHelp } from './valueHelp';
import type { Modifiers } from './selection';

export const ROW_HEIGHT = 24;
const HEADER_HEIGHT = 26;
/** Rows drawn above and below the viewport. */
const OVERSCAN = 6;
/** The most row elements that ever exist. */
const MAX_POOL = 200;
/** Spacer height cap: below every browser's limit, with room to spare. */
export const MAX_SPACER = 8_000_000;

export interface TableHost {
  readonly store: RowStore;
  isSelected(index: number): boolean;
  focusedIndex(): number;
  /** A click on a row (mods from the pointer event). */
  onRowClick(index: number, mods: Modifiers): void;
  /** A right-click or context-menu key; index -1 when not on a row. */
  onContextMenu(index: number, x: number, y: number): void;
  onSort(column: ColumnId): void;
  /** The user moved or resized a column. */
  onLayout(change: { move?: { column: ColumnId; before: ColumnId | undefined }; widths?: Map<ColumnId, number> }): void;
  /** Keys on the grid body; returns true when handled. */
  onKey(e: KeyboardEvent): boolean;
  onScroll(): void;
}

interface PooledRow {
  element: HTMLDivElement;
  cells: HTMLDivElement[];
  pos: number;
  index: number;
  version: number;
  /** The store's generation when filled (a reload puts other rows at the same indices). */
  generation: number;
  /**
   * Per cell, the text it shows (what it is made from): a row filled with another row leaves the
   * cells of the same text alone (most badges and dates after a keystroke), so the frame restyles
   * and lays out only what changed.
   */
  texts: (string | undefined)[];
}

/** Maps between scrollTop and the virtual (unscaled) offset of the rows. */
export function scrollGeometry(rows: number, viewport: number, maxSpacer = MAX_SPACER): { spacer: number; toVirtual: (scrollTop: number) => number; toScroll: (virtualTop: number) => number } {
  const virtual = rows * ROW_HEIGHT;
  if (virtual <= maxSpacer) return { spacer: virtual, toVirtual: (s) => s, toScroll: (v) => v };
  const scrollRange = Math.max(1, maxSpacer - viewport);
  const virtualRange = Math.max(1, virtual - viewport);
  const ratio = virtualRange / scrollRange;
  return { spacer: maxSpacer, toVirtual: (s) => s * ratio, toScroll: (v) => v / ratio };
}

export class VirtualTable {
  readonly element: HTMLDivElement;
  readonly header: GridHeader;
  private readonly spacer: HTMLDivElement;
  private pool: PooledRow[] = [];
  private columns: ColumnId[] = [];
  private order: Uint32Array = new Uint32Array(0);
  /** Bumped when cell contents may have changed (rows, columns). */
  private version = 0;
  private geometry = scrollGeometry(0, 0);
  private viewport = 0;
  /** The grid's height, kept from the ResizeObserver so rendering never forces a layout to read it. */
  private height = 0;
  /** The grid's scrollTop as of its last scroll event or our last write: reading the DOM's would force a layout. */
  private top = 0;
  private readonly sideways = new SidewaysScroll(innerWidth);

  constructor(private readonly host: TableHost) {
    this.element = el('div', {
      class: 'grid',
      attrs: { role: 'grid', tabindex: 0, 'aria-multiselectable': 'true', 'aria-label': l10n.t('DMARC records'), 'aria-rowcount': 1, 'data-testid': 'grid' },
    });
    const headGroup = el('div', { class: 'grid-head', attrs: { role: 'rowgroup' } });
    this.header = new GridHeader({
      onSort: (c) => this.host.onSort(c),
      onMove: (column, before) => this.host.onLayout({ move: { column, before } }),
      onResize: (widths) => this.host.onLayout({ widths }),
      onLeave: () => this.element.focus({ preventScroll: true }),
      onTemplate: (template, total) => {
        this.element.style.setProperty('--grid-columns', template);
        this.element.style.setProperty('--grid-width', `${total}px`);
      },
    });
    headGroup.append(this.header.element);
    this.spacer = el('div', { class: 'grid-body', attrs: { role: 'rowgroup' } });
    this.element.append(headGroup, this.spacer);

    this.element.addEventListener('scroll', () => {
      this.top = this.element.scrollTop;
      this.sideways.scrolled(this.element.scrollLeft, innerWidth);
      this.render();
      this.host.onScroll();
    });
    this.element.addEventListener('keydown', (e) => this.onKeyDown(e));
    this.spacer.addEventListener('mousedown', (e) => {
      // Keep the keyboard focus on the grid (not on a cell), and stop Shift+click selecting text.
      if (e.button === 0 && (e.shiftKey || e.detail > 1)) e.preventDefault();
    });
    this.spacer.addEventListener('click', (e) => {
      const index = this.rowIndexAt(e.target);
      if (index < 0) return;
      this.element.focus({ preventScroll: true });
      this.host.onRowClick(index, { shift: e.shiftKey, ctrl: primaryModifier(e) });
    });
    this.element.addEventListener('contextmenu', (e) => {
      if ((e.target as HTMLElement).closest('.header-row')) return;
      e.preventDefault();
      this.element.focus({ preventScroll: true });
      this.host.onContextMenu(this.rowIndexAt(e.target), e.clientX, e.clientY);
    });
    new ResizeObserver((entries) => {
      const box = entries[entries.length - 1]?.contentRect;
      if (box) this.height = box.height;
      this.render();
    }).observe(this.element);
    // The panel wide again (an export beside it closed): back to where the rows were scrolled sideways at that width.
    window.addEventListener('resize', () => {
      const left = this.sideways.resized(innerWidth);
      if (left !== undefined && left !== this.element.scrollLeft) this.element.scrollLeft = left;
    });
  }

  private rowIndexAt(target: EventTarget | null): number {
    const row = (target as HTMLElement | null)?.closest?.('.row') as HTMLElement | null;
    if (!row || !this.spacer.contains(row)) return -1;
    const index = Number(row.dataset.index);
    return Number.isInteger(index) ? index : -1;
  }

  // ---- columns and header ------------------------------------------------------------------

  setColumns(columns: ColumnId[]): void {
    this.columns = columns;
    this.element.setAttribute('aria-colcount', String(columns.length));
    this.header.setColumns(columns);
    for (const row of this.pool) row.element.remove();
    this.pool = [];
    this.version++;
    this.render();
  }

  setSort(sort: SortSpec | undefined): void {
    this.header.setSort(sort);
  }

  focusHeader(): void {
    this.header.focusCell();
  }

  // ---- rows -----------------------------------------------------------------------------------

  /** New display order (a filter, a sort, more rows): re-renders unless the caller renders next. */
  setRows(order: Uint32Array, render = true): void {
    this.order = order;
    this.element.setAttribute('aria-rowcount', String(order.length + 1));
    // Rows already filled stay as they are: a row's cells change only with a reload (the store's
    // generation) or the columns (version). While rows stream in, every recompute used to fill
    // every visible row again.
    if (render) this.render();
  }

  /** Rows a viewport holds (PageUp/PageDown distance). */
  pageSize(): number {
    return Math.max(1, Math.floor(this.viewport / ROW_HEIGHT));
  }

  get scrollTop(): number {
    return this.top;
  }

  set scrollTop(v: number) {
    this.viewport = this.viewportHeight();
    this.geometry = scrollGeometry(this.order.length, this.viewport);
    this.spacer.style.height = `${this.geometry.spacer}px`;
    const target = Math.max(0, Math.min(v, this.geometry.spacer - this.viewport));
    // Writing scrollTop makes the browser lay out at once; skip it when nothing moves.
    if (target !== this.top) this.element.scrollTop = this.top = target;
    this.render();
  }

  /** Scrolls the least needed to show display position `pos`. */
  reveal(pos: number): void {
    if (pos < 0 || pos >= this.order.length) return;
    this.viewport = this.viewportHeight();
    const g = (this.geometry = scrollGeometry(this.order.length, this.viewport));
    const virtualTop = g.toVirtual(this.top);
    const top = pos * ROW_HEIGHT;
    let target = virtualTop;
    if (top < virtualTop) target = top;
    else if (top + ROW_HEIGHT > virtualTop + this.viewport) target = top + ROW_HEIGHT - this.viewport;
    if (target !== virtualTop) {
      this.spacer.style.height = `${g.spacer}px`;
      this.element.scrollTop = this.top = Math.ceil(g.toScroll(target));
    }
    this.render();
  }

  private viewportHeight(): number {
    if (this.height === 0) this.height = this.element.clientHeight;
    return Math.max(0, this.height - HEADER_HEIGHT);
  }

  /** Client coordinates of a display position's row (for a keyboard-opened context menu). */
  rowRect(pos: number): DOMRect | undefined {
    const row = this.pool.find((r) => r.pos === pos && r.element.style.display !== 'none');
    return row?.element.getBoundingClientRect();
  }

  render(): void {
    const grid = this.element;
    const n = this.order.length;
    const rawScrollTop = this.top;
    this.viewport = this.viewportHeight();
    this.geometry = scrollGeometry(n, this.viewport);
    const g = this.geometry;
    const spacerHeight = `${g.spacer}px`;
    if (this.spacer.style.height !== spacerHeight) this.spacer.style.height = spacerHeight;

    const scrollTop = Math.max(0, Math.min(rawScrollTop, g.spacer - this.viewport));
    const virtualTop = g.toVirtual(scrollTop);
    const first = Math.max(0, Math.floor(virtualTop / ROW_HEIGHT) - OVERSCAN);
    const visible = Math.ceil(this.viewport / ROW_HEIGHT) + 1;
    const last = Math.min(n, Math.floor(virtualTop / ROW_HEIGHT) + visible + OVERSCAN);
    // Rounded up to 8 rows: a grid a scrollbar shorter or taller (the rows found gain or lose their
    // sideways scroll) keeps its pool, instead of every row being filled again in the same frame.
    const size = Math.min(MAX_POOL, Math.ceil(Math.max(1, visible + 2 * OVERSCAN) / 8) * 8);
    if (size !== this.pool.length) this.resizePool(size);

    const focused = this.host.focusedIndex();
    const generation = this.host.store.generation;
    let activeId = '';
    const used = new Set<PooledRow>();
    for (let pos = first; pos < last && pos < first + size; pos++) {
      const row = this.pool[pos % size]!;
      used.add(row);
      const index = this.order[pos]!;
      if (row.pos !== pos || row.index !== index || row.version !== this.version || row.generation !== generation) this.fill(row, pos, index);
      // Positions are relative to the spacer; in scaled mode rows follow the scroll offset.
      const y = scrollTop + (pos * ROW_HEIGHT - virtualTop);
      row.element.style.transform = `translateY(${y}px)`;
      if (row.element.style.display === 'none') row.element.style.display = '';
      const selected = this.host.isSelected(index);
      if (row.element.getAttribute('aria-selected') !== String(selected)) {
        row.element.setAttribute('aria-selected', String(selected));
        row.element.classList.toggle('selected', selected);
      }
      const isFocused = index === focused;
      row.element.classList.toggle('focused', isFocused);
      if (isFocused) activeId = row.element.id;
    }
    for (const row of this.pool) {
      if (!used.has(row) && row.element.style.display !== 'none') {
        row.element.style.display = 'none';
        row.pos = -1;
      }
    }
    this.keepDomOrder(first, Math.min(last, first + size), size);
    if (activeId) grid.setAttribute('aria-activedescendant', activeId);
    else grid.removeAttribute('aria-activedescendant');
  }

  /**
   * Keeps the row elements in display order in the DOM (screen readers read the DOM in order):
   * a scroll rotates the pool, so only the few rows that wrapped around move.
   */
  private keepDomOrder(first: number, end: number, size: number): void {
    let expected: Element | null = this.spacer.firstElementChild;
    for (let pos = first; pos < end; pos++) {
      const element = this.pool[pos % size]!.element;
      if (element !== expected) this.spacer.insertBefore(element, expected);
      else expected = expected.nextElementSibling;
    }
  }

  private resizePool(size: number): void {
    while (this.pool.length < size) {
      const k = this.pool.length;
      const element = el('div', { class: 'row', attrs: { role: 'row', id: `row-${k}`, 'aria-selected': 'false' } });
      const cells = this.columns.map((c, j) => {
        const cell = el('div', { class: `cell${c === 'emails' ? ' numeric' : ''}`, attrs: { role: 'gridcell', 'data-column': c, 'aria-colindex': j + 1 } });
        element.append(cell);
        return cell;
      });
      element.style.display = 'none';
      this.spacer.append(element);
      this.pool.push({ element, cells, pos: -1, index: -1, version: -1, generation: -1, texts: [] });
    }
    while (this.pool.length > size) this.pool.pop()!.element.remove();
    for (const row of this.pool) row.pos = -1;
  }

  private fill(row: PooledRow, pos: number, index: number): void {
    row.pos = pos;
    row.index = index;
    row.version = this.version;
    row.generation = this.host.store.generation;
    const e = row.element;
    e.dataset.index = String(index);
    e.setAttribute('aria-rowindex', String(pos + 2));
    e.classList.toggle('odd', pos % 2 === 1);
    const store = this.host.store;
    this.columns.forEach((c, j) => {
      // A cell's content follows from its column and text alone (fillCell).
      const raw = store.cell(index, c);
      if (row.texts[j] === raw) return;
      row.texts[j] = raw;
      fillCell(row.cells[j]!, c, store, index, raw);
    });
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (e.target !== this.element) return;
    if (e.key === 'ArrowUp' && this.host.focusedIndex() >= 0 && this.order[0] === this.host.focusedIndex() && !e.shiftKey) {
      e.preventDefault();
      this.focusHeader();
      return;
    }
    if (this.host.onKey(e)) {
      e.preventDefault();
      e.stopPropagation();
    }
  }
}

/** One cell's content, always as text (record fields come from strangers). */
function fillCell(cell: HTMLDivElement, c: ColumnId, store: RowStore, index: number, raw: string): void {
  const text = revealBidi(raw);
  if (BADGE_COLUMNS.has(c)) {
    cell.replaceChildren(badge(c, text));
    // What the value means (valueHelp.ts: the README's table), else the value itself.
    cell.title = valueHelp(c, raw) ?? text;
  } else if (c === 'emails') {
    cell.textContent = formatCount(store.emails[index] ?? 0);
    cell.removeAttribute('title');
  } else if (c === 'date') {
    cell.textContent = formatDate(store.dateMs[index] ?? Number.NaN, text);
    cell.title = text;
  } else if (c === 'dkim' || c === 'dkimDomains') {
    const sigs = store.dkims(index);
    if (sigs.length === 0) {
      cell.textContent = c === 'dkim' ? '0' : '';
      cell.removeAttribute('title');
      return;
    }
    const parts: (Node | string)[] = c === 'dkim' ? [`${sigs.length} (`] : [];
    sigs.forEach((d, k) => {
      if (c === 'dkim') {
        if (k > 0) parts.push(', ');
        parts.push(toneText('dkim', d.result));
      } else {
        parts.push(el('span', { class: 'sig' }, [el('span', { class: 'sig-domain', text: `d=${d.domain} s=${d.selector} ` }), toneText('dkim', d.result)]));
      }
    });
    if (c === 'dkim') parts.push(')');
    cell.replaceChildren(...parts);
    // One line per signature in the tooltip.
    cell.title = revealBidi(c === 'dkim' ? text : sigs.map(signatureText).join('\n'));
  } else {
    cell.textContent = text;
    cell.title = (c === 'override' && valueHelp(c, raw)) || text;
  }
}
