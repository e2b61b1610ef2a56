/**
 * One segment of the search index (searchIndex.ts): a chunk's rows, their strings kept once, and
 * one string id per row and column; a query is matched against the strings, then rows are picked
 * by their ids.
 */
import { COLUMNS } from '../../../src/shared/columns';
import { distinctIdsByColumn } from './columnIds';
import { charBits, EXACT, FLAGS, LOWERED, lowerIncludes, UPPER } from './searchBits';
import { blockHasPairs, letterPairs, PAIR_BLOCK, PAIR_SHIFT, SegmentText, stringPairs } from './searchText';

export const NCOL = COLUMNS.length;

/** What Segment.hitColumns found for a query: where its matches can be. */
export interface HitPlan {
  cols: number[];
  extras: boolean;
  every: boolean;
}

/** A column with at most this many distinct strings in a segment is looked at whole by `fewHave`. */
const FEW_STRINGS = 64;

export class Segment {
  readonly dict: string[];
  /**
   * Per string, the bits of the characters its lowercase has (charBits): a query's characters
   * must all be there before it is looked for in the text. A letter or a digit rules out most of
   * a chunk's strings (dates, addresses, counts) without reading them. Built on the first search,
   * or ahead of it in idle time (SearchIndex.prepareNext).
   */
  private bits: Uint32Array = new Uint32Array(0);
  private prepared = 0;
  /** Lowercase copies of the strings that differ from theirs (few: most are lowercase already). */
  private readonly lowered = new Map<number, string>();
  /**
   * The rows' string ids, column after column (column c's of row r at c * count + r): a search
   * reads only the columns its query can match. Two bytes an id where the segment's strings are
   * fewer than 65,536 (a chunk of a few thousand rows always is).
   */
  readonly ids: Uint16Array | Uint32Array;
  /** Row (from + r)'s extra fields are extraIds[extraStart[r] … extraStart[r + 1]). */
  readonly extraStart: Uint32Array;
  extraIds: number[] = [];
  /**
   * Per column, the distinct ids its rows hold (and those of the extra fields, last): a query
   * none of a column's strings match needs no look at that column's ids row by row (an address,
   * a date or a count rules out most columns of most segments). Built with the character bits.
   */
  private colIds: (Uint16Array | Uint32Array)[] | undefined;
  /**
   * Per column (then the extra fields), the character bits every one of its strings has (AND)
   * and any has (OR), without flags. For a one-character query whose bit is exact they answer for
   * the whole segment: a letter every cell of a column has matches every row (the first letter
   * typed often does), one no string has matches none, and no string needs a look.
   */
  private colAll: Uint32Array | undefined;
  private colAny: Uint32Array | undefined;
  private q: string | undefined;
  private m = new Uint8Array(0);
  /** How many strings the last query matched: none, and no row of the segment needs a look. */
  hits = 0;

  constructor(
    readonly from: number,
    readonly count: number,
    strings: readonly string[],
    maxIds: number,
    /** The character bits of `strings`, when the chunk's bytes gave them (searchBits.ts asciiBits). */
    bits?: Uint32Array,
    /** The one text `strings` were cut from, when ASCII (its offsets are the strings'). */
    text?: string,
  ) {
    this.dict = strings.slice();
    if (bits && bits.length === strings.length) {
      this.bits = bits;
      this.prepared = bits.length;
      if (text !== undefined) this.text = SegmentText.of(text, strings);
    }
    this.ids = maxIds <= 65536 ? new Uint16Array(count * NCOL) : new Uint32Array(count * NCOL);
    this.extraStart = new Uint32Array(count + 1);
  }

  /** Whether the segment is prepared: every string's bits and each column's (prepare). */
  get ready(): boolean {
    return this.colAll !== undefined && this.prepared === this.dict.length;
  }

  /** Bytes of the typed arrays. */
  bytes(): number {
    let n = this.ids.byteLength + this.extraStart.byteLength + this.bits.byteLength + this.m.byteLength;
    for (const c of this.colIds ?? []) n += c.byteLength;
    return n + (this.text?.bytes() ?? 0) + (this.cased?.byteLength ?? 0) + (this.derived?.pairs.byteLength ?? 0);
  }

  /** Per column (then the extra fields), its distinct ids in this segment (columnIds.ts), once the rows are all written. */
  private columnIds(): (Uint16Array | Uint32Array)[] {
    return (this.colIds ??= distinctIdsByColumn(this.ids, NCOL, this.count, this.extraIds, this.dict.length));
  }

