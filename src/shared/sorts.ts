/**
 * Sorts that never hold a thread for long, DOM-free and without `vscode`: the webview's sort ranks
 * (media/webview/data/ranks.ts) and the extension host's rows by date (src/records/rangeEntries.ts)
 * both use them. They are generators yielding between slices of work (idle time, or the host's
 * event loop, takes one at a time; drain() runs one to its end):
 * - numbers without comparing them: a least-significant-digit radix sort over the 64 bits of
 *   each double, 16 bits a pass. A million dates or email counts are put in order in four linear
 *   passes (fewer: a pass where every key has the same digit is skipped), where a comparison sort
 *   and a binary search per row took 130–350 ms;
 * - anything by a comparison: a stable bottom-up merge sort that yields every few thousand
 *   comparisons, and does not merge two runs already in order (one comparison), so sorting an
 *   almost sorted array costs little more than one comparison per element.
 */
/** Runs steps to the end and gives their result. */
export function drain<R>(steps: Generator<void, R, void>): R {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Comparisons between two yields of mergeSortSteps: a few milliseconds of string comparisons. */
const STEP_COMPARISONS = 8_192;

/** Whether this platform stores a double's low 32 bits first (every platform VS Code runs on does). */
const LOW = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;
const HIGH = 1 - LOW;

/**
 * The positions 0…n-1 of `keys` in ascending order of their values, ties in position order.
 * `keys` must hold no NaN; -0 sorts as 0.
 */
export function radixOrder(keys: Float64Array): Uint32Array {
  return drain(radixOrderSteps(keys));
}

/** Keys a loop goes through between two yields of radixOrderSteps (~1–3 ms). */
const SLICE = 1 << 17;

/**
 * radixOrder, yielding every SLICE keys of each of its loops. Whole numbers less than 2^32 apart
 * (email counts), or whole seconds in milliseconds less than 2^32 s apart (dates), are sorted as
 * 32-bit offsets from the least: two passes, not four.
 */
export function* radixOrderSteps(keys: Float64Array): Generator<void, Uint32Array, void> {
  const n = keys.length;
  let min = Infinity;
  let max = -Infinity;
  let whole = true;
  // Dates in milliseconds that are whole seconds: a year of them fits 32 bits in seconds.
  let seconds = true;
  for (let a = 0; a < n && whole; a += SLICE) {
    for (let k = a, end = Math.min(n, a + SLICE); k < end; k++) {
      const v = keys[k]!;
      if (!Number.isInteger(v)) {
        whole = false;
        break;
      }
      if (v < min) min = v;
      if (v > max) max = v;
      if (v % 1000 !== 0) seconds = false;
    }
    yield;
  }
  const unit = seconds && max - min >= 2 ** 32 ? 1000 : 1;
  if (whole && !((max - min) / unit >= 2 ** 32)) {
    const w = new Uint32Array(n);
    for (let a = 0; a < n; a += SLICE) {
      for (let k = a, end = Math.min(n, a + SLICE); k < end; k++) w[k] = (keys[k]! - min) / unit;
      yield;
    }
    return yield* radixPasses(w, 1, [0]);
  }
  const copy = new Float64Array(n);
  copy.set(keys);
  const w = new Uint32Array(copy.buffer);
  // Each double as an unsigned 64-bit integer in the same order: negatives have every bit
  // flipped, the others only the sign bit.
  for (let a = 0; a < n; a += SLICE) {
    for (let k = a, end = Math.min(n, a + SLICE); k < end; k++) {
      if (copy[k] === 0) copy[k] = 0;
      const h = w[2 * k + HIGH]!;
      if (h & 0x80000000) {
        w[2 * k + HIGH] = ~h;
        w[2 * k + LOW] = ~w[2 * k + LOW]!;
      } else w[2 * k + HIGH] = h | 0x80000000;
    }
    yield;
  }
  return yield* radixPasses(w, 2, [LOW, HIGH]);
}

/** LSD radix passes, 16 bits each, over keys of `stride` words (`words`: least significant first). */
function* radixPasses(w: Uint32Array, stride: number, words: readonly number[]): Generator<void, Uint32Array, void> {
  const n = w.length / stride;
  let order = new Uint32Array(n);
  for (let k = 0; k < n; k++) order[k] = k;
  let next = new Uint32Array(n);
  const count = new Uint32Array(65536);
  for (let pass = 0; pass < 2 * words.length; pass++) {
    const word = words[pass >> 1]!;
    const shift = (pass & 1) * 16;
    count.fill(0);
    for (let a = 0; a < n; a += SLICE) {
      for (let k = a, end = Math.min(n, a + SLICE); k < end; k++) count[(w[stride * k + word]! >>> shift) & 0xffff]!++;
      yield;
    }
    // Every key with the same digit: the pass would change nothing.
    if (n === 0 || count[(w[word]! >>> shift) & 0xffff] === n) continue;
    let sum = 0;
    for (let d = 0; d < 65536; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    for (let a = 0; a < n; a += SLICE) {
      for (let k = a, end = Math.min(n, a + SLICE); k < end; k++) {
        const i = order[k]!;
        next[count[(w[stride * i + word]! >>> shift) & 0xffff]!++] = i;
      }
      yield;
    }
    const t = order;
    order = next;
    next = t;
  }
  return order;
}

/**
 * Sorts `ids` in place by `less` (stable: ties keep their order), yielding every
 * STEP_COMPARISONS comparisons or so. One question per comparison (is b before a?): a string
 * comparison of two long texts is most of the cost.
 */
export function* mergeSortSteps(ids: Uint32Array, less: (a: number, b: number) => boolean): Generator<void, void, void> {
  const n = ids.length;
  let from: Uint32Array = ids;
  let to: Uint32Array = new Uint32Array(n);
  let budget = STEP_COMPARISONS;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      // Two runs already in order (or no second run): copied as they are.
      if (mid === hi || (budget--, !less(from[mid]!, from[mid - 1]!))) to.set(from.subarray(lo, hi), lo);
      else {
        let i = lo;
        let j = mid;
        let k = lo;
        while (i < mid && j < hi) {
          if (less(from[j]!, from[i]!)) to[k++] = from[j++]!;
          else to[k++] = from[i++]!;
          if (--budget <= 0) {
            budget = STEP_COMPARISONS;
            yield;
          }
        }
        while (i < mid) to[k++] = from[i++]!;
        while (j < hi) to[k++] = from[j++]!;
      }
      if (budget <= 0) {
        budget = STEP_COMPARISONS;
        yield;
      }
    }
    const t = from;
    from = to;
    to = t;
  }
  if (from !== ids) ids.set(from);
}
