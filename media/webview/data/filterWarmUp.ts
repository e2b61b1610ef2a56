/**
 * Idle-time warm-ups of what the first keystroke that filters runs besides the search (which
 * SearchIndex.warm warms): the summary of the rows found (summary.ts), their facet counts
 * (facetCounts.ts countRows) and, over the narrowed codes, their order (rowSets.ts
 * flaggedInOrder), over every other one of the first rows, results thrown away. Until
 * a filtered view is computed these run nowhere: at a million rows the first "mi" ran them as
 * the engine first met them (the summary's byValue 45 ms, 2 ms once compiled; profile of
 * bench:panel). DOM-free.
 */
import { FACETS, type ColumnId, type FacetId } from '../../../src/shared/columns';
import { countRows } from './facetCounts';
import type { Facts, FieldIndex } from './fieldTypes';
import type { Ranks } from './ranks';
import { flaggedInOrder } from './rowSets';
import { summarize } from './summary';

/**
 * Columns whose ranks the narrowed rounds put a search's rows in order by (rowSets.ts
 * flaggedInOrder, as RecordsModel.compute does for a search that found few rows): the table's
 * default (two-byte ranks) and one with a rank per distinct date (four-byte ranks), both ways.
 */
const ORDER_BY: readonly ColumnId[] = ['emails', 'date'];

/** Rows a round reads: every other one of the first 2 × WARM_ROWS. */
const WARM_ROWS = 20_000;
/** Rounds (one per idle step), for the optimising compiler's sake. */
const ROUNDS = 3;

export class FilterWarmUp {
  private rounds = 0;

  get done(): boolean {
    return this.rounds >= ROUNDS;
  }

  /**
   * One round over the rows of `s`, the facets' fields from `fieldOf`. False when every round has
   * run or there are too few rows yet.
   */
  next(s: Facts & { readonly length: number }, fieldOf: (id: FacetId) => FieldIndex): boolean {
    if (this.done || s.length < 2 * WARM_ROWS) return false;
    this.rounds++;
    this.round(s, fieldOf);
    return true;
  }

  /** Rounds left to run over the narrowed codes (narrowed). */
  private again = 0;

  /**
   * The fields' codes were narrowed (Fields.compact: Uint32Array to Uint16Array or Uint8Array):
   * code the engine optimised for the wider arrays no longer fits them, and the first filter
   * after it would be optimised anew while the user waits. The rounds run again (nextNarrowed).
   */
  narrowed(): void {
    this.again = ROUNDS;
  }

  /**
   * A round over the narrowed codes, once the fields' narrowing is over (and every column's ranks
   * made: `ranksOf` then only reads them). False when none is left.
   */
  nextNarrowed(s: Facts & { readonly length: number }, fieldOf: (id: FacetId) => FieldIndex, ranksOf?: (column: ColumnId) => Ranks): boolean {
    if (this.again === 0 || !this.done || s.length < 2 * WARM_ROWS) return false;
    this.again--;
    this.round(s, fieldOf);
    if (ranksOf) {
      // Half the warm rows flagged, put in each order (the first search ordered these at once).
      const rows = warmRows();
      const flags = new Uint8Array(2 * WARM_ROWS);
      for (let k = 0; k < rows.length; k += 2) flags[rows[k]!] = 1;
      for (const column of ORDER_BY) for (const descending of [true, false]) flaggedInOrder(rows, flags, WARM_ROWS / 2, ranksOf(column), descending);
    }
    return true;
  }

  private round(s: Facts & { readonly length: number }, fieldOf: (id: FacetId) => FieldIndex): void {
    const fields = FACETS.map(fieldOf);
    const rows = warmRows();
    summarize(s, rows, fields[FACETS.indexOf('category')]!, fields[FACETS.indexOf('dmarc')]!);
    countRows(fields, s.emails, rows, new Uint32Array(0), new Uint8Array(0), [], []);
  }
}

/** Every other one of the first 2 × WARM_ROWS rows. */
function warmRows(): Uint32Array {
  const rows = new Uint32Array(WARM_ROWS);
  for (let k = 0; k < rows.length; k++) rows[k] = 2 * k;
  return rows;
}