  /**
   * Where the last query's matches `m` can be in this segment's rows: the columns with a string
   * it matched (`extras`: an extra field's too), and whether one of those matched with every
   * string (each row of the segment then matches).
   */
  hitColumns(m: Uint8Array): HitPlan {
    const all = this.columnIds();
    // A column none of whose strings has every character of the query (the bits any of them has)
    // holds no match: its ids need no look (addresses, dates and counts, most of a segment's).
    const any = this.colAny && this.prepared === this.dict.length && this.q !== undefined ? this.colAny : undefined;
    const want = any ? charBits(this.q!) & ~FLAGS : 0;
    // Typing on: a column none of whose strings matched the shorter query holds no match now.
    const before = this.plan && this.q !== undefined && this.q.includes(this.plan.q) ? this.plan.plan : undefined;
    const look = before ? (before.extras ? [...before.cols, NCOL] : before.cols) : undefined;
    const cols: number[] = [];
    let every = false;
    let extras = false;
    for (let j = 0, end = look ? look.length : NCOL + 1; j < end; j++) {
      const c = look ? look[j]! : j;
      if (any && (any[c]! & want) !== want) continue;
      const ids = all[c]!;
      let some = 0;
      for (let k = 0; k < ids.length; k++) some += m[ids[k]!]!;
      if (some === 0) continue;
      if (c === NCOL) extras = true;
      else cols.push(c);
      // A cell every row has (not the extra fields, which a row may lack) that always matches.
      if (c < NCOL && some === ids.length) every = true;
    }
    const plan = { cols, extras, every };
    if (this.q !== undefined) this.plan = { q: this.q, plan };
    return plan;
  }

  /** The last plan made (hitColumns) and its query. */
  private plan: { q: string; plan: HitPlan } | undefined;

  /** Whether row `r` (of the segment) has a cell or extra field the last query matched (`m`, planned by hitColumns). */
  rowHit(r: number, m: Uint8Array, plan: HitPlan): boolean {
    if (plan.every) return true;
    const { ids, extraStart: es, extraIds: ex, count } = this;
    const cols = plan.cols;
    for (let j = 0; j < cols.length; j++) if (m[ids[cols[j]! * count + r]!]) return true;
    if (plan.extras) for (let k = es[r]!, end = es[r + 1]!; k < end; k++) if (m[ex[k]!]) return true;
    return false;
  }

  /**
   * rowHit for rows[first … end) (ascending, all in this segment), in one loop with the plan's
   * first three columns held in locals: sets mask[i] = 1 and lists i in `out` from `o` on for each
   * row with a match, and gives the new `o`. The ids are column by column, so it reads only the
   * plan's columns (a few of the ~20).
   */
  markRows(m: Uint8Array, plan: HitPlan, rows: Uint32Array, first: number, end: number, mask: Uint8Array, out: Uint32Array, o: number): number {
    const { ids, extraStart: es, extraIds: ex, from, count } = this;
    const { cols, every, extras } = plan;
    const nc = cols.length;
    const b0 = (nc > 0 ? cols[0]! : 0) * count;
    const b1 = nc > 1 ? cols[1]! * count : b0;
    const b2 = nc > 2 ? cols[2]! * count : b1;
    for (let j = first; j < end; j++) {
      const i = rows[j]!;
      const r = i - from;
      let hit = every || (nc > 0 && (m[ids[b0 + r]!]! | m[ids[b1 + r]!]! | m[ids[b2 + r]!]!) !== 0);
      for (let q = 3; !hit && q < nc; q++) hit = m[ids[cols[q]! * count + r]!] === 1;
      if (!hit && extras) for (let k = es[r]!, e = es[r + 1]!; !hit && k < e; k++) hit = m[ex[k]!] === 1;
      if (hit) {
        mask[i] = 1;
        out[o++] = i;
      }
    }
    return o;
  }

  /** Character bits (and lowercase copies of non-ASCII texts that need one) for every string. */
  prepare(): void {
    const n = this.dict.length;
    if (this.prepared === n) return;
    if (this.bits.length < n) {
      const b = new Uint32Array(n);
      b.set(this.bits.subarray(0, this.prepared));
      this.bits = b;
    }
    for (let id = this.prepared; id < n; id++) {
      const text = this.dict[id]!;
      let b = charBits(text);
      if (b >= LOWERED) {
        // Non-ASCII: the bits are those of the lowercase text, kept when it differs.
        const l = text.toLowerCase();
        b = charBits(l) & ~FLAGS;
        if (l !== text) {
          this.lowered.set(id, l);
          b = (b | LOWERED) >>> 0;
        }
      }
      this.bits[id] = b;
    }
    this.prepared = n;
    if (this.text) this.casedIds(this.text.count);
    const cols = this.columnIds();
    const all = (this.colAll = new Uint32Array(NCOL + 1));
    const any = (this.colAny = new Uint32Array(NCOL + 1));
    for (let c = 0; c <= NCOL; c++) {
      const ids = cols[c]!;
      let a = ids.length > 0 ? ~FLAGS : 0;
      let o = 0;
      for (let k = 0; k < ids.length; k++) {
        const b = this.bits[ids[k]!]!;
        a &= b;
        o |= b;
      }
      all[c] = a >>> 0;
      any[c] = (o & ~FLAGS) >>> 0;
    }
  }

