/**
 * Rows from the host: binary, columnar chunks (src/shared/rowCodec.ts), read one task at a time
 * so input and painting get their turn between chunks. The host posts them while the page starts:
 * they wait for the view settings (`init`, which the page carries itself), and only the chunk
 * expected next is taken (data/rowStream.ts). The first chunk paints at once; while more arrive
 * the view is recomputed at most every STREAM_UPDATE_MS; when the last is in, the other columns
 * are ranked in idle time (and the search prepared, already while rows arrive) so a first sort or search is instant. Timings for the benchmark are kept on `window`.
 */
import * as l10n from '@vscode/l10n';
import type { HostMessage } from '../../src/shared/protocol';
import { decodeChunk, type RowChunk } from '../../src/shared/rowCodec';
import { RowStream, type Resend } from './data/rowStream';
import { requireBytes, unpack } from './data/inflate';
import type { App } from './main';

type RowsMessage = Extract<HostMessage, { type: 'rows' }>;

/** Timings for the benchmark: plain numbers, nothing that acts. */
export interface Perf {
  rows: number;
  firstPaintMs: number | null;
  /** Wall-clock (Date.now) times, comparable with the extension host's trace. */
  firstPaintAt: number | null;
  /** When this script started, and when the first chunk of rows arrived. */
  scriptAt: number;
  firstChunkAt: number | null;
  loadedAt: number | null;
  /** When the message with the last rows arrived, and how many messages were still waiting to be read then. */
  lastChunkAt?: number;
  queuedAtLast?: number;
  /** Rows asked for again: why (a chunk out of order, or init), from which row, when (Date.now). */
  resends: string[];
  lastSortMs: number | null;
  lastFilterMs: number | null;
  /** The search's part of lastFilterMs (RecordsModel.timings.searchMs). */
  lastSearchMs?: number;
  /** How long the last Advice took to compute (analysis.ts; a view of every row computed before is not computed again). */
  lastAdviceMs?: number | null;
  /** Bytes the rows and their caches hold in typed arrays, which `performance.memory` does not count (set by main.ts). */
  arrayBytes?: () => number;
  /** Content-Security-Policy violations seen in this page (directive and blocked URI): tests assert there are none. */
  csp: string[];
}

declare global {
  interface Window {
    __dmarcPerf?: Perf;
  }
}

export const perf: Perf = { rows: 0, firstPaintMs: null, firstPaintAt: null, scriptAt: Date.now(), firstChunkAt: null, loadedAt: null, lastSortMs: null, lastFilterMs: null, csp: [], resends: [] };
window.__dmarcPerf = perf;
document.addEventListener('securitypolicyviolation', (e) => {
  if (perf.csp.length < 50) perf.csp.push(`${e.violatedDirective} ${e.blockedURI}`.slice(0, 300));
});

/**
 * While rows stream in, the view is recomputed at most this often, and never more than a tenth
 * of the time (a recompute of 500k rows takes ~200 ms: reading the rows must not wait on it).
 */
const STREAM_UPDATE_MS = 200;
/**
 * While rows stream in, the trend and the groups are redrawn at most this often: over a million
 * rows they were a third of the webview's work while loading (the trend's pass over every row,
 * Chart.js measuring its labels), work the same page needs for reading the rows that arrive. At
 * one second they were still ~0.5 s of the webview's 3 s of work for 100k rows in VS Code.
 */
const STREAM_ANALYSIS_MS = 3_000;
/**
 * While this many messages of rows wait to be read, the page is behind the host: the view is
 * recomputed at most every STREAM_BEHIND_MS and the trend and groups every
 * STREAM_BEHIND_ANALYSIS_MS, so the rows that wait are read first (a recompute of rows that are
 * about to change again is work the last row waits for).
 */
