/**
 * The view of every row in row order: no sort, no search, no filter. That is the table while a
 * load streams in (until the user sorts or filters), and it only ever grows, so it is extended
 * with the rows appended instead of being built again for each update: at a million rows a full
 * pass (every row put in order, positions, the summary) cost ~100 ms in Node and 250–450 ms in
 * the page, once per streaming update and again when the last rows came.
 *
 * The order, the positions and the trend's rows are views of one identity array (row i at
 * position i) grown by doubling, so a view handed out earlier stays valid; the summary's sums and
 * the facet counts (kept by the model) are extended row by row.
 */
import { FACETS, type FacetId } from '../../../src/shared/columns';
import { mapColumnSteps } from './columnScan';
import type { FacetCounts } from './facetCounts';
import { facetOptions, type FacetOption } from './facetOptions';
import type { FieldIndex } from './fieldTypes';
import type { RowStore } from './store';
import { drain } from '../../../src/shared/sorts';
import type { Summary } from './summary';

export interface RowOrder {
  order: Uint32Array;
  posOf: Int32Array;
  trendRows: Uint32Array;
  facets: Record<FacetId, FacetOption[]>;
  summary: Summary;
}

const collator = new Intl.Collator(undefined);

/** Sums of emails by text, as the summary lists them: most emails first, then by text; none without emails. */
function ranked(t: Sums): { value: string; emails: number }[] {
  return t.texts.map((value, k) => ({ value, emails: t.sums[k]! })).filter((x) => x.emails > 0).sort((a, b) => b.emails - a.emails || collator.compare(a.value, b.value));
}

/** Emails per text of a column, in the order the texts first came. */
interface Sums {
  column: 'category' | 'dmarc';
  texts: string[];
  slot: Map<string, number>;
  sums: Float64Array;
}

const sums = (column: Sums['column']): Sums => ({ column, texts: [], slot: new Map(), sums: new Float64Array(8) });

export class RowOrderView {
  private generation = -1;
  private length = 0;
  private ids = new Uint32Array(0);
  private pos = new Int32Array(0);
  private emails = 0;
  private passEmails = 0;
  private byCategory = sums('category');
  private byDisposition = sums('dmarc');
  private cached: { version: number; view: RowOrder } | undefined;

  /** Rows 0 … n - 1 in order: a view of the identity array (not to be written to). */
  identity(n: number): Uint32Array {
    this.grow(n);
    return this.ids.subarray(0, n);
  }

  /** Bytes of the typed arrays. */
  bytes(): number {
    return this.ids.byteLength + this.pos.byteLength;
  }

  clear(): void {
    this.generation = -1;
    this.length = 0;
    this.cached = undefined;
    this.emails = 0;
    this.passEmails = 0;
    this.byCategory = sums('category');
    this.byDisposition = sums('dmarc');
  }

  /**
   * The view of every row of `s` in row order (no facet value is chosen). `all` holds the facet
   * counts over every row (the model extends them), `fields` the facets' fields.
   */
  view(s: RowStore, fields: readonly FieldIndex[], all: FacetCounts): RowOrder {
    const c = this.cached;
    if (c && c.version === s.version && this.generation === s.generation) return c.view;
    if (this.generation !== s.generation || this.length > s.length) {
      this.clear();
      this.generation = s.generation;
    }
    const n = s.length;
    this.grow(n);
    this.extendSummary(s, n);
    const order = this.ids.subarray(0, n);
    const summary: Summary = {
      rows: n,
      emails: this.emails,
      passEmails: this.passEmails,
      passRate: this.emails > 0 ? this.passEmails / this.emails : Number.NaN,
      byCategory: ranked(this.byCategory),
      byDisposition: ranked(this.byDisposition),
    };
    const facets = facetOptions(FACETS, fields, all.rows, all.rows, all.emails, {});
    const view = { order, posOf: this.pos.subarray(0, n), trendRows: order, facets, summary };
    this.cached = { version: s.version, view };
    return view;
  }

  private grow(n: number): void {
    if (this.ids.length >= n) return;
    const cap = Math.max(n, Math.ceil(this.ids.length * 1.5), 1024);
    this.ids = new Uint32Array(cap);
    this.pos = new Int32Array(cap);
    for (let i = 0; i < cap; i++) {
      this.ids[i] = i;
      this.pos[i] = i;
    }
  }

  private extendSummary(s: RowStore, n: number): void {
    const em = s.emails;
    const pass = s.dmarcPass;
    for (let i = this.length; i < n; i++) {
      const e = em[i]!;
      this.emails += e;
      if (pass[i]) this.passEmails += e;
    }
    // Looked up once per distinct text of each chunk, not per row; summed in row order, as
    // summarize does (the same floating-point sums).
    for (const t of [this.byCategory, this.byDisposition]) {
      drain(mapColumnSteps(s, t.column, this.length, (text) => {
        let k = t.slot.get(text);
        if (k === undefined) {
          t.slot.set(text, (k = t.texts.push(text) - 1));
          if (k >= t.sums.length) {
            const grown = new Float64Array(2 * t.sums.length + 8);
            grown.set(t.sums);
            t.sums = grown;
          }
        }
        return k;
      }, (i, k) => (t.sums[k]! += em[i]!)));
    }
    this.length = n;
  }
}
