/**
 * A chunk's strings as the one text they were cut from (src/shared/rowCodec.ts decodeChunk: each
 * is a slice of it, so keeping it costs nothing). A query is looked for in that text, one
 * `indexOf` per string it is in, instead of in each string whose characters might hold it: at a
 * million rows "mi" is in 17,777 of 4.4M strings, and 678k of them have both letters (rDNS names
 * mostly), each looked in at ~100 ns.
 */

/** Strings a block: where every 32nd string starts is kept, the others are found from their lengths. */
const BLOCK = 32;
const SHIFT = 5;

export class SegmentText {
  private constructor(
    private readonly text: string,
    /** starts[b]: where string b × BLOCK starts in the text. */
    private readonly starts: Uint32Array,
    /** How many strings the text holds (the segment's first ids). */
    readonly count: number,
  ) {}

  /** Bytes of its typed array (the text is the strings' own). */
  bytes(): number {
    return this.starts.byteLength;
  }

  /** The text of `strings`, when they are it cut in order, nothing left out (not so in a chunk whose ends went back). */
  static of(text: string, strings: readonly string[]): SegmentText | undefined {
    const n = strings.length;
    const starts = new Uint32Array((n + BLOCK - 1) >> SHIFT);
    let at = 0;
    for (let k = 0; k < n; k++) {
      if ((k & (BLOCK - 1)) === 0) starts[k >> SHIFT] = at;
      at += strings[k]!.length;
    }
    return at === text.length ? new SegmentText(text, starts, n) : undefined;
  }

  /**
   * Marks (m[id] = 1, and lists in `found` from `hits` on) each string of the text that holds `q`
   * as it is, and gives the new count. `dict` starts with the text's strings. A match across two
   * strings is not one; a string that holds `q` only once lowercased (capitals) is the caller's.
   */
  find(q: string, dict: readonly string[], m: Uint8Array, found: Uint32Array, hits: number): number {
    const { text, starts, count } = this;
    if (count === 0 || q === '') return hits;
    const blocks = starts.length;
    let b = 0;
    let k = 0;
    let end = dict[0]!.length;
    let pos = text.indexOf(q);
    while (pos >= 0) {
      if (pos >= end) {
        // Whole blocks skipped by where they start, then string by string to the one holding pos.
        if (b + 1 < blocks && starts[b + 1]! <= pos) {
          do b++;
          while (b + 1 < blocks && starts[b + 1]! <= pos);
          k = b << SHIFT;
          end = starts[b]! + dict[k]!.length;
        }
        while (end <= pos) end += dict[++k]!.length;
      }
      if (pos + q.length <= end) {
        if (m[k] === 0) {
          m[k] = 1;
          found[hits++] = k;
        }
        // The rest of this string needs no look.
        pos = end < text.length ? text.indexOf(q, end) : -1;
      } else pos = text.indexOf(q, pos + 1);
    }
    return hits;
  }
}
