/**
 * The view state the panel keeps (setState) and restores: what is hidden, sorted, searched,
 * filtered, scrolled and focused. State read back from VS Code or sent by the host is checked
 * here by hand (the webview bundle ships without zod) and anything malformed is dropped.
 */
import { ROW_CLASSES, termOf } from '../../src/advice/vocabulary';
import { COLUMNS, FACETS, TREND_SPLITS, type ColumnId, type FacetId, type TrendSplit } from '../../src/shared/columns';
import type { ColumnLayout, PanelIdentity, ViewState } from '../../src/shared/protocol';
import { isFieldId } from './data/fields';

/**
 * How a table the user has not sorted is sorted: most emails first. In the order the server sent
 * them, the first rows were often rows of one email (issue 43); the senders that matter come first.
 */
export const DEFAULT_SORT: Readonly<NonNullable<ViewState['sort']>> = { column: 'emails', descending: true };

export function emptyViewState(): ViewState {
  return { hiddenColumns: [], sort: { ...DEFAULT_SORT }, search: '', facets: {}, scrollTop: 0, groups: [], trendSplit: 'category', share: false, facetWeight: 'emails', detailOpen: true, facetsOpen: true, adviceOpen: true, trendOpen: true, compare: false };
}

function isColumn(v: unknown): v is ColumnId {
  return typeof v === 'string' && (COLUMNS as readonly string[]).includes(v);
}

/** Keeps what is valid in an untrusted view state, within the limits of protocol.ts's viewStateSchema. */
export function sanitizeViewState(raw: unknown): ViewState {
  const v = emptyViewState();
  if (!raw || typeof raw !== 'object') return v;
  const r = raw as Record<string, unknown>;
  if (Array.isArray(r.hiddenColumns)) v.hiddenColumns = [...new Set(r.hiddenColumns.filter(isColumn))];
  const sort = r.sort as Record<string, unknown> | undefined;
  if (sort && typeof sort === 'object' && isColumn(sort.column) && typeof sort.descending === 'boolean') {
    v.sort = { column: sort.column, descending: sort.descending };
  }
  if (typeof r.search === 'string') v.search = r.search.slice(0, 1000);
  const facets = r.facets as Record<string, unknown> | undefined;
  if (facets && typeof facets === 'object') {
    for (const f of FACETS) {
      const list = facets[f];
      if (!Array.isArray(list)) continue;
      const keys = [...new Set(list.filter((x): x is string => typeof x === 'string' && x.length <= 200))].slice(0, 100);
      if (keys.length) v.facets[f] = keys;
    }
  }
  if (typeof r.scrollTop === 'number' && Number.isFinite(r.scrollTop) && r.scrollTop >= 0) v.scrollTop = r.scrollTop;
  if (typeof r.focused === 'number' && Number.isInteger(r.focused) && r.focused >= 0 && r.focused <= 50_000_000) v.focused = r.focused;
  const days = r.days as Record<string, unknown> | undefined;
  if (days && typeof days === 'object' && Number.isFinite(days.startMs) && Number.isFinite(days.endMs) && (days.startMs as number) <= (days.endMs as number)) {
    v.days = { startMs: days.startMs as number, endMs: days.endMs as number };
  }
  if (isFieldId(r.groupBy) && r.groupBy !== 'dkim') v.groupBy = r.groupBy;
  if (v.groupBy && isFieldId(r.thenBy) && r.thenBy !== 'dkim' && r.thenBy !== v.groupBy) v.thenBy = r.thenBy;
  if (Array.isArray(r.groups)) {
    for (const g of r.groups.slice(0, 4)) {
      const o = g as Record<string, unknown> | null;
      if (o && typeof o === 'object' && isFieldId(o.field) && o.field !== 'dkim' && typeof o.key === 'string' && o.key.length <= 2000) v.groups.push({ field: o.field, key: o.key });
    }
  }
  if ((TREND_SPLITS as readonly unknown[]).includes(r.trendSplit)) v.trendSplit = r.trendSplit as TrendSplit;
  if (typeof r.share === 'boolean') v.share = r.share;
  if (r.facetWeight === 'rows' || r.facetWeight === 'emails') v.facetWeight = r.facetWeight;
  if (typeof r.detailOpen === 'boolean') v.detailOpen = r.detailOpen;
  if (typeof r.facetsOpen === 'boolean') v.facetsOpen = r.facetsOpen;
  if (typeof r.adviceOpen === 'boolean') v.adviceOpen = r.adviceOpen;
  if (typeof r.trendOpen === 'boolean') v.trendOpen = r.trendOpen;
  if (typeof r.compare === 'boolean') v.compare = r.compare;
  return v;
}

