/**
 * Compare with the previous period, for the analysis (analysis.ts): the switch, the previous
 * period's rows (data/previous.ts), and what the groups table and the trend draw from them, the
 * groups counted by groups.ts over the previous rows as over this period's (same field, same
 * filters, same judge), compared by src/advice/compare.ts (data/compareGroups.ts).
 */
import type { Marks } from '../../../src/advice/marks';
import type { GroupField } from '../../../src/shared/columns';
import type { GroupExportRow, ViewState, WebviewMessage } from '../../../src/shared/protocol';
import { termOf, type Verdict } from '../../../src/advice/vocabulary';
import { CodeMap, ComparedGroups, type CompareSort, type MapCode } from '../data/compareGroups';
import { countGroups, type GroupSort, type GroupTable } from '../data/groups';
import { PreviousPeriod } from '../data/previous';
import type { Query, RecordsModel, View } from '../data/query';
import type { Trend } from '../data/trend';
import type { CompareSwitch } from './compareSwitch';

export class ComparePane {
  readonly previous: PreviousPeriod;
  /** The switch (compareSwitch.ts; the unit tests give a stand-in). */
  readonly toggle: Pick<CompareSwitch, 'setRange' | 'update'>;
  private compliant = 0.98;
  private wasOn = false;
  private preparing = false;
  /** Previous groups per (previous view, fields, judge): the last few asked for. */
  private readonly tables = new Map<string, { view: View; table: GroupTable }>();
  private readonly codeMaps = new Map<GroupField, CodeMap>();
  private readonly compared = new WeakMap<GroupTable, { before: GroupTable; result: ComparedGroups }>();

  constructor(private readonly nowModel: RecordsModel, post: (m: WebviewMessage) => void, changed: () => void, toggle: Pick<CompareSwitch, 'setRange' | 'update'>) {
    this.previous = new PreviousPeriod(post, () => (this.prepare(), changed()));
    this.toggle = toggle;
  }

  /**
   * While the previous rows arrive and once they are in, what a first search or group-by by IP
   * address would build then (the search's bits, the address fields' indexes) is built in idle
   * time, as for the panel's rows (at 100k rows the previous IP field took 60–90 ms when built on
   * the group-by); once they are in, its fields' codes are narrowed (Fields.compact).
   */
  private prepare(): void {
    if (this.preparing || this.previous.status === 'off' || typeof requestIdleCallback !== 'function') return;
    this.preparing = true;
    const model = this.previous.model;
    const again = (): void => void requestIdleCallback(step, { timeout: 1000 });
    const step = (deadline: IdleDeadline): void => {
      const more = (): boolean => deadline.timeRemaining() > 4;
      if (model.whileRowsArrive(more)) return again();
      if (this.previous.status === 'loading') return void setTimeout(again, 250);
      // Every row in: the fields built so far (the groups', the filters') in their narrowest codes.
      if (model.fields.compact(more)) return again();
      this.preparing = false;
    };
    again();
  }

  setRange(startMs: number, endMs: number): void {
    this.previous.setRange(startMs, endMs);
    this.toggle.setRange(this.previous.range);
  }

  /** The verdicts' bar and the owner's marks: the previous rows are judged as this period's. */
  setJudge(compliant: number | undefined, marks: Marks | undefined): void {
    const classes = this.previous.model.classes;
    if (compliant !== undefined) {
      this.compliant = compliant;
      classes.setCompliant(compliant);
    }
    if (marks !== undefined) classes.setMarks(marks);
  }

  /** The switch as the state has it; on, the previous period is asked for (once; again when turned on after a failure). */
  update(state: ViewState): void {
    if (state.compare) this.previous.want(!this.wasOn);
    this.wasOn = state.compare;
    this.prepare();
    this.toggle.update(state.compare, this.previous.status, this.previous.message);
  }

  /** Whether the groups and the trend show the previous period now. */
  shown(state: ViewState): boolean {
    return state.compare && this.previous.status === 'ready';
  }

  private view(state: ViewState): View {
    const q: Query = { search: state.search, facets: state.facets, days: state.days, groups: state.groups };
    return this.previous.view(q);
  }

