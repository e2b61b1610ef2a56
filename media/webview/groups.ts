/**
 * The groups table: the filtered rows grouped by a field (and optionally a second one under each
 * group), with email-weighted rates per group. A virtual grid labelled "Groups": sortable headers,
 * Up/Down to move, Right/Left to open or close a group's second level, Enter or a click to filter
 * the records to that group.
 */
import * as l10n from '@vscode/l10n';
import { NO_LINES, type GroupLine, type GroupLines } from './data/groupLines';
import type { Change } from '../../src/advice/compare';
import { termOf } from '../../src/advice/vocabulary';
import { badge, el, icon, iconButton } from './dom';
import { formatCount, formatDay, formatPercent, plural, revealBidi, valueLabel } from './format';
import type { CompareSort } from './data/compareGroups';
import { pointsText, signedCount, verdictMove } from './data/changeText';

export type GroupSortKey = 'key' | 'rows' | 'emails' | 'share' | 'pass' | 'spf' | 'dkim' | 'verdict' | 'first' | 'last' | CompareSort;

export type { GroupLine } from './data/groupLines';

export interface GroupsHost {
  onChoose(line: GroupLine): void;
  onExpand(line: GroupLine, open: boolean): void;
  onSort(by: GroupSortKey): void;
  onExport(format: 'json' | 'csv'): void;
}

/** `compare`: shown only while the previous period is (the Compare switch). */
const COLS: { id: GroupSortKey | 'disposition'; label: string; title: string; numeric?: boolean; compare?: boolean }[] = [
  { id: 'key', label: l10n.t('Group'), title: l10n.t('The value rows are grouped by') },
  { id: 'rows', label: l10n.t('Rows'), title: l10n.t('Report rows'), numeric: true },
  { id: 'emails', label: l10n.t('Emails'), title: l10n.t('Emails (the rows’ counts)'), numeric: true },
  { id: 'deltaEmails', label: l10n.t('Δ Emails'), title: l10n.t('Change in emails since the previous period'), numeric: true, compare: true },
  { id: 'share', label: l10n.t('Share'), title: l10n.t('Share of the emails'), numeric: true },
  { id: 'pass', label: l10n.t('DMARC'), title: l10n.t('DMARC pass, email-weighted'), numeric: true },
  { id: 'deltaPass', label: l10n.t('Δ DMARC'), title: l10n.t('Change in DMARC pass since the previous period, in percentage points; sorted, biggest drop first'), numeric: true, compare: true },
  { id: 'spf', label: l10n.t('SPF'), title: l10n.t('Aligned SPF pass, email-weighted'), numeric: true },
  { id: 'dkim', label: l10n.t('DKIM'), title: l10n.t('Aligned DKIM pass, email-weighted'), numeric: true },
  { id: 'verdict', label: l10n.t('Verdict'), title: l10n.t('The group’s verdict: Compliant when nearly all of its emails pass DMARC (setting dmarc.advice.compliantShare), else the class holding most of its failing emails') },
  { id: 'change', label: l10n.t('Change'), title: l10n.t('New: no emails in the previous period; Gone: emails then, none now'), compare: true },
  { id: 'disposition', label: l10n.t('Disposition'), title: l10n.t('Emails delivered, quarantined and rejected') },
  { id: 'first', label: l10n.t('First'), title: l10n.t('First report date (UTC)') },
  { id: 'last', label: l10n.t('Last'), title: l10n.t('Last report date (UTC)') },
];
const ROW_HEIGHT = 24;
const rate = (part: number, whole: number): string => formatPercent(whole > 0 ? part / whole : Number.NaN);

export class GroupsTable {
  readonly element: HTMLElement;
  readonly grid: HTMLElement;
  private readonly body: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly note: HTMLElement;
  private readonly multi: HTMLElement;
  private readonly exports: HTMLElement[];
  private readonly headers = new Map<string, HTMLElement>();
  private lines: GroupLines = NO_LINES;
  /** The previous period's columns are shown. */
  private comparing = false;
  private total = 0;
  private cursor = 0;
  private height = 0;
  /** The body's scrollTop as of its last scroll event or our last write (reading it would force a layout). */
  private top = 0;

