/**
 * The rows of one records panel on their way to its webview: they are added as they arrive from
 * the network (or all at once from a cache) and posted in chunks, the first as soon as it is in,
 * then once CHUNK rows are waiting or BATCH_MS has passed, with at most MAX_IN_FLIGHT of them not
 * yet taken by VS Code, so a slow webview is never flooded. Rows are posted from the start, before
 * the webview has said ready: VS Code holds them until the page has loaded, so they travel while
 * it starts. Each chunk names its load; the webview asks for rows again (`resendFrom`) when it
 * missed some (media/webview/data/rowStream.ts). When too many rows are on their way, `room()`
 * holds the download until the webview has caught up (PACE_ROWS). A row's index is its position
 * here, which is what the webview sends back (getRow, export). No `vscode` import: the post
 * function is given.
 */
import { deflateRaw } from 'node:zlib';
import type { DmarcRecord } from '../api/types';
import type { HostMessage } from '../shared/protocol';
import { encodeRowsUntil } from '../records/tuple';
import { perfMark, slowStep, stepStart } from '../perf';

/** Rows in the first message: small, so the first rows paint at once. */
const FIRST_CHUNK = 1_000;
/**
 * Rows per message after the first (~0.15 MB, ~5 ms to encode); while rows stream in, a message
 * goes out once this many are waiting, or after BATCH_MS with fewer. Each encode and its write
 * (VS Code deflates it in this process) is one task of the host's event loop: at 2,500 a chunk its
 * longest block was 117–124 ms here, at 1,250 82 (100k rows, bench:panel medians). Messages of
 * 5,000 rows when a backlog waits (fewer messages for the window and the webview to relay and
 * take in) measured no better: every row 2.9 s after the last byte against 2.1 s, the host
 * blocked up to 534 ms against 217 (3 runs each, with the webview in its own renderer).
 */
const CHUNK = 1_250;
/**
 * Wall time one chunk's encode aims to stay under. While V8 marks a large heap for a full
 * collection, the host's main thread takes part in the marking as it allocates, and its steps run
 * many times slower: at a million rows (a heap of ~1 GB) an encode of 1,250 rows took 90–260 ms
 * there against ~5 (bench:panel's host trace: most of the host's blocks over 100 ms were such
 * encodes, while Compare's rows were posted and during the download); in plain Node, the bench's
 * rows with two million held, 116–188 ms. An encode over the budget makes the next chunks smaller
 * (down to MIN_CHUNK rows), one under it doubles them again up to CHUNK; one over twice the budget
 * is followed by a pause of BACKOFF_MS rather than the next encode at once. And an encode still
 * running at the budget ends there, at a row (asked every 32 rows; the first chunk excepted): the
 * first slow encode of a marking, which the sizing only learns from, is cut short as well (it was
 * the longest block left, 117–176 ms for 1,250 rows). Plain Node, five loads of the bench's
 * million rows each with the heap near its limit (--max-old-space-size=1800), the longest stall
 * of a 5 ms timer in the loads with a full collection, two runs each: 168–412 ms before, 80–182
 * after; bench:panel at 1M, host blocked 131 ms (worst 150) and 113 (136) in two sets of three
 * runs, against 185–260 (259–305) in three of the four sets before (93, worst 112, in the fourth).
 * With the cut at the budget (and the client's reads in parts): 104 (136) and 156 (205), and
 * 179 (206) with the pause only after an encode over twice the budget; the longest encode of a
 * download 44–112 ms (wall) against 73–152; the blocks over 100 ms left had the main thread
 * waiting for a core.
 */
const ENCODE_BUDGET_MS = 12;
const MIN_CHUNK = 125;
const BACKOFF_MS = 25;
/**
 * Messages posted but not yet acknowledged. Each postMessage takes a round trip to the webview
 * (100–300 ms measured in the test host, more while it is busy); waiting for each before the
 * next made 100k rows take 6 s to send. Sixty-four in flight (80,000 rows, ~10 MB) hide that, and
 * still never queue a million rows' worth in front of a slow webview.
 */
