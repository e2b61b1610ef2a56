/**
 * The analysis above the records: the Advice (ui/advice.ts), the trend, the groups table with its
 * Group by controls, and the chips of the filters they set (days, groups). It computes from the view with the DOM-free
 * modules in data/ and renders the three components; every choice goes back to the one view state
 * through `AnalysisHost`.
 */
import * as l10n from '@vscode/l10n';
import { classesCountedAs, marksFrom, NO_MARKS, sameMarks, type Marks } from '../../src/advice/marks';
import type { PeriodHealth } from '../../src/advice/tally';
import { DEFAULT_THRESHOLDS, type AdviceThresholds } from '../../src/advice/vocabulary';
import type { AdviceExportRow, GroupExportRow, ViewState } from '../../src/shared/protocol';
import { computeAdvice } from './data/advice';
import { AdvicePanel, adviceExportRows, publishedAdvice, thresholdsFrom, verdictLabel, type Published } from './ui/advice';
import { GROUP_FIELDS, type GroupField, type TrendSplit } from '../../src/shared/columns';
import { countGroups, type GroupSort, type GroupTable, type Judge } from './data/groups';
import { groupExportRows } from './data/groupExport';
import { groupableExtras } from './data/extraFields';
import { groupLines, NO_LINES, type GroupLine, type GroupLines, type SortedGroups } from './data/groupLines';
import type { RecordsModel, View } from './data/query';
import { bucketIndex, bucketRange, computeTrend, trendUnit, type Trend } from './data/trend';
import { el } from './dom';
import { groupLabel, plural, valueLabel } from './format';
import { GroupsTable, type GroupSortKey } from './groups';
import { TrendPanel } from './trend';
import { renderChips } from './ui/chips';
import { ComparePane } from './ui/comparePane';
import { CompareSwitch } from './ui/compareSwitch';
import { isCompareSort, type ComparedGroups } from './data/compareGroups';
import { post } from './vscode';

export interface AnalysisHost {
  /** Applies a change to the view state and recomputes. */
  change(patch: Partial<ViewState>): void;
  /** Every row is in: the Advice judges only then (while rows stream in it would judge part of them, and slow their reading). */
  complete(): boolean;
  /** What the host of the page does for the analysis: exports and copies (actions.ts). */
  actions(): {
    exportGroups(format: 'json' | 'csv', title: string, rows: GroupExportRow[]): Promise<void>;
    exportAdvice(format: 'json' | 'csv', title: string, rows: AdviceExportRow[]): Promise<void>;
    copyText(text: string): Promise<void>;
  };
}

const DAY_MS = 86_400_000;

const SPLIT_FIELD: Record<Exclude<TrendSplit, 'group'>, GroupField> = {
  category: 'category', dmarcResult: 'dmarcResult', dmarc: 'dmarc', rowClass: 'rowClass', spfReason: 'spfReason', dkimReason: 'dkimReason',
};

export class Analysis {
  readonly advice: AdvicePanel;
  /** The verdicts' and readiness's bars: the defaults until the host sends the user's settings. */
  thresholds: AdviceThresholds = DEFAULT_THRESHOLDS;
  /** The policies the rows' reports state (report files), once the host sent them. */
  private published: Published | undefined;
  private publishedVersion = 0;
  /** The owner's marks on the organization's sources, as the host last sent them. */
  private marks: Marks = NO_MARKS;
  private marksVersion = 0;
  private adviceData: PeriodHealth | undefined;
  readonly trend: TrendPanel;
  readonly groups: GroupsTable;
  /** Compare with the previous period: the switch, its rows, the groups' Δ and the trend's line. */
  readonly compare: ComparePane;
  readonly chips: HTMLElement;
  readonly controls: HTMLElement;
  private readonly groupBy: HTMLSelectElement;
  private readonly thenBy: HTMLSelectElement;
  private state!: ViewState;
  private range = { startMs: 0, endMs: 0 };
  private trendData: Trend | undefined;
  private sort: { by: GroupSortKey; descending: boolean } = { by: 'emails', descending: true };
  private readonly expanded = new Set<string>();
  private extraNames = '';
  private lastView: View | undefined;
  /**
   * The trend and groups of every row, per store version: a view of all rows (no filter, or a
   * search every row matches, such as its first letter) draws them without counting a million
   * rows again (at 1M rows ~100 ms each). One result a slot (the trend, the groups, each open
   * group's subgroups), for what is shown now only: groups by IP address at 1M rows hold ~60 MB.
   */
  private everyRow = { version: -1, results: new Map<string, { key: string; value: Trend | GroupTable | PeriodHealth }>() };

