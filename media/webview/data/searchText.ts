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

/**
 * The letter-pair filter: per 64 strings (two blocks), which two letters (case folded) follow
 * each other somewhere in their text, a bit each of 26 × 26 (22 words). A query with a pair of
 * letters is looked for only in the blocks that have all of its pairs: at a million bench rows
 * "mi" is in 23 % of them, "sp" 22 %, "mic" 19 % ("co" or "ma": all). 4.7 MB at a million rows
 * (68 MB of text), made in idle time (SearchIndex.pairsNext).
 */
export const PAIR_SHIFT = 6;
/** Blocks of `starts` a block of the letter-pair filter. */
const PAIR_TO_BLOCK = PAIR_SHIFT - SHIFT;
const PAIR_WORDS = 22;

/** The bit of each pair of lowercase letters in `q`, none when it has no two letters side by side. */
export function letterPairs(q: string): number[] {
  const keys: number[] = [];
  let prev = -1;
  for (let i = 0; i < q.length; i++) {
    const c = q.charCodeAt(i) - 97;
    const letter = c >= 0 && c < 26;
    if (letter && prev >= 0) keys.push(prev * 26 + c);
    prev = letter ? c : -1;
  }
  return keys;
}

/** Whether pair block `pb` of a letter-pair filter has every pair of `keys`. */
export function blockHasPairs(pairs: Uint32Array, pb: number, keys: readonly number[]): boolean {
  const base = pb * PAIR_WORDS;
  for (let j = 0; j < keys.length; j++) if ((pairs[base + (keys[j]! >> 5)]! & (1 << (keys[j]! & 31))) === 0) return false;
  return true;
}

/** Strings a block of a letter-pair filter (64). */
export const PAIR_BLOCK = 1 << PAIR_SHIFT;

/**
 * The letter-pair filter of strings [from, to) of `strings`, by blocks of PAIR_BLOCK strings, as
 * SegmentText.buildPairs makes a text's (letters folded to lowercase, ASCII A–Z and a–z): for the
 * texts a segment derives from its rows (joined DKIM signatures, extra fields, labels), which are
 * not cut from its chunk's text. A pair never spans two strings here. A string with a character
 * past ASCII is read lowercased (a translated label: "İ" lowercases to "i" and a combining dot).
 */
export function stringPairs(strings: readonly string[], from: number, to: number): Uint32Array {
  const out = new Uint32Array(((to - from + PAIR_BLOCK - 1) >> PAIR_SHIFT) * PAIR_WORDS);
  for (let id = from; id < to; id++) {
    let s = strings[id]!;
    for (let i = 0; i < s.length; i++) {
      if (s.charCodeAt(i) > 127) {
        s = s.toLowerCase();
        break;
      }
    }
    addPairs(s, 0, s.length, out, ((id - from) >> PAIR_SHIFT) * PAIR_WORDS);
  }
  return out;
}

/**
 * Sets, in the filter words from `base` on, the bit of each two letters side by side in
 * s[from, to), letters folded to lowercase (A–Z and a–z only: a capital's code | 32 is its small
 * letter's; no other ASCII character lands on a–z).
 */
function addPairs(s: string, from: number, to: number, out: Uint32Array, base: number): void {
  let prev = -1;
  for (let i = from; i < to; i++) {
    const c = (s.charCodeAt(i) | 32) - 97;
    if (c >= 0 && c < 26) {
      if (prev >= 0) {
        const key = prev * 26 + c;
        out[base + (key >> 5)] |= 1 << (key & 31);
      }
      prev = c;
    } else prev = -1;
  }
}

export class SegmentText {
  private constructor(
    private readonly text: string,
    /** starts[b]: where string b × BLOCK starts in the text. */
    private readonly starts: Uint32Array,
    /** How many strings the text holds (the segment's first ids). */
    readonly count: number,
  ) {}

  /** The letter-pair filter (buildPairs), once made. */
  private pairs: Uint32Array | undefined;