const BEHIND_MESSAGES = 4;
/** The page tells the host it is behind at BEHIND_MESSAGES waiting, and that it keeps up again at this many. */
const CAUGHT_UP_MESSAGES = 1;
const STREAM_BEHIND_MS = 1_000;
/** Once the body is in and the page is behind, the progress alone is redrawn this often. */
const TAIL_PROGRESS_MS = 250;
const STREAM_BEHIND_ANALYSIS_MS = 10_000;
/** While rows arrive, a step of idle work runs at least this often (rowPump.whenIdle). */
const STREAM_IDLE_TIMEOUT_MS = 250;

/** The bytes of a `rows` message, whatever shape structured cloning gave them, read as a binary chunk. */
export function decodeRows(data: unknown): RowChunk {
  return decodeChunk(requireBytes(data));
}

/**
 * Runs `fn` in a new task, after whatever input and rendering is due. Not `setTimeout(fn, 0)`:
 * browsers make a chain of those wait at least 4 ms each, which between chunks cost a million-row
 * load over a second of doing nothing.
 */
const channel = new MessageChannel();
const tasks: (() => void)[] = [];
channel.port1.onmessage = () => tasks.shift()?.();
function nextTask(fn: () => void): void {
  tasks.push(fn);
  channel.port2.postMessage(null);
}

export class RowPump {
  private readonly queue: RowsMessage[] = [];
  private readonly stream = new RowStream();
  /** Until `init` (the view settings) has come, chunks are kept unread. */
  private held = true;
  private pumping = false;
  private updateTimer = 0;
  /** How long the last streaming recompute took. */
  private updateCost = 0;
  private lastUpdate = 0;
  private lastAnalysis = 0;
  private firstRowsAt = 0;
  private idleHandle = 0;
  /** Packed chunks taken, being inflated. */
  private readonly inflating = new Map<RowsMessage, Promise<Uint8Array>>();
  /** Bumped by cancel(): a chunk being inflated then is dropped. */
  private generation = 0;
  /** What the host was last told: whether rows wait here unread (it deflates rows only while they do not). */
  private toldBehind: boolean | undefined;

  constructor(
    private readonly app: App,
    private readonly host: { resend: (r: Resend) => void; behind: (behind: boolean) => void },
  ) {
    perf.arrayBytes = () => app.model.bytes();
  }

  push(m: RowsMessage): void {
    const header = { load: typeof m.load === 'number' ? m.load : 0, offset: typeof m.offset === 'number' ? m.offset : -1, count: typeof m.count === 'number' ? m.count : 0 };
    const { take, resend } = this.stream.take(header);
    if (!take) {
      if (resend && !this.held) {
        if (perf.resends.length < 50) perf.resends.push(`chunk ${header.load}:${header.offset} from ${resend.from} @${Date.now()}`);
        this.host.resend(resend);
      }
      return;
    }
    if (m.last === true) {
      perf.lastChunkAt = Date.now();
      perf.queuedAtLast = this.queue.length;
    }
    // A packed chunk starts inflating as it comes, while the ones before it are read.
    if (m.packed === true) {
      const inflated = unpack(m.data);
      inflated.catch(() => undefined); // read (and reported) when its turn comes
      this.inflating.set(m, inflated);
    }
    this.queue.push(m);
    this.tellBehind();
    if (!this.pumping && !this.held) this.next();
  }

  /** Tells the host when the page falls behind or catches up (not while held: it is not reading yet). */
  private tellBehind(): void {
    if (this.held) return;
    const waiting = this.queue.length;
    const behind = this.toldBehind ? waiting > CAUGHT_UP_MESSAGES : waiting >= BEHIND_MESSAGES;
    if (behind === this.toldBehind) return;
    this.toldBehind = behind;
    this.host.behind(behind);
  }

  /** `init` has come: the chunks kept so far are read; rows posted before it and missed are asked for again. */
  start(sync: { load?: unknown; sent?: unknown } | undefined): void {
    this.held = false;
    if (sync && typeof sync.load === 'number' && typeof sync.sent === 'number') {
      const resend = this.stream.sync(sync.load, sync.sent);
      if (resend) {
        if (perf.resends.length < 50) perf.resends.push(`init ${sync.load}:${sync.sent} from ${resend.from} @${Date.now()}`);
        this.host.resend(resend);
      }
    }
    this.tellBehind();
    if (!this.pumping) this.next();
  }