  constructor(
    private readonly model: RecordsModel,
    private readonly host: AnalysisHost,
  ) {
    this.advice = new AdvicePanel({
      // At once, not when the analysis next redraws: the header answers its own click.
      onToggle: (adviceOpen) => (this.advice.setOpen(adviceOpen), this.host.change({ adviceOpen })),
      // The rows that count as its verdict: with a mark, rows of other classes too (src/advice/marks.ts).
      onChoose: (s) => this.host.change({ facets: { ...this.state.facets, source: [s.source], rowClass: classesCountedAs(s.verdict, s.mark).map(verdictLabel) } }),
      onDomain: (domain) => this.host.change({ facets: { ...this.state.facets, visibleFrom: [domain] } }),
      onCopy: (text) => void this.host.actions().copyText(text),
      onExport: (format) => {
        const d = this.adviceData;
        if (d) void this.host.actions().exportAdvice(format, d.readiness.step.text, adviceExportRows(this.advice.sources));
      },
    });
    this.trend = new TrendPanel({
      onSplit: (trendSplit) => this.host.change({ trendSplit }),
      onShare: (share) => this.host.change({ share }),
      onChoose: (r) => this.chooseBars(r),
      onToggle: (trendOpen) => (this.trend.setOpen(trendOpen), this.host.change({ trendOpen })),
    });
    const compareSwitch = new CompareSwitch((on) => this.host.change({ compare: on }));
    this.compare = new ComparePane(this.model, post, () => this.lastView && this.later(() => [this.state, this.lastView!]), compareSwitch);
    this.groupBy = el('select', { class: 'select', attrs: { id: 'group-by', 'data-testid': 'group-by' } });
    this.thenBy = el('select', { class: 'select', attrs: { id: 'then-by', 'data-testid': 'then-by', 'aria-label': l10n.t('Then by') } });
    this.controls = el('div', { class: 'group-controls' }, [
      el('label', { text: l10n.t('Group by'), attrs: { for: 'group-by' } }),
      this.groupBy,
      el('label', { class: 'then-label', text: 'then by', attrs: { for: 'then-by' } }),
      this.thenBy,
      compareSwitch.element,
    ]);
    this.fillSelects();
    this.groupBy.addEventListener('change', () => {
      const v = this.groupBy.value;
      this.expanded.clear();
      this.host.change({ groupBy: v ? (v as GroupField) : undefined, thenBy: undefined, ...(v ? {} : { trendSplit: this.state.trendSplit === 'group' ? 'category' : this.state.trendSplit }) });
    });
    this.thenBy.addEventListener('change', () => {
      this.expanded.clear();
      this.host.change({ thenBy: this.thenBy.value ? (this.thenBy.value as GroupField) : undefined });
    });
    this.groups = new GroupsTable(
      {
        onChoose: (line) => this.chooseGroup(line),
        onExpand: (line, open) => {
          if (open) this.expanded.add(line.stats.key);
          else this.expanded.delete(line.stats.key);
          this.renderGroups();
        },
        onSort: (by) => {
          const numericFirst = by !== 'key';
          this.sort = this.sort.by === by ? { by, descending: !this.sort.descending } : { by, descending: numericFirst };
          this.renderGroups();
        },
        onExport: (format) => this.exportGroups(format),
      },
      this.controls,
    );
    this.chips = el('div', { class: 'chips', attrs: { 'data-testid': 'chips', role: 'list', 'aria-label': l10n.t('Active filters') } });
  }