  /**
   * For a one-character query: 'all' when every row matches (a column every string of which has
   * the character; not the extra fields, which a row may lack), 'none' when no string has it;
   * undefined when the strings must be looked at. On a prepared segment from the columns' bits
   * (for a character whose bit is exact), else from the columns of few strings (`fewHave`).
   */
  wholeSegment(q: string): 'all' | 'none' | undefined {
    if (q.length !== 1) return undefined;
    if (!this.colAll || !this.colAny || this.prepared !== this.dict.length) return this.fewHave(q);
    const want = charBits(q) & ~FLAGS;
    if ((want & EXACT) !== want) return undefined;
    let some = false;
    for (let c = 0; c <= NCOL; c++) {
      if (c < NCOL && (this.colAll[c]! & want) === want) return 'all';
      if ((this.colAny[c]! & want) === want) some = true;
    }
    return some ? undefined : 'none';
  }

  /**
   * A segment idle time has not prepared yet (in VS Code, right after a million rows, the idle
   * time goes to the sorts' ranks as well): 'all' when a column of a few distinct strings has `q`
   * in every one of them (read as they are, no bits needed), else undefined. The columns'
   * distinct ids are needed by the search anyway (hitColumns).
   */
  private fewHave(q: string): 'all' | undefined {
    const cols = this.columnIds();
    for (let c = 0; c < NCOL; c++) {
      const ids = cols[c]!;
      if (ids.length === 0 || ids.length > FEW_STRINGS) continue;
      let every = true;
      for (let k = 0; k < ids.length && every; k++) every = lowerIncludes(this.dict[ids[k]!]!, q);
      if (every) return 'all';
    }
    return undefined;
  }

  /** Makes its text's letter-pair filter (searchText.ts; idle time). False when there was nothing to make. */
  preparePairs(): boolean {
    if (!this.text || this.text.paired) return false;
    this.text.buildPairs();
    const from = this.text.count;
    this.derived = { from, to: this.dict.length, pairs: stringPairs(this.dict, from, this.dict.length) };
    return true;
  }

  /** The letter-pair filter of the strings after the text's (the derived texts), ids [from, to); made with the text's. */
  private derived: { from: number; to: number; pairs: Uint32Array } | undefined;

  /** Forgets the last query (a warm-up's, SearchIndex.warm): the next is not taken as typed on from it. */
  forget(): void {
    this.q = undefined;
    this.plan = undefined;
    this.found = undefined;
    this.hits = 0;
  }

