/**
 * The search over every cell of every row, DOM-free. Rows arrive in chunks whose strings are
 * already distinct (src/shared/rowCodec.ts); each chunk becomes a segment that keeps those
 * strings (plus the texts derived from them: joined lists, numbers) once, and one string id per
 * row and column (and per extra field, as `name=value`). A query is matched against each
 * segment's strings (lowercased once, when first searched), then rows are picked by their ids:
 * a keystroke over a million rows costs a million × columns integer reads, not a scan of a
 * 300-character haystack per row, and no haystack is built per row while rows arrive.
 */
import { NCOL, Segment } from './searchSegment';

export { NCOL, Segment };
export type { HitPlan } from './searchSegment';

/** Rows a warm-up query runs over (SearchIndex.warm): a few dozen segments. */
const WARM_ROWS = 40_000;
/**
 * The warm-up's rounds, two words each, typed a letter at a time as a user types them (first
 * letter over every row, then each longer query over the rows the shorter one found): letters
 * and pairs most DMARC data has (results, "mail", ".com").
 */
const WARM_QUERIES = [['mai', 'com'], ['pas', 'non'], ['fai', 'out'], ['rej', 'goo'], ['exa', 'ion'], ['spf', 'dki']];

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
  /** Segments before this one have their character bits. */
  private preparedUpTo = 0;
  /** Segments before this one have their text's letter-pair filter (or have no text). */
  private pairedUpTo = 0;

  /** Rounds of warm() run for this index (not again after a reload: the engine keeps what it compiled). */
  private warmed = 0;

  clear(): void {
    this.segments = [];
    this.preparedUpTo = 0;
    this.pairedUpTo = 0;
  }

  /**
   * In idle time, a round at a time: throwaway words typed over the first rows as a user types
   * them (the first letter over every row, each longer query over the rows the shorter one found,
   * as RecordsModel.searchMask does), then forgotten. The engine then has the search's code
   * compiled and optimised before the first query typed: in Chromium, at a million rows, a page's
   * first m→mi took 145–218 ms against 80–100 for the next ones, 107–145 after one round (~10 ms
   * here); more rounds give the optimising compiler the calls it waits for. Words, not pairs of
   * letters: with pairs alone the first real keystrokes took paths the warm-up never had (a
   * single letter, a query narrowed from the strings the shorter one matched), and V8 dropped the
   * optimised search on its first keystrokes and compiled it again while the user waited (a
   * Chromium trace of bench:panel's first "mi": 130 ms of TurboFan on the page's worker threads
   * beside a 191 ms handler). False when every round has run, or there are too few rows yet.
   */
  warm(): boolean {
    if (this.warmed >= WARM_QUERIES.length) return false;
    const last = this.segments.at(-1);
    const n = last ? last.from + last.count : 0;
    if (n < WARM_ROWS) return false;
    const rows = new Uint32Array(WARM_ROWS);
    for (let i = 0; i < rows.length; i++) rows[i] = i;
    // Their letter-pair filters first (made for every segment much later, pairsNext): the
    // queries then run the filtered search too, as a keystroke will.
    if (this.warmed === 0) {
      for (const seg of this.segments) {
        if (seg.from >= WARM_ROWS) break;
        seg.preparePairs();
      }
    }
    for (const word of WARM_QUERIES[this.warmed++]!) {
      let found: Uint32Array = rows;
      for (let len = 1; len <= word.length; len++) {
        const q = word.slice(0, len);
        const mask = new Uint8Array(WARM_ROWS);
        if (len > 1) found = this.searchRows(q, found, mask);
        else if (!this.search(q, 0, WARM_ROWS, mask)) found = rows.filter((i) => mask[i] === 1);
      }
      for (const seg of this.segments) {
        if (seg.from >= WARM_ROWS) break;
        seg.forget();
      }
    }
    return true;
  }

  /** Bytes of the segments' typed arrays. */
  bytes(): number {
    let n = 0;
    for (const seg of this.segments) n += seg.bytes();
    return n;
  }

  /**
   * Character bits for the next two segments not prepared yet (idle time, also while rows still
   * arrive: segments are only ever appended). False when there were none.
   */
  prepareNext(): boolean {
    const segs = this.segments;
    // Segments prepared as they were read (ASCII chunks: store.appendChunk) are passed over, not
    // counted: a step that only moved two places on could not keep up with the rows arriving.
    let work = 0;
    while (this.preparedUpTo < segs.length && work < 2) {
      const seg = segs[this.preparedUpTo++]!;
      if (seg.ready) continue;
      seg.prepare();
      work++;
    }
    return work > 0;
  }

  /**
   * The letter-pair filters (searchText.ts) of the next segments, eight at most a step (idle
   * time once the rows are in: ~0.1 ms a segment), while `more()` says so. False when none was
   * left to make.
   */
  pairsNext(more: () => boolean = () => false): boolean {
    const segs = this.segments;
    let work = 0;
    do {
      let step = 0;
      while (this.pairedUpTo < segs.length && step < 8) if (segs[this.pairedUpTo++]!.preparePairs()) step++;
      work += step;
      if (step === 0) break;
    } while (more());
    return work > 0;
  }

  /**
   * A segment for rows [from, from + count), whose string ids start with `strings` (a chunk's,
   * with their character `bits` and the ASCII `text` they were cut from when known); `maxIds`
   * bounds how many strings it will hold once the derived ones are added.
   */
  begin(from: number, count: number, strings: readonly string[], maxIds = Infinity, bits?: Uint32Array, text?: string): SegmentWriter {
    const seg = new Segment(from, count, strings, maxIds, bits, text);
    this.segments.push(seg);
    return {
      segment: seg,
      add: (text) => {
        if (seg.dict.length >= maxIds) throw new Error('a search segment holds more strings than it was sized for');
        return seg.dict.push(text) - 1;
      },
      set: (r, column, id) => {
        seg.ids[column * seg.count + r] = id;
      },
      setExtras: (r, ids) => {
        for (let k = 0; k < ids.length; k++) seg.extraIds.push(ids[k]!);
        seg.extraStart[r + 1] = seg.extraIds.length;
      },
    };
  }

  /**
   * Sets mask[i] = 1 for the rows of `rows` (ascending) that have a cell or an extra field
   * containing `q` (lowercased, non-empty), and gives those rows: typing on, only the rows the
   * shorter query found are looked at.
   */
  searchRows(q: string, rows: Uint32Array, mask: Uint8Array): Uint32Array {
    // Grown as rows are found: a typed-on query usually finds few of the rows it looks at (a
    // million rows after a first letter: 4 MB not asked for each keystroke).
    let out = new Uint32Array(Math.min(rows.length, 4096));
    let o = 0;
    /** Room for `more` rows found. */
    const room = (more: number): void => {
      if (o + more <= out.length) return;
      const grown = new Uint32Array(Math.min(rows.length, Math.max(o + more, out.length * 2)));
      grown.set(out.subarray(0, o));
      out = grown;
    };
    let k = 0;
    const segs = this.segments;
    for (let p = 0; p < segs.length && k < rows.length; p++) {
      const seg = segs[p]!;
      const end = seg.from + seg.count;
      if (rows[k]! >= end) continue;
      const first = k;
      while (k < rows.length && rows[k]! < end) k++;
      room(k - first);
      const whole = seg.wholeSegment(q);
      if (whole === 'none') continue;
      if (whole === 'all') {
        for (let j = first; j < k; j++) {
          mask[rows[j]!] = 1;
          out[o++] = rows[j]!;
        }
        continue;
      }
      const m = seg.matches(q);
      if (seg.hits === 0) continue;
      o = seg.markRows(m, seg.hitColumns(m), rows, first, k, mask, out, o);
    }
    return o === out.length ? out : out.slice(0, o);
  }

  /**
   * Sets mask[i] = 1 for the rows in [from, to) (only those with within[i], when given) that have
   * a cell or an extra field containing `q` (lowercased, non-empty). True when every row of the
   * range matched as a whole segment (a first letter every row has): the mask need not be read.
   */
  search(q: string, from: number, to: number, mask: Uint8Array, within?: Uint8Array): boolean {
    let every = !within;
    let covered = from;
    for (const seg of this.segments) {
      const a = Math.max(from, seg.from);
      const b = Math.min(to, seg.from + seg.count);
      if (a >= b) continue;
      const whole = seg.wholeSegment(q);
      if (whole !== 'all' || a !== covered) every = false;
      covered = b;
      if (whole === 'none') continue;
      if (whole === 'all') {
        if (!within) mask.fill(1, a, b);
        else for (let i = a; i < b; i++) if (within[i]) mask[i] = 1;
        continue;
      }
      const m = seg.matches(q);
      if (seg.hits === 0) continue;
      const plan = seg.hitColumns(m);
      for (let i = a; i < b; i++) if ((!within || within[i]) && seg.rowHit(i - seg.from, m, plan)) mask[i] = 1;
    }
    return every && covered === to && from < to;
  }
}