  /** Chunks taken but not read yet. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * Whether a `loading` status for this load is old news: its rows (or a later load's) came
   * already. Before the page is ready the host keeps the last status and sends it after the rows
   * it posted meanwhile; loads are numbered in order.
   */
  isStale(load: number): boolean {
    return load <= this.stream.current;
  }

  /** The rows on their way are dropped: the next load starts at offset 0. */
  cancel(): void {
    this.generation++;
    this.queue.length = 0;
    this.inflating.clear();
    this.stream.reset();
  }

  /** Called by every update: a scheduled stream update is no longer needed. */
  settleUpdate(): void {
    if (this.updateTimer) clearTimeout(this.updateTimer);
    this.updateTimer = 0;
    this.lastUpdate = performance.now();
  }

  private next(): void {
    const m = this.queue.shift();
    this.tellBehind();
    if (!m) {
      this.pumping = false;
      return;
    }
    this.pumping = true;
    if (m.packed === true) {
      // Inflated first (a packed chunk: src/panel/rowSender.ts); a cancel meanwhile drops it.
      const generation = this.generation;
      const inflated = this.inflating.get(m) ?? unpack(m.data);
      this.inflating.delete(m);
      void inflated.then(
        (data) => (generation === this.generation ? this.take({ ...m, data, packed: false }) : this.next()),
        (err: unknown) => (generation === this.generation ? this.take({ ...m, data: err instanceof Error ? err : new Error(String(err)), packed: false }) : this.next()),
      );
      return;
    }
    this.take(m);
  }

  /** Reads one message of rows, then goes on with the next when the page has had its turn. */
  private take(m: RowsMessage | (Omit<RowsMessage, 'data'> & { data: Error })): void {
    this.onRows(m);
    let done = false;
    const go = (): void => {
      if (done) return;
      done = true;
      this.next();
    };
    if (m.offset === 0) {
      requestAnimationFrame(() => setTimeout(go, 0));
      // rAF does not run while the panel is hidden.
      setTimeout(go, 100);
    } else {
      nextTask(go);
    }
  }

  private onRows(m: RowsMessage | (Omit<RowsMessage, 'data'> & { data: Error })): void {
    const app = this.app;
    const t0 = performance.now();
    let chunk: RowChunk;
    try {
      if (m.data instanceof Error) throw m.data;
      chunk = decodeRows(m.data);
    } catch (err) {
      app.onError({ type: 'error', message: l10n.t('The rows could not be read: {0}', (err as Error).message), canRetry: true, canUpdateKey: false });
      return;
    }
    const offset = typeof m.offset === 'number' ? m.offset : app.model.length;
    if (offset === 0) {
      // A (re)load: start over, keep the view settings.
      if (app.model.length > 0) {
        const focused = app.selection.focus;
        app.pendingRestore ??= { scrollTop: app.table.scrollTop, focused: focused >= 0 ? focused : undefined };
      }
      app.model.clear();
      app.selection.reset(typeof m.total === 'number' ? m.total : 0);
      app.actions.resetDetail();
      this.firstRowsAt = t0;
      perf.firstChunkAt = Date.now();
      perf.firstPaintMs = null;
      perf.firstPaintAt = null;
      perf.loadedAt = null;
    }
    app.total = Math.max(typeof m.total === 'number' ? m.total : 0, app.model.length + chunk.count);
    app.growing = m.growing === true && m.last !== true;
    app.model.appendChunk(chunk, app.total);
    app.selection.resize(app.model.length);
    perf.rows = app.model.length;
    app.complete = m.last === true;
    // Every row in: the verdict of each row's source is judged on all of them (rowClasses.ts).
    app.model.classes.setSettled(app.complete);
    app.phase = app.complete ? 'ready' : 'loading';
    if (offset === 0 || app.complete) {
      // The last rows: the table, its count and the filters first; the trend and groups in the
      // next frame (as after a keystroke), so the table is whole and sortable that much sooner.
      app.update(true, offset === 0 ? true : 'later');
      if (offset === 0) {
        requestAnimationFrame(() => {
          perf.firstPaintMs = Math.round((performance.now() - this.firstRowsAt) * 10) / 10;
          perf.firstPaintAt = Date.now();
        });
      }
    } else if (!this.updateTimer) this.scheduleStreamUpdate();
    if (app.complete) {
      perf.loadedAt = Date.now();
      this.whenIdle(true);
    } else if (!this.idleHandle) this.whenIdle(false);
  }

