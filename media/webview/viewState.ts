/**
 * The view state the panel keeps (setState) and restores: what is hidden, sorted, searched,
 * filtered, scrolled and focused. State read back from VS Code or sent by the host is checked
 * here by hand (the webview bundle ships without zod) and anything malformed is dropped.
 */
import { COLUMNS, FACETS, type ColumnId, type FacetId } from '../../src/shared/columns';
import type { PanelIdentity, ViewState } from '../../src/shared/protocol';

export function emptyViewState(): ViewState {
  return { hiddenColumns: [], search: '', facets: {}, scrollTop: 0 };
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
  return v;
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
