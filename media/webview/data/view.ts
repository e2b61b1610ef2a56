/**
 * What the records table shows for a query (query.ts computes it): the rows in display order,
 * and each row's position, made only when first read.
 */
import type { FacetId } from '../../../src/shared/columns';
import type { FacetOption } from './facetOptions';
import type { Summary } from './summary';

export interface View {
  /** Row indices in display order. */
  order: Uint32Array;
  /** Display position of each row index, -1 when filtered out. */
  posOf: Int32Array;
  /** Rows passing every filter but the day range: what the trend draws. */
  trendRows: Uint32Array;
  facets: Record<FacetId, FacetOption[]>;
  summary: Summary;
}

/**
 * A view whose positions (posOf) are made when first read: a sort or a keystroke at a million rows
 * then writes no 4 MB array at random (only the selection reads positions, of a row or two). Its
 * facet options may be made when first read too (`facets` a function): a keystroke shows its rows
 * and count first, the filters' counts in the task after that frame (main.ts).
 */
export function lazyView(order: Uint32Array, n: number, trendRows: Uint32Array, facets: View['facets'] | (() => View['facets']), summary: Summary): View {
  let pos: Int32Array | undefined;
  let options = typeof facets === 'function' ? undefined : facets;
  const view: View = {
    order,
    get posOf(): Int32Array {
      if (!pos) {
        pos = new Int32Array(n).fill(-1);
        for (let p = 0; p < order.length; p++) pos[order[p]!] = p;
      }
      return pos;
    },
    trendRows,
    get facets(): View['facets'] {
      if (!options) options = (facets as () => View['facets'])();
      return options;
    },
    summary,
  };
  rowsOfView.set(view, n);
  return view;
}

/** The store's length a lazy view was made for (its positions' length, without making them). */
export const rowsOfView = new WeakMap<View, number>();