  constructor(private readonly host: GroupsHost, controls: HTMLElement) {
    this.element = el('section', { class: 'groups', attrs: { 'data-testid': 'groups', 'aria-label': l10n.t('Groups') } });
    const bar = el('div', { class: 'groups-bar' });
    this.note = el('span', { class: 'muted groups-note', attrs: { 'data-testid': 'groups-note' } });
    const json = iconButton('json', l10n.t('Export the groups as JSON'), 'groups-export-json');
    json.addEventListener('click', () => this.host.onExport('json'));
    const csv = iconButton('table', l10n.t('Export the groups as CSV'), 'groups-export-csv');
    csv.addEventListener('click', () => this.host.onExport('csv'));
    this.exports = [json, csv];
    bar.append(controls, this.note, el('span', { class: 'spacer' }), json, csv);
    this.multi = el('div', { class: 'groups-multi', attrs: { 'data-testid': 'groups-multi', role: 'note' } }, [
      icon('info'),
      el('span', { text: l10n.t('A row with several values (DKIM signatures, rDNS names) is in the group of each: shares and group totals can add up to more than 100%.') }),
    ]);
    this.multi.hidden = true;
    this.grid = el('div', { class: 'groups-grid', attrs: { role: 'grid', 'aria-label': l10n.t('Groups'), tabindex: 0, 'aria-colcount': COLS.length, 'data-testid': 'groups-grid' } });
    const head = el('div', { class: 'groups-row groups-head', attrs: { role: 'row', 'aria-rowindex': 1 } });
    COLS.forEach((c, k) => {
      const h = el('div', { class: `groups-cell${c.numeric ? ' numeric' : ''}`, title: c.title, attrs: { role: 'columnheader', 'aria-colindex': k + 1, 'data-column': c.id, 'aria-sort': 'none' } });
      h.append(el('span', { text: c.label }));
      if (c.id !== 'disposition') {
        h.append(icon('arrow-down', 'sort-icon'));
        h.classList.add('sortable');
        h.title = l10n.t('{0}: click to sort', c.title);
        h.addEventListener('click', () => this.host.onSort(c.id as GroupSortKey));
      }
      if (c.compare) h.hidden = true;
      head.append(h);
      this.headers.set(c.id, h);
    });
    this.body = el('div', { class: 'groups-body', attrs: { role: 'rowgroup' } });
    this.spacer = el('div', { class: 'groups-spacer' });
    this.body.append(this.spacer);
    this.grid.append(el('div', { class: 'groups-headgroup', attrs: { role: 'rowgroup' } }, [head]), this.body);
    this.element.append(bar, this.multi, this.grid);
    this.body.addEventListener('scroll', () => {
      this.top = this.body.scrollTop;
      this.render();
    });
    this.grid.addEventListener('keydown', (e) => this.onKey(e));
    this.body.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>('.groups-line');
      if (!row) return;
      const k = Number(row.dataset.line);
      if (!(k >= 0 && k < this.lines.length)) return;
      const line = this.lines.at(k);
      this.cursor = k;
      this.grid.focus({ preventScroll: true });
      if ((e.target as HTMLElement).closest('.twisty')) this.host.onExpand(line, !line.expanded);
      else this.host.onChoose(line);
    });
    new ResizeObserver((entries) => {
      this.height = entries[entries.length - 1]?.contentRect.height ?? 0;
      this.render();
    }).observe(this.body);
  }

  /** Without a group-by field only the bar with its controls shows. */
  setOpen(open: boolean): void {
    this.element.classList.toggle('closed', !open);
    const opening = open && this.grid.hidden;
    this.grid.hidden = !open;
    if (opening) this.body.scrollTop = this.top = 0;
    for (const b of this.exports) b.hidden = !open;
    if (!open) {
      this.note.textContent = this.note.title = l10n.t('Totals and pass rates per sender, IP, reporter, DKIM domain…');
      this.multi.hidden = true;
    }
  }

  /**
   * `total`: the emails of the rows grouped, `rows` their number: no group counts more (a row in
   * several groups counts once in each), so Rows and Emails are made wide enough for these.
   */
  update(lines: GroupLines, total: number, rows: number, sort: { by: GroupSortKey; descending: boolean }, note: string, multi: boolean, comparing = false): void {
    this.multi.hidden = !multi;
    if (comparing !== this.comparing) {
      this.comparing = comparing;
      this.grid.classList.toggle('comparing', comparing);
      for (const c of COLS) if (c.compare) this.headers.get(c.id)!.hidden = !comparing;
      let k = 0;
      for (const c of COLS) if (comparing || !c.compare) this.headers.get(c.id)!.setAttribute('aria-colindex', String(++k));
      this.grid.setAttribute('aria-colcount', String(k));
    }
    // Tabular digits are 1ch each, and a separator is no wider; 12px of padding.
    const width = (n: number, min: number): string => `max(${min}px, calc(${formatCount(n).length}ch + 12px))`;
    this.grid.style.setProperty('--groups-rows-w', width(rows, 52));
    this.grid.style.setProperty('--groups-emails-w', width(total, 80));
    this.lines = lines;
    this.total = total;
    this.cursor = Math.min(this.cursor, Math.max(0, lines.length - 1));
    this.note.textContent = note;
    this.note.title = note;
    this.grid.setAttribute('aria-rowcount', String(lines.length + 1));
    for (const [id, h] of this.headers) {
      const active = id === sort.by;
      h.setAttribute('aria-sort', active ? (sort.descending ? 'descending' : 'ascending') : 'none');
      h.classList.toggle('sorted', active);
      const ic = h.querySelector('.sort-icon');
      if (ic) ic.className = `codicon codicon-${active && !sort.descending ? 'arrow-up' : 'arrow-down'} sort-icon`;
    }
    this.spacer.style.height = `${lines.length * ROW_HEIGHT}px`;
    this.render(true);
  }

  private render(force = false): void {
    const top = this.top;
    const h = this.height || this.body.clientHeight;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - 4);
    const last = Math.min(this.lines.length, Math.ceil((top + h) / ROW_HEIGHT) + 4);
    const key = `${first}:${last}:${this.cursor}`;
    if (!force && this.spacer.dataset.key === key) return;
    this.spacer.dataset.key = key;
    const rows: HTMLElement[] = [];
    for (let k = first; k < last; k++) rows.push(this.line(k));
    this.spacer.replaceChildren(...rows);
    const active = this.spacer.querySelector<HTMLElement>('.groups-line.focused');
    if (active) this.grid.setAttribute('aria-activedescendant', active.id);
    else this.grid.removeAttribute('aria-activedescendant');
  }

  private line(k: number): HTMLElement {
    const line = this.lines.at(k);
    const g = line.stats;
    const row = el('div', {
      class: `groups-row groups-line level-${line.level}${k === this.cursor ? ' focused' : ''}`,
      attrs: { role: 'row', id: `group-line-${k}`, 'aria-rowindex': k + 2, 'data-line': k, 'aria-level': line.level + 1, 'data-key': g.key },
    });
    if (line.expandable) row.setAttribute('aria-expanded', String(!!line.expanded));
    row.style.transform = `translateY(${k * ROW_HEIGHT}px)`;
    const name = el('div', { class: 'groups-cell group-name', attrs: { role: 'gridcell' }, title: valueLabel(g.key) });
    if (line.expandable) name.append(el('span', { class: 'twisty', attrs: { 'aria-hidden': 'true' } }, [icon(line.expanded ? 'chevron-down' : 'chevron-right')]));
    else if (line.level === 1) name.append(el('span', { class: 'twisty-space' }));
    name.append(el('span', { class: 'group-key', text: valueLabel(g.key) }));
    const cell = (text: string, cls = 'numeric'): HTMLElement => el('div', { class: `groups-cell ${cls}`, text, attrs: { role: 'gridcell' } });
    const d = g.disposition;
    const bar = el('div', { class: 'groups-cell', attrs: { role: 'gridcell' }, title: d[3] ? l10n.t('none {0}, quarantine {1}, reject {2}, other {3}', formatCount(d[0]!), formatCount(d[1]!), formatCount(d[2]!), formatCount(d[3])) : l10n.t('none {0}, quarantine {1}, reject {2}', formatCount(d[0]!), formatCount(d[1]!), formatCount(d[2]!)) });
    const track = el('span', { class: 'disp-bar', attrs: { 'aria-label': l10n.t('delivered {0}, quarantined {1}, rejected {2}', rate(d[0]!, g.emails), rate(d[1]!, g.emails), rate(d[2]!, g.emails)) } });
    ['none', 'quarantine', 'reject', 'other'].forEach((name2, j) => {
      const seg = el('span', { class: `disp-seg disp-${name2}` });
      seg.style.width = `${g.emails > 0 ? (d[j]! / g.emails) * 100 : 0}%`;
      track.append(seg);
    });
    bar.append(track);
    const verdict = el('div', { class: 'groups-cell group-verdict', attrs: { role: 'gridcell' } });
    if (g.verdict) {
      const term = termOf(g.verdict)!;
      verdict.append(badge('rowClass', term.label));
      verdict.title = `${term.label}: ${term.rule}\n${l10n.t('Compliant {0} · Forwarded {1} · Needs fixing {2} · Unauthenticated {3}', ...Array.from(g.mix, formatCount))}`;
    }
    const c = this.comparing ? line.change : undefined;
    const moved = verdictMove(c);
    if (moved) {
      verdict.title = verdict.title ? `${moved}\n${verdict.title}` : moved;
      verdict.dataset.moved = moved;
    }
    const cells = this.comparing ? changeCells(c) : undefined;
    row.append(
      name,
      cell(formatCount(g.rows)),
      cell(formatCount(g.emails)),
      ...(cells ? [cells.emails] : []),
      cell(rate(g.emails, this.total)),
      cell(rate(g.passEmails, g.emails)),
      ...(cells ? [cells.pass] : []),
      cell(rate(g.spfEmails, g.emails)),
      cell(rate(g.dkimEmails, g.emails)),
      verdict,
      ...(cells ? [cells.status] : []),
      bar,
      cell(formatDay(g.firstMs), 'date'),
      cell(formatDay(g.lastMs), 'date'),
    );
    const said = l10n.t('{0}: {1} in {2}, DMARC pass {3}', valueLabel(g.key), plural(g.emails, l10n.t('email'), l10n.t('emails')), plural(g.rows, l10n.t('row'), l10n.t('rows')), rate(g.passEmails, g.emails));
    const change = cells ? [cells.emails.textContent, cells.pass.textContent && l10n.t('{0} points', cells.pass.textContent), cells.status.textContent, moved].filter(Boolean).join(', ') : '';
    row.setAttribute('aria-label', revealBidi(change ? `${said}; ${l10n.t('since the previous period: {0}', change)}` : said));
    return row;
  }

  private onKey(e: KeyboardEvent): void {
    const n = this.lines.length;
    if (n === 0) return;
    const line = this.lines.at(Math.min(this.cursor, n - 1));
    let next = this.cursor;
    const page = Math.max(1, Math.floor((this.height || 200) / ROW_HEIGHT) - 1);
    switch (e.key) {
      case 'ArrowDown': next++; break;
      case 'ArrowUp': next--; break;
      case 'PageDown': next += page; break;
      case 'PageUp': next -= page; break;
      case 'Home': next = 0; break;
      case 'End': next = n - 1; break;
      case 'ArrowRight':
        if (line?.expandable && !line.expanded) this.host.onExpand(line, true);
        e.preventDefault();
        return;
      case 'ArrowLeft':
        if (line?.expandable && line.expanded) this.host.onExpand(line, false);
        else if (line?.level === 1) next = this.lines.parentOf(this.cursor);
        break;
      case 'Enter':
      case ' ':
        e.preventDefault();
        if (line) this.host.onChoose(line);
        return;
      default:
        return;
    }
    e.preventDefault();
    this.cursor = Math.max(0, Math.min(n - 1, next));
    const y = this.cursor * ROW_HEIGHT;
    if (y < this.top) this.body.scrollTop = this.top = y;
    else if (y + ROW_HEIGHT > this.top + (this.height || 0)) this.body.scrollTop = this.top = y + ROW_HEIGHT - (this.height || 0);
    this.render(true);
  }
}