  /** Per string, 1 when its lowercase contains `q` (lowercase, not empty). */
  matches(q: string): Uint8Array {
    const n = this.dict.length;
    if (this.q === q && this.m.length === n) return this.m;
    // A segment idle time has not prepared yet is searched without its character bits: the
    // engine's own substring search over each string is ~5× faster than a pass making the bits
    // (a first keystroke right after a million rows arrived: ~1 s of bits in the page). A
    // chunk's own strings usually have theirs from its bytes: only the derived texts are left.
    const unprepared = this.prepared === 0;
    if (!unprepared) this.prepare();
    const bits = this.bits;
    const dict = this.dict;
    const lowered = this.lowered;
    const want = charBits(q) & ~FLAGS;
    // One character whose bit is exact: the bits answer alone.
    const exact = !unprepared && q.length === 1 && (want & EXACT) === want;
    // Typing on: a longer query can only match strings the shorter one matched. Only those are
    // looked at when they were listed (at a million rows ~200 of a segment's 8,000 strings). After
    // one letter (its matches are not listed: most strings) the query is looked for in the chunk's
    // text instead, once its letter-pair filter is made; without the filter every string is, the
    // others skipped (the whole text read: "mi" at a million rows 92 ms in Node, string by string
    // 57, through the filter 45). The marks are updated in place (no new array per segment and
    // keystroke: at a million rows those were 6 MB a keystroke for the garbage collector).
    const narrowing = this.q !== undefined && this.m.length === n && q.includes(this.q) && (this.found !== undefined || unprepared || !this.text?.paired);
    const listed = narrowing ? this.found : undefined;
    const m = narrowing ? this.m : this.m.length === n ? this.m.fill(0) : new Uint8Array(n);
    if (found.length < n) found = new Uint32Array(Math.max(n, found.length * 2));
    const look = (id: number): boolean => {
      if (unprepared) return lowerIncludes(dict[id]!, q);
      const b = bits[id]!;
      return (b & want) === want && (exact || (b >= LOWERED ? lowered.get(id)! : b & UPPER ? dict[id]!.toLowerCase() : dict[id]!).includes(q));
    };
    // A query of two characters or more, not narrowing: looked for in the chunk's text at once
    // (searchText.ts), then in the strings whose lowercase differs (capitals: dates end in "Z")
    // and the texts derived from them, which the text does not hold.
    const text = !unprepared && !narrowing && q.length > 1 ? this.text : undefined;
    let hits = text ? text.find(q, dict, m, found, 0) : 0;
    // The query's letter pairs: a block of strings whose filter lacks one holds no match.
    const keys = text ? letterPairs(q) : undefined;
    if (text) {
      const cased = this.casedIds(text.count);
      const blocks = text.candidates(keys!, candidateScratch);
      if (blocks) candidateScratch = blocks;
      for (let j = 0; j < cased.length; j++) {
        const id = cased[j]!;
        if (blocks && blocks[id >> PAIR_SHIFT] === 0) continue;
        if (m[id] === 0 && look(id)) {
          m[id] = 1;
          found[hits++] = id;
        }
      }
    }
    const first = text ? text.count : 0;
    const count = listed ? listed.length : n;
    if (!narrowing && !unprepared) {
      // Every string from `first` on (after a chunk's own, the texts derived from its rows: ~1 a
      // row), by its bits, in a loop of its own; the derived ones by blocks of their letter-pair
      // filter first, when made (preparePairs): at a million rows "mi" had 72k joined DKIM
      // signatures with both letters to look in, 362 holding it (Node: 18 ms of a 57 ms search).
      const consider = (id: number): void => {
        const b = bits[id]!;
        if ((b & want) !== want) return;
        if (exact || (b >= LOWERED ? lowered.get(id)! : b & UPPER ? dict[id]!.toLowerCase() : dict[id]!).includes(q)) {
          m[id] = 1;
          found[hits++] = id;
        }
      };
      const pairs = this.derived && keys && keys.length > 0 && this.derived.from === first ? this.derived : undefined;
      const rest = pairs ? Math.min(pairs.to, n) : first;
      if (pairs) {
        for (let pb = 0, a = first; a < rest; pb++, a += PAIR_BLOCK) {
          if (!blockHasPairs(pairs.pairs, pb, keys!)) continue;
          for (let id = a, b = Math.min(a + PAIR_BLOCK, rest); id < b; id++) consider(id);
        }
      }
      for (let id = rest; id < n; id++) consider(id);
    } else for (let k = first; k < count; k++) {
      const id = listed ? listed[k]! : k;
      if (narrowing && !m[id]) continue;
      if (look(id)) {
        m[id] = 1;
        found[hits++] = id;
      } else if (narrowing) m[id] = 0;
    }
    this.q = q;
    this.m = m;
    this.hits = hits;
    this.found = q.length === 1 ? undefined : found.slice(0, hits);
    return m;
  }

  /** The ids the last query matched (not kept for a one-letter query: most strings). */
  private found: Uint32Array | undefined;

  /** The chunk's strings as one text (an ASCII chunk's), for queries of two characters or more. */
  private readonly text: SegmentText | undefined;
  private cased: Uint16Array | Uint32Array | undefined;

  /** The ids below `count` (the text's strings) with capitals or other characters whose lowercase differs. */
  private casedIds(count: number): Uint16Array | Uint32Array {
    if (this.cased) return this.cased;
    const bits = this.bits;
    let c = 0;
    for (let id = 0; id < count; id++) if (bits[id]! & FLAGS) c++;
    const out = count <= 65536 ? new Uint16Array(c) : new Uint32Array(c);
    for (let id = 0, j = 0; id < count; id++) if (bits[id]! & FLAGS) out[j++] = id;
    return (this.cased = out);
  }
}

/** Scratch space for SegmentText.candidates: a block of 64 strings a byte, room for 65,536 strings (as `found`). */
let candidateScratch: Uint8Array = new Uint8Array(65536 >> PAIR_SHIFT);

/**
 * Scratch space for the ids a query matches in a segment: room for a segment of two-byte ids from
 * the start, so a keystroke's optimised search never meets the growing the warm-up did not (V8
 * then drops it and compiles it again while the user waits).
 */
let found = new Uint32Array(65536);