/** Keeps what is valid in an untrusted column layout: known columns once each, sane widths, one column always shown. */
export function sanitizeLayout(raw: unknown): ColumnLayout {
  const out: ColumnLayout = { order: [], widths: {}, hidden: [] };
  if (!raw || typeof raw !== 'object') return out;
  const r = raw as Record<string, unknown>;
  if (Array.isArray(r.order)) out.order = [...new Set(r.order.filter(isColumn))];
  if (Array.isArray(r.hidden)) out.hidden = [...new Set(r.hidden.filter(isColumn))].slice(0, COLUMNS.length - 1);
  const p = r.panes as Record<string, unknown> | undefined;
  if (p && typeof p === 'object') {
    const panes: NonNullable<ColumnLayout['panes']> = {};
    for (const k of ['advice', 'trend', 'detail'] as const) if (typeof p[k] === 'boolean') panes[k] = p[k];
    if (Object.keys(panes).length) out.panes = panes;
  }
  const w = r.widths as Record<string, unknown> | undefined;
  if (w && typeof w === 'object') {
    for (const c of COLUMNS) {
      const n = w[c];
      if (typeof n === 'number' && Number.isInteger(n) && n >= 40 && n <= 2000) out.widths[c] = n;
    }
  }
  return out;
}

/** The columns in the user's order: saved ones first, any column the layout does not know (a new one) in its default place. */
export function orderedColumns(layout: ColumnLayout): ColumnId[] {
  const seen = new Set(layout.order);
  const out = [...layout.order];
  COLUMNS.forEach((c, k) => {
    if (seen.has(c)) return;
    // After the column that precedes it by default, if that one is placed.
    const prev = COLUMNS[k - 1];
    const at = prev ? out.indexOf(prev) : -1;
    out.splice(at + 1, 0, c);
    seen.add(c);
  });
  return out;
}

/** The shape kept with setState; the host's serializer reads `identity` from it after a reload. */
export interface SavedState {
  identity: PanelIdentity;
  view: ViewState;
}

export function readSavedState(raw: unknown): { identity?: PanelIdentity; view?: ViewState } {
  if (!raw || typeof raw !== 'object') return {};
  const r = raw as Record<string, unknown>;
  const identity = r.identity && typeof r.identity === 'object' ? (r.identity as PanelIdentity) : undefined;
  return { ...(identity ? { identity } : {}), ...(r.view !== undefined ? { view: sanitizeViewState(r.view) } : {}) };
}

export function sameIdentity(a: PanelIdentity | undefined, b: PanelIdentity | undefined): boolean {
  if (!a || !b) return false;
  return a.accountId === b.accountId && a.organizationId === b.organizationId && a.start === b.start && a.end === b.end && (a.source ?? null) === (b.source ?? null);
}

export type FacetSelection = Partial<Record<FacetId, string[]>>;

/**
 * The view a page starts with: the one VS Code kept for this webview when it shows the same range
 * (it survives hiding the panel), else the host's copy (what the serializer restored after a
 * window reload), else an empty one with the search the panel was opened with, if any.
 */
/**
 * Below this the panel is small: a window of 1024 × 700 with the sidebar open gives it about
 * 680 × 590; one of 1280 × 800, about 930 × 690. A new small panel starts compact.
 */
export const SMALL_PANEL = { width: 720, height: 640 };

/**
 * The panes a new panel starts with: those the user last chose (any panel), else, in a small
 * panel, the Advice, the trend and the details closed so that the table keeps ~8 rows in sight
 * (each a click away); else all open.
 */
export function startingPanes(panes: ColumnLayout['panes'], size: { width: number; height: number }): Pick<ViewState, 'adviceOpen' | 'trendOpen' | 'detailOpen'> {
  const small = size.width < SMALL_PANEL.width || size.height < SMALL_PANEL.height;
  return { adviceOpen: panes?.advice ?? !small, trendOpen: panes?.trend ?? !small, detailOpen: panes?.detail ?? !small };
}

export function startingView(
  kept: unknown,
  init: { identity: PanelIdentity; state?: unknown; initialSearch?: unknown; initialClasses?: unknown },
  panes: Pick<ViewState, 'adviceOpen' | 'trendOpen' | 'detailOpen'> = startingPanes(undefined, { width: Infinity, height: Infinity }),
): ViewState {
  const saved = readSavedState(kept);
  if (saved.view && sameIdentity(saved.identity, init.identity)) return saved.view;
  if (init.state) return sanitizeViewState(init.state);
  const view = { ...emptyViewState(), ...panes };
  if (typeof init.initialSearch === 'string') view.search = init.initialSearch.slice(0, 1000);
  // The class facet holds labels, as the rows do.
  const classes = Array.isArray(init.initialClasses) ? init.initialClasses.flatMap((c) => (typeof c === 'string' && (ROW_CLASSES as readonly string[]).includes(c) ? [termOf(c)!.label] : [])) : [];
  if (classes.length) view.facets = { ...view.facets, rowClass: classes };
  return view;
}

/** A click on a column's header: the other direction on the sorted column, else numbers biggest first. */
export function nextSort(current: ViewState['sort'], column: ColumnId, numeric: boolean): NonNullable<ViewState['sort']> {
  return current && current.column === column ? { column, descending: !current.descending } : { column, descending: numeric };
}

/** The facet selection with `key` of facet `f` toggled. */
export function toggledFacet(facets: ViewState['facets'], f: FacetId, key: string): ViewState['facets'] {
  const keys = new Set(facets[f] ?? []);
  if (keys.has(key)) keys.delete(key);
  else keys.add(key);
  return { ...facets, [f]: [...keys] };
}