  private fillSelects(): void {
    // Those worth grouping by (data/extraFields.ts), and the ones chosen now whatever they are.
    // Called first from the constructor, before any state.
    const s = this.state as ViewState | undefined;
    const chosen = [s?.groupBy, s?.thenBy].flatMap((f) => (f?.startsWith('extra:') ? [f.slice(6)] : []));
    const extras = [...new Set([...groupableExtras(this.model.store, [...this.model.store.extraNames]), ...chosen])].sort();
    const key = extras.join('\n');
    if (key === this.extraNames && this.groupBy.options.length) return;
    this.extraNames = key;
    const options = (withNone: string): HTMLOptionElement[] => [
      el('option', { text: withNone, attrs: { value: '' } }),
      ...GROUP_FIELDS.map((f) => el('option', { text: groupLabel(f), attrs: { value: f } })),
      ...extras.map((x) => el('option', { text: l10n.t('{0} (extra field)', x), attrs: { value: `extra:${x}` } })),
    ];
    this.groupBy.replaceChildren(...options(l10n.t('Nothing')));
    this.thenBy.replaceChildren(...options('—'));
  }

  private laterPending = false;
  private laterSeq = 0;

  /**
   * What the host sends for the Advice (untrusted shape): thresholds, each a fraction 0–1 (else the
   * default), the policies the rows' reports state, and the owner's marks (pairs of a source and
   * 'mine' or 'not-mine', bounded: marksFrom). Judged again when any of them changes.
   */
  setAdvice(m: { thresholds?: unknown; published?: unknown; marks?: unknown }, current: () => readonly [ViewState, View]): void {
    let changed = false;
    if (m.thresholds !== undefined) {
      const t = thresholdsFrom(m.thresholds);
      const was = this.thresholds;
      changed = t.compliant !== was.compliant || t.quarantine !== was.quarantine || t.reject !== was.reject;
      this.thresholds = t;
      this.model.classes.setCompliant(t.compliant);
      this.compare.setJudge(t.compliant, undefined);
    }
    if (m.published !== undefined) {
      this.published = publishedAdvice(m.published);
      this.publishedVersion++;
      changed = true;
    }
    if (m.marks !== undefined) {
      const marks = marksFrom(m.marks);
      if (!sameMarks(marks, this.marks)) {
        this.marks = marks.size ? marks : NO_MARKS;
        this.marksVersion++;
        this.model.classes.setMarks(this.marks);
        this.compare.setJudge(undefined, this.marks);
        changed = true;
      }
    }
    if (changed && this.lastView) this.later(current); // the view now: the last drawn may be stale
  }

  setRange(startMs: number, endMs: number): void {
    this.range = { startMs, endMs };
    this.compare.setRange(startMs, endMs);
  }

  /**
   * update() once the next frame is painted, for a keystroke in the search (and other filter
   * changes): the table and summary answer in that frame, the filters (FacetsPanel.updateLater), trend and groups follow
   * (Chart.js laying out its axes, the groups recounted: a third of a keystroke over 100k rows).
   * Calls made before it runs are one: typing fast, only the last view is drawn. An update() in
   * between makes it unneeded.
   */
  later(current: () => readonly [ViewState, View]): void {
    if (this.laterPending) return;
    this.laterPending = true;
    const seq = this.laterSeq;
    const run = (): void => {
      if (!this.laterPending || seq !== this.laterSeq) return;
      const [state, view] = current();
      this.update(state, view);
    };
    requestAnimationFrame(() => setTimeout(run, 0));
    // rAF does not run while the panel is hidden.
    setTimeout(run, 100);
  }

  /** update() now (`true`) or once the next frame is painted (`'later'`). */
  refresh(when: true | 'later', current: () => readonly [ViewState, View]): void {
    if (when === 'later') return this.later(current);
    const [state, view] = current();
    this.update(state, view);
  }

  update(state: ViewState, view: View): void {
    this.laterSeq++;
    this.laterPending = false;
    this.state = state;
    this.lastView = view;
    this.fillSelects();
    this.groupBy.value = state.groupBy ?? '';
    this.thenBy.value = state.thenBy ?? '';
    this.thenBy.disabled = !state.groupBy;
    this.compare.update(state);
    this.renderAdvice(view);
    this.renderTrend(view);
    this.renderGroups();
    renderChips(this.chips, state, this.trendData, (p) => this.host.change(p));
  }