const MAX_IN_FLIGHT = 64;
/** While rows stream in, fewer than CHUNK of them wait at most this long before they are posted. */
const BATCH_MS = 100;
/**
 * Chunks are deflated (level 1, in libuv's thread pool: the event loop only waits) while VS Code
 * holds at least PACK_IN_FLIGHT of them: the relay through VS Code is behind. Every byte posted is
 * copied, framed and read by VS Code on its way to the webview (in VS Code for the Web: over a
 * websocket into the window, read as a Blob, then cloned into the webview's frames); at a million
 * rows the sender waited on 64 messages in flight for most of the download, up to 325k rows
 * behind them, and after the last byte the 64 in flight alone (10 MB) took up to 2 s to cross,
 * while the page had none left to read. Deflated, chunks shrink 2.5 times (13.1 -> 5.1 MB for
 * 100k rows). While the relay keeps up they go as they are, and so they do while the page is the
 * one behind (it says so: `pageBehind`), and until it has said it keeps up: the page inflates a
 * packed chunk before it reads it (deflating every chunk of a 100k load, where the page was then
 * the slowest step, made its last row later: 3.5 s after the last byte against 2.5 s, medians of
 * 6 and 3 runs; deflating the tail of a 100k load the page had started late on and was still
 * reading, 784–1,166 ms against 394). The first chunk always goes as it is; past PACK_AFTER_BYTES
 * of a load, every other one goes deflated.
 */
const PACK_IN_FLIGHT = 32;
const PACK_LEVEL = 1;
/**
 * Once a load has posted this many bytes as they are, every later chunk goes deflated, whoever is
 * behind. What is posted stays in this process's memory for a while (VS Code keeps each message
 * until the other end acknowledges it), long enough to outlive the young generation: V8 then
 * counts it as external memory that only a full collection frees, and starts one for each ~64 MB
 * more. At a million rows (131 MB as they are) that was three full collections of a ~800 MB heap
 * a load, their helper threads taking the host's share of the cores for 160–390 ms each: the
 * host's longest blocks. Deflated from 16 MB on (2.5× fewer bytes): none started by external
 * memory in three runs, the host's longest block 252 ms (median of 3; worst 409, a collection the
 * heap's growth started) against 375–393 (425); every chunk deflated: 202 (232). First byte to
 * every row 35.7 s against 41.0 (the page inflates each chunk, but the download ends sooner: every
 * row 3.2 s after the last byte against 2.0). A load of 100k rows (13 MB) never gets here.
 */
export const PACK_AFTER_BYTES = 16 * 1024 * 1024;
/**
 * Rows taken but not yet delivered to the webview (waiting here, or posted and not acknowledged)
 * above which `room()` holds the download, until they are down to PACE_RESUME_ROWS. At a million
 * rows the network outran the relay to the webview: 100–300k rows could still be on their way
 * when the last byte arrived (every row in the table 0.9–3.6 s after it, median 1.7 s). Held,
 * the rest of the body waits in the network instead: 0.25–0.44 s after it, first byte to every
 * row 27.5 s against 35.2 (bench:panel, medians of 3; 100k: 0.37 s against 0.99, 2.8 s against
 * 3.0). Holding at 25,000 (down to 15,000) made the whole load slower (39.8 s): fewer messages in
 * flight.
 */
export const PACE_ROWS = 60_000;
export const PACE_RESUME_ROWS = 40_000;
/** No message acknowledged for this long (a hidden or stuck webview): the download is not held. */
const PACE_STALL_MS = 3_000;

/** `data` raw deflated, in a buffer of its own (zlib's output may sit in a larger one). */
function pack(data: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    deflateRaw(data, { level: PACK_LEVEL }, (err, out) => (err ? reject(err) : resolve(new Uint8Array(out)))),
  );
}