  /** Bytes of its typed arrays (the text is the strings' own). */
  bytes(): number {
    return this.starts.byteLength + (this.pairs?.byteLength ?? 0);
  }

  /** Whether the letter-pair filter is made. */
  get paired(): boolean {
    return this.pairs !== undefined;
  }

  /**
   * Makes the letter-pair filter: a pass over the text, letters folded to lowercase (A–Z and a–z
   * only: the text is ASCII). A pair across two strings is set too (harmless: a block is then
   * only looked in for nothing).
   */
  buildPairs(): void {
    if (this.pairs) return;
    const { text, starts, count } = this;
    const nb = (count + (1 << PAIR_SHIFT) - 1) >> PAIR_SHIFT;
    const out = new Uint32Array(nb * PAIR_WORDS);
    for (let p = 0; p < nb; p++) {
      const end = p + 1 < nb ? starts[(p + 1) << PAIR_TO_BLOCK]! : text.length;
      addPairs(text, starts[p << PAIR_TO_BLOCK]!, end, out, p * PAIR_WORDS);
    }
    this.pairs = out;
  }

  /**
   * Per block of PAIR_BLOCK strings, 1 when its letter-pair filter has every pair of `keys` (its
   * strings may hold a query with those pairs in any case), 0 when none of them can; undefined
   * without a filter yet or pairs to look for. `out` is reused when large enough.
   */
  candidates(keys: readonly number[], out?: Uint8Array): Uint8Array | undefined {
    const pairs = this.pairs;
    if (!pairs || keys.length === 0) return undefined;
    const n = (this.count + PAIR_BLOCK - 1) >> PAIR_SHIFT;
    const c = out && out.length >= n ? out : new Uint8Array(n);
    for (let pb = 0; pb < n; pb++) c[pb] = blockHasPairs(pairs, pb, keys) ? 1 : 0;
    return c;
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
    const { starts, count, pairs } = this;
    if (count === 0 || q === '') return hits;
    const blocks = starts.length;
    const keys = pairs ? letterPairs(q) : [];
    if (keys.length === 0) return this.scan(q, dict, m, found, hits, 0, blocks);
    // With the letter-pair filter and a query with two letters side by side: only the blocks of 64
    // strings that have each of its pairs are looked in, a run of them at a time.
    const has = (pb: number): boolean => blockHasPairs(pairs!, pb, keys);
    const pairBlocks = (count + (1 << PAIR_SHIFT) - 1) >> PAIR_SHIFT;
    for (let pb = 0; pb < pairBlocks; pb++) {
      if (!has(pb)) continue;
      let pe = pb + 1;
      while (pe < pairBlocks && has(pe)) pe++;
      hits = this.scan(q, dict, m, found, hits, pb << PAIR_TO_BLOCK, Math.min(blocks, pe << PAIR_TO_BLOCK));
      pb = pe;
    }
    return hits;
  }

  /**
   * find over the strings of blocks [first, stop): their text alone is looked in (a slice: a
   * search that ran on past the last would read blocks ruled out).
   */
  private scan(q: string, dict: readonly string[], m: Uint8Array, found: Uint32Array, hits: number, first: number, stop: number): number {
    const { text, starts } = this;
    const from = starts[first]!;
    const to = stop < starts.length ? starts[stop]! : text.length;
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    // b, k, end: the block, the string and where it ends, moved on as the place found moves on.
    let b = first;
    let k = first << SHIFT;
    let end = from + dict[k]!.length;
    let at = part.indexOf(q);
    while (at >= 0) {
      const pos = from + at;
      if (pos >= end) {
        // Whole blocks skipped by where they start, then string by string to the one holding pos.
        if (b + 1 < stop && starts[b + 1]! <= pos) {
          do b++;
          while (b + 1 < stop && starts[b + 1]! <= pos);
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
        at = end < to ? part.indexOf(q, end - from) : -1;
      } else at = part.indexOf(q, at + 1);
    }
    return hits;
  }
}