/** The cells of a group's change: Δ emails, Δ DMARC pass (points), and New or Gone. */
function changeCells(c: Change | undefined): { emails: HTMLElement; pass: HTMLElement; status: HTMLElement } {
  const cell = (text: string, cls: string, title?: string): HTMLElement => el('div', { class: `groups-cell ${cls}`, text, attrs: { role: 'gridcell' }, ...(title ? { title } : {}) });
  if (!c) return { emails: cell('', 'numeric'), pass: cell('', 'numeric'), status: cell('', 'group-change') };
  const before = l10n.t('{0} emails before', formatCount(c.before));
  const pass = pointsText(c.deltaPass);
  const passTitle = c.passBefore !== undefined && c.passNow !== undefined ? l10n.t('DMARC pass {0} → {1}', formatPercent(c.passBefore), formatPercent(c.passNow)) : undefined;
  const status = el('div', { class: 'groups-cell group-change', attrs: { role: 'gridcell' } });
  if (c.status !== 'kept') {
    const text = c.status === 'new' ? l10n.t('New') : l10n.t('Gone');
    status.append(el('span', { class: `change-badge change-${c.status}`, text }));
    status.title = c.status === 'new' ? l10n.t('No emails in the previous period') : l10n.t('Emails in the previous period, none now');
  }
  const trend = (d: number | undefined): string => (d === undefined || Math.round(Math.abs(d) * 10) === 0 ? '' : d > 0 ? ' delta-up' : ' delta-down');
  return {
    emails: cell(signedCount(c.deltaEmails, formatCount), `numeric delta-emails${trend(c.deltaEmails)}`, before),
    pass: cell(pass, `numeric delta-pass${trend(c.deltaPass)}`, passTitle),
    status,
  };
}