  /** A recompute of the view while rows stream in (see STREAM_UPDATE_MS and BEHIND_MESSAGES). */
  private scheduleStreamUpdate(wait?: number): void {
    const since = performance.now() - this.lastUpdate;
    const behind = this.queue.length >= BEHIND_MESSAGES;
    wait ??= Math.max(0, Math.max(behind ? STREAM_BEHIND_MS : STREAM_UPDATE_MS, 9 * this.updateCost) - since);
    this.updateTimer = window.setTimeout(() => this.streamUpdate(), wait);
  }

  private streamUpdate(): void {
    this.updateTimer = 0;
    const t = performance.now();
    const behind = this.queue.length >= BEHIND_MESSAGES;
    if (behind && !this.app.growing) {
      // The body is in and rows wait here: they come as fast as they are read, and the last
      // brings the full update. Until then only the progress ("Loading… N of M rows") is redrawn:
      // a recompute of a million rows is 200–300 ms the last row would wait for.
      this.app.render();
      this.scheduleStreamUpdate(TAIL_PROGRESS_MS);
      return;
    }
    // Fell behind meanwhile: read the rows first, recompute later.
    if (behind && t - this.lastUpdate < STREAM_BEHIND_MS) {
      this.scheduleStreamUpdate();
      return;
    }
    const analysis = t - this.lastAnalysis >= (behind ? STREAM_BEHIND_ANALYSIS_MS : STREAM_ANALYSIS_MS);
    if (analysis) this.lastAnalysis = t;
    this.app.update(true, analysis);
    this.updateCost = performance.now() - t;
  }

  /**
   * Work for idle time, in steps of a few milliseconds (a click waits for one at most): while rows
   * arrive, the search's character bits of the chunks not prepared as they were read and the
   * address fields' indexes (data/query.ts whileRowsArrive); once every row is in, the ranks as
   * well (idleNext). While rows arrive a step also runs when no idle time came for
   * STREAM_IDLE_TIMEOUT_MS, unless rows wait to be read: at a million rows the page had idle
   * time only 8–15 times over the whole load, and the address indexes reached 75–140k of the rows
   * (a first group-by IP address then took 0.7–1 s; with the timeout 188–259 ms in bench:panel).
   */
  private whenIdle(complete: boolean): void {
    if (this.idleHandle) cancelIdleCallback(this.idleHandle);
    const options = { timeout: complete ? 2000 : STREAM_IDLE_TIMEOUT_MS };
    const step = (deadline: IdleDeadline): void => {
      this.idleHandle = 0;
      const more = (): boolean => deadline.timeRemaining() > 4;
      const model = this.app.model;
      // Rows waiting to be read come first: the step waits for the next turn (and the next
      // chunk read re-arms it anyway).
      if (!complete && this.queue.length > 0) {
        this.idleHandle = requestIdleCallback(step, options);
        return;
      }
      if (!(complete ? model.idleNext(more) : model.whileRowsArrive(more))) return;
      this.idleHandle = requestIdleCallback(step, options);
    };
    this.idleHandle = requestIdleCallback(step, options);
  }
}