  private renderTrend(view: View): void {
    const s = this.state;
    this.trend.setOpen(s.trendOpen);
    // Closed, it is not drawn (nor computed, unless the days chip needs its buckets).
    if (!s.trendOpen && !s.days) return;
    const splitId: GroupField | undefined = s.trendSplit === 'group' ? s.groupBy : SPLIT_FIELD[s.trendSplit];
    const split = splitId ? this.model.fields.get(splitId) : undefined;
    const t = this.ofEveryRow(view.trendRows, 'trend', `${splitId ?? ''} ${this.range.startMs} ${this.range.endMs}`, () => computeTrend(view.trendRows, this.model.store, this.range, split, { top: 8 }));
    this.trendData = t;
    if (!s.trendOpen) return;
    const chosen = s.days ? { from: Math.max(0, bucketIndex(s.days.startMs, t.starts, t.unit)), to: bucketIndex(s.days.endMs, t.starts, t.unit) } : undefined;
    if (chosen && chosen.to < 0) chosen.to = t.starts.length - 1;
    this.trend.update({
      trend: t,
      split: s.trendSplit === 'group' && !s.groupBy ? 'category' : s.trendSplit,
      share: s.share,
      labelOf: (k) => (k === 'other' ? l10n.t('Other') : k === 'emails' ? l10n.t('Emails') : valueLabel(k)),
      chosen,
      groupSplitAvailable: !!s.groupBy,
      ...(this.compare.shown(s) ? { previous: this.compare.line(s, t) } : {}),
    });
  }

  private renderAdvice(view: View): void {
    const s = this.state;
    this.advice.setOpen(s.adviceOpen);
    if (!s.adviceOpen) return;
    if (!this.host.complete()) return this.advice.pending();
    const span = s.days ?? this.range;
    const days = Math.max(1, Math.round((span.endMs - span.startMs + 1) / DAY_MS));
    const t = this.thresholds;
    const p = this.published;
    const marks = this.marks.size ? { marks: this.marks } : {};
    const opts = { thresholds: t, days, locale: document.documentElement.lang || undefined, ...marks, ...(p?.latest ? { policy: p.latest, policyOf: (d: string) => p.byDomain.get(d) } : {}) };
    this.adviceData = this.ofEveryRow(view.order, 'advice', `${days} ${t.compliant} ${t.quarantine} ${t.reject} ${this.publishedVersion} ${this.marksVersion}`, () => {
      const t0 = performance.now();
      const health = computeAdvice(view.order, this.model, opts);
      if (window.__dmarcPerf) window.__dmarcPerf.lastAdviceMs = performance.now() - t0;
      return health;
    });
    this.advice.update(this.adviceData, p);
  }

  private chooseBars(r: { from: number; to: number } | undefined): void {
    const t = this.trendData;
    this.host.change({ days: r && t ? bucketRange(t.starts, t.unit, r.from, r.to) : undefined });
  }

  /** The level-0 groups, and the level-1 groups of each open one: lines made only when shown. */
  private lines(): { lines: GroupLines; total: number; multi: boolean } {
    const s = this.state;
    const view = this.lastView;
    if (!s.groupBy || !view) return { lines: NO_LINES, total: 0, multi: false };
    const field = this.model.fields.get(s.groupBy);
    const table = this.groups0(view.order, s.groupBy);
    const compared = this.compare.shown(s);
    const sort = this.sortNow();
    const sorted = (t: GroupTable, c: ComparedGroups | undefined) => (c ? { table: c, order: c.sorted(sort.by, sort.descending) } : { table: t, order: t.sorted(sort.by as GroupSort, sort.descending) });
    const top = sorted(table, compared ? this.compare.compare(s, table, s.groupBy) : undefined);
    const then = s.thenBy ? this.model.fields.get(s.thenBy) : undefined;
    let multi = table.multi;
    const open: { at: number; sub: SortedGroups }[] = [];
    if (then) {
      for (const key of this.expanded) {
        // The key '' is both a value some rows may have and the group of rows without one.
        const codes = key === '' ? [this.model.fields.find(s.groupBy, ''), field.dict.length] : [this.model.fields.find(s.groupBy, key)];
        for (const code of codes) {
          const k = code === undefined ? -1 : table.indexOf(code);
          if (k < 0) continue;
          const at = top.order.indexOf(k);
          const sub = this.ofEveryRow(view.order, `sub ${code}`, `${s.groupBy} ${s.thenBy} ${this.judgeKey()}`, () => countGroups(view.order, this.model.store, then, { field, code: code! }, this.judge()));
          multi ||= sub.multi;
          open.push({ at, sub: sorted(sub, compared ? this.compare.compare(s, sub, s.thenBy!, { field: s.groupBy, key, none: code === field.dict.length }) : undefined) });
        }
      }
    }
    return { lines: groupLines(top, !!then, open), total: table.emails, multi };
  }

