/**
 * Idle-time warm-ups of what the first keystroke that filters runs besides the search (which
 * SearchIndex.warm warms): the summary of the rows found (summary.ts) and their facet counts
 * (facetCounts.ts countRows), over every other one of the first rows, results thrown away. Until
 * a filtered view is computed these run nowhere: at a million rows the first "mi" ran them as
 * the engine first met them (the summary's byValue 45 ms, 2 ms once compiled; profile of
 * bench:panel). DOM-free.
 */
import { FACETS, type FacetId } from '../../../src/shared/columns';
import { countRows } from './facetCounts';
import type { Facts, FieldIndex } from './fieldTypes';
import { summarize } from './summary';

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

  /** A round over the narrowed codes, once the fields' narrowing is over. False when none is left. */
  nextNarrowed(s: Facts & { readonly length: number }, fieldOf: (id: FacetId) => FieldIndex): boolean {
    if (this.again === 0 || !this.done || s.length < 2 * WARM_ROWS) return false;
    this.again--;
    this.round(s, fieldOf);
    return true;
  }

  private round(s: Facts & { readonly length: number }, fieldOf: (id: FacetId) => FieldIndex): void {
    const fields = FACETS.map(fieldOf);
    const rows = new Uint32Array(WARM_ROWS);
    for (let k = 0; k < rows.length; k++) rows[k] = 2 * k;
    summarize(s, rows, fields[FACETS.indexOf('category')]!, fields[FACETS.indexOf('dmarc')]!);
    countRows(fields, s.emails, rows, new Uint32Array(0), new Uint8Array(0), [], []);
  }
}