export class RowSender {
  private rows: DmarcRecord[] = [];
  private sent = 0;
  /**
   * The end of the rows handed to `post` so far: `sent` also counts a chunk still being
   * deflated, which goes out after whatever is posted meanwhile (init with its syncPoint).
   */
  private posted = 0;
  private complete = false;
  private lastSent = false;
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;
  /** The load the rows belong to: a new one on each reset. */
  private loadId = 0;
  private waiters: (() => void)[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Rows in the messages in flight. */
  private inFlightRows = 0;
  /** `room()` callers, and when a message was last acknowledged. */
  private roomWaiters: (() => void)[] = [];
  private lastAck = 0;
  /**
   * The webview has acknowledged this load's first message: it reads the rows. Until then (its
   * script still loading, 0.7–2 s here) `room()` does not hold the download, which only made a
   * 100k load later (first byte to every row 4.2 s against 3.0 s, 3 runs each).
   */
  private reading = false;
  /**
   * Rows already on their way when the webview started reading, not yet acknowledged: what piled
   * up while it started is read at its own pace and holds nothing; only what comes after counts.
   */
  private startupLeft = 0;
  private stallTimer: ReturnType<typeof setTimeout> | undefined;
  /** A hold ended for want of acknowledgements: none again until the webview acknowledges a message. */
  private stalled = false;
  /** Chunks of this load posted deflated (performance traces). */
  private packedChunks = 0;
  /** Bytes of this load's chunks posted as they are (PACK_AFTER_BYTES). */
  private plainBytes = 0;
  /** The page has said it reads the rows as they come (none wait in it unread). */
  private pageKeepsUp = false;
  /** Rows in the next chunk after the first: CHUNK, fewer while encodes run over their budget (ENCODE_BUDGET_MS). */
  private chunkRows = CHUNK;
  /** BATCH_MS passed with fewer than chunkRows rows waiting: post them anyway. */
  private waited = false;
  /** Called once, when the first chunk of a load has been posted (performance traces). */
  onFirstPosted?: () => void;

  constructor(
    private readonly post: (m: HostMessage) => PromiseLike<boolean>,
    private readonly alive: () => boolean,
    /**
     * Every chunk after the first goes deflated, whatever the relay and the page are doing: rows
     * nobody watches arrive (Compare's previous period), where the fewer bytes matter and the page's
     * inflating does not (see PreviousRows).
     */
    private readonly packAlways = false,
    /** The encode's budget (ENCODE_BUDGET_MS) and clock; tests give their own. */
    private readonly timing: { budgetMs: number; now: () => number } = { budgetMs: ENCODE_BUDGET_MS, now: () => performance.now() },
  ) {}

  /** The rows so far, by index. */
  get records(): readonly DmarcRecord[] {
    return this.rows;
  }

  /** The current load, as its chunks carry it. */
  get load(): number {
    return this.loadId;
  }

  /** The rows of the current load posted so far, for the webview to check it has them all. */
  syncPoint(): { load: number; sent: number } {
    return { load: this.loadId, sent: this.posted };
  }

  /** Starts over with no rows (a new load, or a fetch that started over). */
  reset(): void {
    this.generation++;
    this.loadId++;
    this.packedChunks = 0;
    this.plainBytes = 0;
    this.chunkRows = CHUNK;
    this.rows = [];
    this.sent = 0;
    this.posted = 0;
    this.complete = false;
    this.lastSent = false;
    this.reading = false;
    this.startupLeft = 0;
    this.stalled = false;
    this.clearTimer();
    this.release();
    this.freeRoom(true);
  }

  /**
   * Posts the rows of `load` again from row `from` on (the webview missed them, or started over).
   * False, and nothing posted again, for another load or rows not posted yet.
   */
  resendFrom(load: number, from: number): boolean {
    if (load !== this.loadId || !Number.isInteger(from) || from < 0 || from > this.sent) return false;
    perfMark('resend', { from, sent: this.sent });
    this.generation++;
    this.sent = from;
    this.posted = Math.min(this.posted, from);
    this.lastSent = false;
    this.clearTimer();
    this.kick();
    return true;
  }

  /**
   * Undefined while the rows on their way to the webview are few; otherwise a promise that
   * resolves once they are down to PACE_RESUME_ROWS, the rows are reset, the panel is gone, or
   * no message has been acknowledged for PACE_STALL_MS (then nothing is held again until one
   * is). The panel returns it to the fetch, which reads no further meanwhile.
   */
  room(): Promise<void> | undefined {
    if (!this.reading || this.stalled || !this.alive() || this.onTheirWay() <= PACE_ROWS) return undefined;
    if (this.roomWaiters.length === 0) this.lastAck = Date.now();
    const p = new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    this.watchStall();
    return p;
  }

  /** Rows taken and not yet acknowledged by the webview, less those from before it read (`startupLeft`). */
  private onTheirWay(): number {
    return Math.max(0, this.rows.length - this.sent + this.inFlightRows - this.startupLeft);
  }

  private watchStall(): void {
    if (this.stallTimer || this.roomWaiters.length === 0) return;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      if (Date.now() - this.lastAck >= PACE_STALL_MS) {
        this.stalled = true;
        this.freeRoom(true);
      } else this.watchStall();
    }, Math.max(10, PACE_STALL_MS - (Date.now() - this.lastAck)));
  }

  /** Resolves the `room()` promises when the rows on their way are few again (or `always`). */
  private freeRoom(always = false): void {
    if (this.roomWaiters.length === 0) return;
    if (!always && this.alive() && this.onTheirWay() > PACE_RESUME_ROWS) return;
    const w = this.roomWaiters;
    this.roomWaiters = [];
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    for (const r of w) r();
  }

  /** The page says whether rows wait in it unread: chunks are deflated only while it keeps up. */
  pageBehind(behind: boolean): void {
    perfMark('pageBehind', { behind: behind ? 1 : 0 });
    this.pageKeepsUp = !behind;
  }

  /** More rows (appended; indices follow on). */
  add(records: readonly DmarcRecord[]): void {
    for (let i = 0; i < records.length; i++) this.rows.push(records[i]!);
    this.kick();
  }

  /** No more rows: `all` replaces them when given (a cache served the range). Resolves once every row and the end are posted. */
  finish(all?: DmarcRecord[]): Promise<void> {
    if (all) {
      this.reset();
      this.rows = all;
    }
    this.complete = true;
    const done = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.clearTimer();
    this.kick();
    return done;
  }

  private release(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private kick(): void {
    if (!this.running && !this.timer) void this.run();
  }

  /** The next chunks' size after an encode of `count` rows took `ms`: as many rows as the budget fits, at most twice as many as now. */
  private fitChunk(count: number, ms: number): void {
    if (count < this.chunkRows && ms <= this.timing.budgetMs) return; // a short tail says little
    const fits = Math.floor((count * this.timing.budgetMs) / Math.max(ms, 0.01));
    this.chunkRows = Math.max(MIN_CHUNK, Math.min(CHUNK, 2 * this.chunkRows, fits));
  }

  private async run(): Promise<void> {
    this.running = true;
    const gen = this.generation;
    try {
      // Rows after the first chunk are encoded in a task of their own, not in the step that
      // added them (a network read's rows, parsed): two steps of the event loop, not one twice as long.
      if (this.sent > 0) await new Promise((r) => setImmediate(r));
      while (gen === this.generation && this.alive()) {
        const available = this.rows.length - this.sent;
        if (available === 0 && (!this.complete || this.lastSent)) break;
        if (!this.complete && this.sent > 0 && available < this.chunkRows && !this.waited) {
          // Streaming: let a few more arrive, so that a million rows are not 7,000 messages.
          this.timer ??= setTimeout(() => {
            this.timer = undefined;
            this.waited = true;
            this.kick();
          }, BATCH_MS);
          break;
        }
        this.waited = false;
        const offset = this.sent;
        const want = Math.min(offset === 0 ? FIRST_CHUNK : this.chunkRows, available);
        const step = stepStart();
        const t0 = this.timing.now();
        // After the first chunk, an encode that runs past its budget ends there (at a row).
        const deadline = t0 + this.timing.budgetMs;
        const { data: encoded, count } = encodeRowsUntil(this.rows, offset, want, offset === 0 ? undefined : () => this.timing.now() > deadline);
        const took = this.timing.now() - t0;
        const cut = count < want;
        const last = this.complete && offset + count === this.rows.length;
        slowStep('encode', step, { rows: count, ...(cut ? { cut: 1 } : {}) });
        if (offset > 0) this.fitChunk(count, took);
        const total = this.rows.length;
        const growing = !this.complete;
        this.sent += count;
        if (last) this.lastSent = true;
        // (Should zlib ever fail, the chunk goes as it is.)
        const packed = offset > 0 && (this.packAlways || this.plainBytes >= PACK_AFTER_BYTES || (this.pageKeepsUp && this.inFlight.size >= PACK_IN_FLIGHT)) ? await pack(encoded).catch(() => undefined) : undefined;
        if (packed) this.packedChunks++;
        else this.plainBytes += encoded.byteLength;
        if (gen !== this.generation || !this.alive()) break;
        this.posted = offset + count;
        const posted = this.post({ type: 'rows', load: this.loadId, offset, count, total, growing, data: packed ?? encoded, last, ...(packed ? { packed: true } : {}) });
        const acknowledged = (): void => {
          this.inFlight.delete(settled);
          this.inFlightRows -= count;
          this.startupLeft = Math.max(0, this.startupLeft - count);
          this.lastAck = Date.now();
          this.stalled = false;
          this.freeRoom();
        };
        const settled: Promise<unknown> = Promise.resolve(posted).then(acknowledged, acknowledged);
        this.inFlight.add(settled);
        this.inFlightRows += count;
        if (Math.floor((offset + count) / 25_000) > Math.floor(offset / 25_000)) perfMark('posted', { rows: offset + count, inFlight: this.inFlight.size, waiting: this.rows.length - this.sent, packed: this.packedChunks, pageKeepsUp: this.pageKeepsUp ? 1 : 0 });
        if (offset === 0) {
          await settled;
          if (gen === this.generation) {
            this.reading = true;
            this.startupLeft = this.rows.length - this.sent + this.inFlightRows;
          }
          this.onFirstPosted?.();
        }
        while (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight);
        if (last) await Promise.all(this.inFlight);
        // Yield between chunks so the extension host never holds the event loop for long; after
        // an encode far over its budget (even cut short: its last rows ran slow), for a while (see ENCODE_BUDGET_MS).
        await new Promise((r) => (took > 2 * this.timing.budgetMs ? setTimeout(r, BACKOFF_MS) : setImmediate(r)));
      }
    } finally {
      this.running = false;
    }
    if (gen !== this.generation) this.kick();
    else if (this.lastSent || !this.alive()) this.release();
    if (!this.alive()) this.freeRoom(true);
  }
}
