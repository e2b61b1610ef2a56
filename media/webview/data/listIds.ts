/**
 * The distinct code lists of one chunk (a row's DKIM signatures, its rDNS names), found without
 * building a key per row: a list is hashed from its codes into an open-addressed table of typed
 * arrays and compared, code by code, with the first row that had it. Reading a chunk used to
 * join every row's list into a string to look it up in a Map (a string, its hash and a Map probe
 * per row: a fifth of the webview's time taking in rows that carry two signatures).
 */
import type { Codes } from '../../../src/shared/rowCodec';

const EMPTY = -1;

export class ListIds {
  /** Slot → entry (EMPTY when free). Sized for at most `rows` entries at half load. */
  private slots = new Int32Array(0);
  private mask = 0;
  /** Per entry: where its list starts in `codes`, and how long it is. */
  private at = new Uint32Array(0);
  private len = new Uint32Array(0);
  private entries = 0;
  private codes: Codes = new Uint32Array(0);

  /** `codes`: the chunk's codes of one list field, every row's list a span of them. */
  constructor(codes?: Codes, rows = 0) {
    if (codes) this.reset(codes, rows);
  }

  /**
   * Starts over for another chunk, with no entries; the arrays are reused when big enough (a
   * chunk's worth of new typed arrays cost more than the lookups they serve).
   */
  reset(codes: Codes, rows: number): void {
    this.codes = codes;
    this.entries = 0;
    let size = 16;
    while (size < rows * 2) size *= 2;
    if (this.slots.length < size) this.slots = new Int32Array(size);
    this.slots.fill(EMPTY, 0, size);
    this.mask = size - 1;
    if (this.at.length < rows + 1) {
      this.at = new Uint32Array(rows + 1);
      this.len = new Uint32Array(rows + 1);
    }
  }

  /** How many distinct lists so far (entries are 0 … size - 1, in the order first seen). */
  get size(): number {
    return this.entries;
  }

  /**
   * The entry of the list codes[a … b): an existing one when the same codes came before, else a
   * new one (`size` grows by one). At most one new entry per row: `rows` in the constructor.
   */
  entry(a: number, b: number): number {
    const codes = this.codes;
    const n = b - a;
    let h = Math.imul(n, 0x9e3779b1);
    for (let k = a; k < b; k++) h = Math.imul(h ^ codes[k]!, 0x85ebca6b) ^ (h >>> 13);
    h ^= h >>> 16;
    for (let s = h & this.mask; ; s = (s + 1) & this.mask) {
      const e = this.slots[s]!;
      if (e === EMPTY) {
        const fresh = this.entries++;
        this.slots[s] = fresh;
        this.at[fresh] = a;
        this.len[fresh] = n;
        return fresh;
      }
      if (this.len[e] !== n) continue;
      const from = this.at[e]!;
      let same = true;
      for (let k = 0; k < n; k++) {
        if (codes[from + k] !== codes[a + k]) {
          same = false;
          break;
        }
      }
      if (same) return e;
    }
  }
}
