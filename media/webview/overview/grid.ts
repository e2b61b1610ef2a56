/**
 * The Overview's table: a grid (role="grid") of one row per organization, sortable by every
 * column (a click or Enter/Space on its header; aria-sort says which and how), navigated cell by
 * cell with the arrow keys, Home/End (Ctrl for the first and last row) and Page Up/Down, one
 * cell in the tab order at a time. A click on a row or Enter on it opens the organization's
 * records. Every value is set as text; the sparkline is drawn from numbers (sparkline.ts).
 */
import * as l10n from '@vscode/l10n';
import type { OverviewRow } from '../../../src/shared/overviewProtocol';
import { el, icon } from '../dom';
import { formatCount, toneIcon } from '../format';
import { columnInfo, deltaPassText, OVERVIEW_COLUMNS, passText, signedCount, stepTone, type OverviewColumn, type OverviewSort } from './columns';
import { sparkline } from './sparkline';

export interface GridHost {
  onSort(column: OverviewColumn): void;
  onOpen(row: OverviewRow): void;
}

const PAGE = 10;

export class OverviewGrid {
  readonly element: HTMLTableElement;
  private readonly head = el('thead');
  private readonly body = el('tbody');
  private readonly info = columnInfo();
  private rows: OverviewRow[] = [];
  /** The focused cell: a row's key (null: the header row) and a column index. */
  private focus: { key: string | null; col: number } = { key: null, col: 0 };

  constructor(private readonly host: GridHost) {
    this.element = el('table', { class: 'ov-grid', attrs: { role: 'grid', 'aria-label': l10n.t('Organizations'), 'aria-colcount': OVERVIEW_COLUMNS.length, 'data-testid': 'overview-grid' } });
    this.element.append(this.head, this.body);
    this.element.addEventListener('keydown', (e) => this.onKey(e));
    this.element.addEventListener('click', (e) => this.onClick(e));
    this.element.addEventListener('focusin', (e) => this.onFocusIn(e));
  }

  /** Draws the rows in this order, keeping the focused cell (by row key) where it was. */
  render(rows: OverviewRow[], sort: OverviewSort, startMs: number): void {
    const hadFocus = this.element.contains(document.activeElement);
    this.rows = rows;
    this.element.setAttribute('aria-rowcount', String(rows.length + 1));
    const headRow = el('tr', { attrs: { role: 'row', 'aria-rowindex': 1 } });
    OVERVIEW_COLUMNS.forEach((c, i) => {
      const info = this.info[c];
      const sorted = sort.column === c;
      const th = el('th', {
        class: `ov-head${info.numeric ? ' numeric' : ''}${sorted ? ' sorted' : ''}`,
        title: info.help,
        attrs: { role: 'columnheader', scope: 'col', 'aria-sort': sorted ? (sort.descending ? 'descending' : 'ascending') : 'none', 'aria-colindex': i + 1, 'data-column': c, tabindex: -1, ...(info.spoken ? { 'aria-label': info.spoken } : {}) },
      });
      th.append(el('span', { class: 'ov-head-label', text: info.label }), icon(sorted && sort.descending ? 'arrow-down' : 'arrow-up', 'sort-icon'));
      headRow.append(th);
    });
    this.head.replaceChildren(headRow);
    const body = document.createDocumentFragment();
    rows.forEach((r, i) => body.append(this.rowElement(r, i, startMs)));
    this.body.replaceChildren(body);
    if (this.focus.key !== null && !rows.some((r) => r.key === this.focus.key)) this.focus = { key: null, col: this.focus.col };
    this.applyFocus(hadFocus);
  }

  private rowElement(r: OverviewRow, i: number, startMs: number): HTMLTableRowElement {
    const tr = el('tr', { class: `ov-row state-${r.state}`, attrs: { role: 'row', 'aria-rowindex': i + 2, 'data-key': r.key, 'data-state': r.state } });
    const cell = (c: OverviewColumn, children: (Node | string)[], extra: { title?: string; label?: string; cls?: string } = {}) =>
      el('td', {
        class: `ov-cell${this.info[c].numeric ? ' numeric' : ''}${extra.cls ? ` ${extra.cls}` : ''}`,
        ...(extra.title !== undefined ? { title: extra.title } : {}),
        attrs: { role: 'gridcell', 'data-column': c, 'aria-colindex': OVERVIEW_COLUMNS.indexOf(c) + 1, tabindex: -1, ...(extra.label ? { 'aria-label': extra.label } : {}) },
      }, children);
    const org = cell('organization', [
      el('span', { class: 'ov-name', text: r.name }),
      el('span', { class: 'ov-sub', text: r.reportFiles ? l10n.t('{0} · Report Files', r.organizationId) : `${r.organizationId} · ${r.account}` }),
    ], { title: r.reportFiles ? l10n.t('{0} (report files)', r.organizationId) : l10n.t('{0}, organization {1} of {2}', r.name, r.organizationId, r.account) });
    tr.append(org);
    const f = r.state === 'loaded' ? r.figures : undefined;
    if (!f) {
      const message = r.state === 'loading'
        ? [icon('loading', 'codicon-modifier-spin'), el('span', { text: l10n.t('Loading…') })]
        : r.state === 'cancelled'
          ? [icon('circle-slash'), el('span', { text: l10n.t('Not loaded: cancelled. Refresh to fetch it.') })]
          : [icon('error'), el('span', { class: 'error-text', text: r.error ?? l10n.t('Could not be loaded.') })];
      const td = cell('emails', message, { cls: 'ov-message' });
      td.colSpan = OVERVIEW_COLUMNS.length - 1;
      td.setAttribute('aria-colspan', String(OVERVIEW_COLUMNS.length - 1));
      tr.append(td);
      return tr;
    }
    const delta = deltaPassText(f);
    tr.append(
      cell('emails', [formatCount(f.emails)]),
      cell('pass', [passText(f.passRate)], { title: l10n.t('Previous period: {0}', passText(f.passBefore)) }),
      cell('deltaPass', [el('span', { class: `tone-text tone-${delta.tone}`, text: delta.text })], { label: delta.label }),
      cell('deltaEmails', [signedCount(f.deltaEmails)], { title: l10n.t('Previous period: {0} emails', formatCount(f.before)) }),
      cell('needsFixing', [formatCount(f.needsFixing)]),
      cell('unauthenticated', [formatCount(f.unauthenticated)]),
      cell('readiness', [el('span', { class: `badge tone-${stepTone(f.readiness.kind)}` }, [icon(toneIcon(stepTone(f.readiness.kind))), el('span', { class: 'badge-text', text: f.readiness.label })])], { title: f.readiness.text }),
      cell('trend', [sparkline(f.daily, startMs)]),
      cell('lastDay', [f.lastDay ?? '–']),
    );
    return tr;
  }