  /** The previous period's groups by `by` (within one of `within`'s groups), judged as this period's. */
  private groups(state: ViewState, by: GroupField, within?: { field: GroupField; key: string; none: boolean }): GroupTable {
    const view = this.view(state);
    const m = this.previous.model;
    const slot = `${by} ${within ? `${within.field} ${within.none} ${within.key}` : ''} ${m.classes.key} ${this.compliant}`;
    const hit = this.tables.get(slot);
    if (hit?.view === view) return hit.table;
    const judge = { classes: m.classes.classes(), compliant: this.compliant };
    let inside: { field: ReturnType<typeof m.fields.get>; code: number } | undefined;
    if (within) {
      const field = m.fields.get(within.field);
      const code = within.none ? field.dict.length : m.fields.find(within.field, within.key);
      // A group this period has and the previous one had not: nothing of it before.
      inside = { field, code: code ?? -1 };
    }
    const rows = inside && inside.code < 0 ? new Uint32Array(0) : view.order;
    const table = countGroups(rows, m.store, m.fields.get(by), inside && inside.code >= 0 ? inside : undefined, judge);
    if (this.tables.size > 16) this.tables.clear();
    this.tables.set(slot, { view, table });
    return table;
  }

  /** `now` compared with the previous period's groups of the same field (and parent group). */
  compare(state: ViewState, now: GroupTable, by: GroupField, within?: { field: GroupField; key: string; none: boolean }): ComparedGroups {
    const before = this.groups(state, by, within);
    const hit = this.compared.get(now);
    if (hit?.before === before) return hit.result;
    const result = new ComparedGroups(now, before, (key) => this.previous.model.fields.find(by, key), this.inNow(by));
    this.compared.set(now, { before, result });
    return result;
  }

  /** The previous period's codes of `by` in this period's dictionary (looked up once each, data/compareGroups.ts CodeMap). */
  private inNow(by: GroupField): MapCode {
    let map = this.codeMaps.get(by);
    if (!map) this.codeMaps.set(by, (map = new CodeMap()));
    const nowField = this.nowModel.fields.get(by);
    // A computed field (the verdict of a row's source) is made anew when the rows are judged again.
    const version = `${this.nowModel.store.generation} ${this.previous.model.store.generation} ${nowField.dict.length} ${this.nowModel.classes.key} ${this.previous.model.classes.key}`;
    return map.lookup((key) => this.nowModel.fields.find(by, key), version);
  }

  /** The trend's "Previous period" line: emails per bucket, or the DMARC pass rate (%) when the trend shows shares. */
  line(state: ViewState, trend: Pick<Trend, 'starts' | 'unit'>): (number | null)[] {
    return this.previous.line(this.view(state).trendRows, trend, state.share);
  }

  /**
   * The exported groups (groupExport.ts) with their changes, in the table's order (a change's sort
   * too), and a line for each gone group. Subgroups follow their group as they are.
   */
  exportRows(state: ViewState, rows: readonly GroupExportRow[], nowTable: GroupTable, by: GroupField, sort: { by: GroupSort | CompareSort; descending: boolean }): GroupExportRow[] {
    const compared = this.compare(state, nowTable, by);
    // By key; '' may be two groups (the value '' and rows without one): taken in turn.
    const blocks = new Map<string, GroupExportRow[][]>();
    let block: GroupExportRow[] = [];
    for (const r of rows) {
      if (r.subgroup === undefined) {
        const list = blocks.get(r.group) ?? [];
        list.push((block = []));
        blocks.set(r.group, list);
      }
      block.push(r);
    }
    const label = (v: Verdict | undefined): { verdictBefore?: string } => (v ? { verdictBefore: termOf(v)!.label } : {});
    const out: GroupExportRow[] = [];
    for (const k of compared.sorted(sort.by, sort.descending)) {
      const key = compared.key(k);
      const c = compared.change(k);
      const change = { emailsBefore: c.before, deltaEmails: c.deltaEmails, deltaPass: c.deltaPass ?? null, change: c.status, ...label(c.verdictBefore) };
      const lines = k < nowTable.count ? blocks.get(key)?.shift() : undefined;
      if (lines) {
        out.push({ ...lines[0]!, ...change }, ...lines.slice(1));
        continue;
      }
      out.push({ group: key, rows: 0, emails: 0, share: 0, dmarcPass: null, alignedSpf: null, alignedDkim: null, delivered: 0, quarantined: 0, rejected: 0, first: '', last: '', ...change });
    }
    return out;
  }
}
