/**
 * The search over every cell of every row, DOM-free. Rows arrive in chunks whose strings are
 * already distinct (src/shared/rowCodec.ts); each chunk becomes a segment that keeps those
 * strings (plus the texts derived from them: joined lists, numbers) once, and one string id per
 * row and column (and per extra field, as `name=value`). A query is matched against each
 * segment's strings (lowercased once, when first searched), then rows are picked by their ids:
 * a keystroke over a million rows costs a million × columns integer reads, not a scan of a
 * 300-character haystack per row, and no haystack is built per row while rows arrive.
 */
import { COLUMNS } from '../../../src/shared/columns';

export const NCOL = COLUMNS.length;

export class Segment {
  readonly dict: string[];
  private lower: string[] = [];
  /** Two bytes an id where the segment's strings are fewer than 65,536 (a chunk of a few thousand rows always is). */
  readonly ids: Uint16Array | Uint32Array;
  /** Row (from + r)'s extra fields are extraIds[extraStart[r] … extraStart[r + 1]). */
  readonly extraStart: Uint32Array;
  extraIds: number[] = [];
  private q: string | undefined;
  private m = new Uint8Array(0);

  constructor(
    readonly from: number,
    readonly count: number,
    strings: readonly string[],
    maxIds: number,
  ) {
    this.dict = strings.slice();
    this.ids = maxIds <= 65536 ? new Uint16Array(count * NCOL) : new Uint32Array(count * NCOL);
    this.extraStart = new Uint32Array(count + 1);
  }

  /** Per string, 1 when its lowercase contains `q`. */
  matches(q: string): Uint8Array {
    const n = this.dict.length;
    if (this.q === q && this.m.length === n) return this.m;
    const lower = this.lower;
    // A lowercase copy only where it differs: most strings (addresses, domains) are lowercase already.
    for (let id = lower.length; id < n; id++) {
      const text = this.dict[id]!;
      const l = text.toLowerCase();
      lower.push(l === text ? text : l);
    }
    const m = new Uint8Array(n);
    const prev = this.q !== undefined && this.m.length === n && q.includes(this.q) ? this.m : undefined;
    // Typing on: a longer query can only match strings the shorter one matched.
    if (prev) for (let id = 0; id < n; id++) m[id] = prev[id] && lower[id]!.includes(q) ? 1 : 0;
    else for (let id = 0; id < n; id++) if (lower[id]!.includes(q)) m[id] = 1;
    this.q = q;
    this.m = m;
    return m;
  }
}

/** Writes one chunk's rows into its segment. */
export interface SegmentWriter {
  readonly segment: Segment;
  /** Adds a derived text (the caller adds each once) and gives its id. */
  add(text: string): number;
  /** The text of row `r` (of the chunk) in `column` is string `id`. */
  set(r: number, column: number, id: number): void;
  /** Row `r`'s extra fields, as ids of `name=value` texts; rows in order. */
  setExtras(r: number, ids: readonly number[]): void;
}

export class SearchIndex {
  private segments: Segment[] = [];

  clear(): void {
    this.segments = [];
  }

  /** Bytes of the segments' typed arrays. */
  bytes(): number {
    let n = 0;
    for (const seg of this.segments) n += seg.ids.byteLength + seg.extraStart.byteLength;
    return n;
  }

  /**
   * A segment for rows [from, from + count), whose string ids start with `strings` (a chunk's);
   * `maxIds` bounds how many strings it will hold once the derived ones are added.
   */
  begin(from: number, count: number, strings: readonly string[], maxIds = Infinity): SegmentWriter {
    const seg = new Segment(from, count, strings, maxIds);
    this.segments.push(seg);
    return {
      segment: seg,
      add: (text) => {
        if (seg.dict.length >= maxIds) throw new Error('a search segment holds more strings than it was sized for');
        return seg.dict.push(text) - 1;
      },
      set: (r, column, id) => {
        seg.ids[r * NCOL + column] = id;
      },
      setExtras: (r, ids) => {
        for (let k = 0; k < ids.length; k++) seg.extraIds.push(ids[k]!);
        seg.extraStart[r + 1] = seg.extraIds.length;
      },
    };
  }

  /**
   * Sets mask[i] = 1 for the rows in [from, to) (only those with within[i], when given) that have
   * a cell or an extra field containing `q` (lowercased, non-empty).
   */
  search(q: string, from: number, to: number, mask: Uint8Array, within?: Uint8Array): void {
    for (const seg of this.segments) {
      const a = Math.max(from, seg.from);
      const b = Math.min(to, seg.from + seg.count);
      if (a >= b) continue;
      const m = seg.matches(q);
      const { ids, extraStart: es, extraIds: ex } = seg;
      for (let i = a; i < b; i++) {
        if (within && !within[i]) continue;
        const r = i - seg.from;
        let hit = 0;
        const base = r * NCOL;
        for (let c = 0; c < NCOL && !hit; c++) hit = m[ids[base + c]!]!;
        for (let k = es[r]!, end = es[r + 1]!; k < end && !hit; k++) hit = m[ex[k]!]!;
        if (hit) mask[i] = 1;
      }
    }
  }
}