  /** The cells of the header row (index -1) or of a body row. */
  private cells(rowIndex: number): HTMLElement[] {
    const tr = rowIndex < 0 ? this.head.rows[0] : this.body.rows[rowIndex];
    return tr ? ([...tr.cells] as HTMLElement[]) : [];
  }

  private rowIndex(): number {
    return this.focus.key === null ? -1 : this.rows.findIndex((r) => r.key === this.focus.key);
  }

  /** One cell in the tab order: the focused one (moved into view and given the keyboard when `take`). */
  private applyFocus(take: boolean): void {
    for (const c of this.element.querySelectorAll<HTMLElement>('[tabindex="0"]')) c.tabIndex = -1;
    const cells = this.cells(this.rowIndex());
    const target = cells[Math.min(this.focus.col, cells.length - 1)];
    if (!target) return;
    target.tabIndex = 0;
    if (take) {
      target.focus();
      target.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
  }

  private moveTo(rowIndex: number, col: number): void {
    const r = Math.max(-1, Math.min(this.rows.length - 1, rowIndex));
    this.focus = { key: r < 0 ? null : this.rows[r]!.key, col: Math.max(0, Math.min(OVERVIEW_COLUMNS.length - 1, col)) };
    this.applyFocus(true);
  }

  private onKey(e: KeyboardEvent): void {
    const r = this.rowIndex();
    const width = this.cells(r).length;
    const col = Math.min(this.focus.col, width - 1);
    const ctrl = e.ctrlKey || e.metaKey;
    let handled = true;
    switch (e.key) {
      case 'ArrowDown':
        this.moveTo(r + 1, this.focus.col);
        break;
      case 'ArrowUp':
        this.moveTo(r - 1, this.focus.col);
        break;
      case 'ArrowRight':
        this.moveTo(r, Math.min(col + 1, width - 1));
        break;
      case 'ArrowLeft':
        this.moveTo(r, Math.max(col - 1, 0));
        break;
      case 'Home':
        if (ctrl) this.moveTo(0, this.focus.col);
        else this.moveTo(r, 0);
        break;
      case 'End':
        if (ctrl) this.moveTo(this.rows.length - 1, this.focus.col);
        else this.moveTo(r, OVERVIEW_COLUMNS.length - 1);
        break;
      case 'PageDown':
        this.moveTo(r + PAGE, this.focus.col);
        break;
      case 'PageUp':
        this.moveTo(Math.max(0, r - PAGE), this.focus.col);
        break;
      case 'Enter':
      case ' ':
        if (r < 0) this.host.onSort(OVERVIEW_COLUMNS[col]!);
        else if (e.key === 'Enter') this.host.onOpen(this.rows[r]!);
        else handled = false;
        break;
      default:
        handled = false;
    }
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  }

  private onClick(e: MouseEvent): void {
    const target = e.target as Element | null;
    const th = target?.closest('th[data-column]');
    if (th) {
      this.host.onSort(th.getAttribute('data-column') as OverviewColumn);
      return;
    }
    const tr = target?.closest('tr[data-key]');
    const row = tr && this.rows.find((r) => r.key === tr.getAttribute('data-key'));
    if (row) this.host.onOpen(row);
  }

  /** A click or Tab into a cell makes it the focused one. */
  private onFocusIn(e: FocusEvent): void {
    const cell = (e.target as Element | null)?.closest('td, th');
    const tr = cell?.parentElement as HTMLTableRowElement | null;
    if (!cell || !tr) return;
    const key = tr.getAttribute('data-key');
    const col = [...tr.cells].indexOf(cell as HTMLTableCellElement);
    const sameRow = key === this.focus.key;
    // In a row of fewer cells (a message across the figures) the column remembered stays.
    this.focus = { key, col: sameRow && col === Math.min(this.focus.col, tr.cells.length - 1) ? this.focus.col : col };
    for (const c of this.element.querySelectorAll<HTMLElement>('[tabindex="0"]')) if (c !== cell) c.tabIndex = -1;
    (cell as HTMLElement).tabIndex = 0;
  }
}