  /** `make()`, or, when `rows` are all the rows, what it gave for every row before (same store version, slot and key). */
  private ofEveryRow<T extends Trend | GroupTable | PeriodHealth>(rows: Uint32Array, slot: string, key: string, make: () => T): T {
    if (rows.length !== this.model.length) return make();
    const memo = this.everyRow;
    if (memo.version !== this.model.store.version) {
      memo.version = this.model.store.version;
      memo.results.clear();
    }
    const hit = memo.results.get(slot);
    if (hit?.key === key) return hit.value as T;
    // Other groups: the subgroups of the ones before are not shown any more.
    if (slot === 'groups') for (const k of [...memo.results.keys()]) if (k.startsWith('sub ')) memo.results.delete(k);
    const value = make();
    memo.results.set(slot, { key, value });
    return value;
  }

  /** The level-0 groups of the rows by a field. */
  private groups0(rows: Uint32Array, by: GroupField): GroupTable {
    return this.ofEveryRow(rows, 'groups', `${by} ${this.judgeKey()}`, () => countGroups(rows, this.model.store, this.model.fields.get(by), undefined, this.judge()));
  }

  private renderGroups(): void {
    const s = this.state;
    this.groups.setOpen(!!s.groupBy);
    if (!s.groupBy) return;
    const { lines, total, multi } = this.lines();
    const level0 = lines.groups;
    this.groups.update(lines, total, this.lastView?.order.length ?? 0, this.sortNow(), s.thenBy ? l10n.t('{0} by {1} → {2}', plural(level0, l10n.t('group'), l10n.t('groups')), groupLabel(s.groupBy), groupLabel(s.thenBy)) : l10n.t('{0} by {1}', plural(level0, l10n.t('group'), l10n.t('groups')), groupLabel(s.groupBy)), multi, this.compare.shown(s));
  }

  private chooseGroup(line: GroupLine): void {
    const s = this.state;
    if (!s.groupBy) return;
    const filters = s.groups.filter((g) => g.field !== s.groupBy && g.field !== s.thenBy);
    const key = line.level === 1 ? line.parent!.key : line.stats.key;
    filters.push({ field: s.groupBy, key });
    if (line.level === 1 && s.thenBy) filters.push({ field: s.thenBy, key: line.stats.key });
    this.host.change({ groups: filters.slice(-4) });
  }

  private exportGroups(format: 'json' | 'csv'): void {
    const s = this.state;
    const view = this.lastView;
    if (!s.groupBy || !view) return;
    const then = s.thenBy ? this.model.fields.get(s.thenBy) : undefined;
    const sort = this.sortNow();
    const plain = isCompareSort(sort.by) ? { by: 'emails' as const, descending: true } : { by: sort.by, descending: sort.descending };
    let rows = groupExportRows(view.order, this.model.store, this.model.fields.get(s.groupBy), then, plain, this.judge());
    if (this.compare.shown(s)) rows = this.compare.exportRows(s, rows, this.groups0(view.order, s.groupBy), s.groupBy, sort);
    void this.host.actions().exportGroups(format, `${groupLabel(s.groupBy)}${s.thenBy ? ` → ${groupLabel(s.thenBy)}` : ''}`, rows);
  }

  /** The groups' sort: a change's only while the previous period is shown. */
  private sortNow(): { by: GroupSortKey; descending: boolean } {
    return isCompareSort(this.sort.by) && !this.compare.shown(this.state) ? { by: 'emails', descending: true } : this.sort;
  }

  private judgeKey(): string {
    return `${this.model.classes.key} ${this.thresholds.compliant}`;
  }

  /** What the groups are judged by: each row's class after the owner's marks, and the Compliant share. */
  private judge(): Judge {
    return { classes: this.model.classes.classes(), compliant: this.thresholds.compliant };
  }

  /** What the trend unit of the panel's range is (for the bench and tests). */
  get unit(): Trend['unit'] {
    return trendUnit(this.range.startMs, this.range.endMs);
  }
}
