import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Performance trace for `npm run bench:panel`, off unless DMARC_PERF_FILE names a file: JSON lines
 * with the time of a few named steps (an API response finished arriving, parsed, a panel's rows
 * sent…) and, every 250 ms, the longest the extension host's event loop was blocked in that
 * interval and the heap in use. Nothing else is recorded (no data, no key). With DMARC_PERF_CPUPROFILE naming a
 * directory it also writes a V8 CPU profile of the extension host each time a panel has sent its
 * rows (for Chrome DevTools' Performance tab). The live heap (after a forced full collection) is
 * measured when the bench asks for it, by creating `<file>.heap`: right after the load, the forced
 * collection (seconds at a million rows) took a core from the sorts and searches being measured.
 */
export interface PerfTrace {
  mark(event: string, detail?: Record<string, number | string>): void;
  dispose(): void;
}

let current: PerfTrace | undefined;

/** The main thread's time on a core and waiting for one, in ns (Linux only; undefined elsewhere). */
function mainSched(): [number, number] | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return run !== undefined && wait !== undefined && Number.isFinite(run) && Number.isFinite(wait) ? [run, wait] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (ms) of each of the process's threads other than the main one, by thread name (Linux
 * only; empty elsewhere): V8's workers (concurrent marking and compiling), libuv's (files, zlib)…
 */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      if (tid === String(process.pid)) continue;
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const f = stat.slice(close + 2).split(' ');
      // utime and stime (fields 14 and 15 of stat, 12 and 13 after the name), in clock ticks of 10 ms.
      const ms = (Number(f[11]) + Number(f[12])) * 10;
      out.set(`${name}#${tid}`, ms);
    }
  } catch {
    /* best effort */
  }
  return out;
}

/**
 * Where the other threads' CPU went since `before` (threadCpu): "name#n ms", most first, n the
 * thread's rank by id (Node names them all "node"; V8's workers start first, libuv's when first used).
 */
function threadsSince(before: Map<string, number>, now: Map<string, number>): string {
  const ids = [...now.keys()].sort((a, b) => Number(a.slice(a.lastIndexOf('#') + 1)) - Number(b.slice(b.lastIndexOf('#') + 1)));
  const rank = new Map(ids.map((k, i) => [k, i + 1]));
  return [...now]
    .map(([k, ms]) => [`${k.slice(0, k.lastIndexOf('#'))}#${rank.get(k)}`, ms - (before.get(k) ?? 0)] as const)
    .filter(([, d]) => d > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, d]) => `${k} ${d}`)
    .join(', ');
}

/**
 * The heap in use, and the array buffers outside it: VS Code's copies of the messages posted to a
 * webview are among them, and V8 starts a full garbage collection each ~64 MB they grow by.
 */
function memory(): { heapMB: number; arrayBuffersMB: number } {
  const m = process.memoryUsage();
  return { heapMB: Math.round(m.heapUsed / 1048576), arrayBuffersMB: Math.round(m.arrayBuffers / 1048576) };
}

/** Records a step in the active trace; does nothing (and costs nothing) when tracing is off. */
export function perfMark(event: string, detail?: Record<string, number | string>): void {
  current?.mark(event, detail);
}

/** A step of the host's work that took longer than this (wall time) is marked `slowStep`. */
const SLOW_STEP_MS = 40;

/**
 * The time now, to give `slowStep` when the step is done: with tracing off, 0 and nothing read.
 * For the steps that run between two yields of the event loop (a network read parsed, a chunk
 * encoded): the bench prints them beside the loop's long blocks, which tells a step that is long
 * in itself from one stretched by the garbage collector or by waiting for a core.
 */
export function stepStart(): number {
  return current ? performance.now() : 0;
}

/** Marks `step` when it took longer than SLOW_STEP_MS since `start` (from stepStart). */
export function slowStep(step: string, start: number, detail?: Record<string, number | string>): void {
  if (!current) return;
  const ms = performance.now() - start;
  if (ms > SLOW_STEP_MS) current.mark('slowStep', { step, ms: Math.round(ms), ...detail });
}

export function startPerfTrace(file: string | undefined, profileDir?: string): PerfTrace | undefined {
  if (!file) return undefined;
  const write = (o: object) => {
    try {
      appendFileSync(file, `${JSON.stringify(o)}\n`);
    } catch {
      /* the trace is best effort */
    }
  };
  const probeRequest = `${file}.heap`;
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  // CPU time of the process in each sample (all its threads): a long block with little CPU was
  // the machine's other processes, not this one.
  let cpu = process.cpuUsage();
  let last = Date.now();
  // And the main thread's own time on a core and waiting for one (Linux's schedstat): a block with
  // much waiting was the thread ready to run while the machine's cores were busy elsewhere.
  let sched = mainSched();
  // And the other threads' (only reported with a long block: which of them took the cores).
  let threads = threadCpu();
  // Pauses of the main thread for garbage collection in each sample: minor (scavenges), and the rest.
  const gcMs = { minor: 0, major: 0 };
  const timer = setInterval(() => {
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    const now = Date.now();
    const s = mainSched();
    const main = s && sched ? { mainRunMs: Math.round((s[0] - sched[0]) / 1e6), mainWaitMs: Math.round((s[1] - sched[1]) / 1e6) } : {};
    sched = s;
    const t = threadCpu();
    const maxMs = Math.round(h.max / 1e6);
    const others = maxMs > 100 ? { threads: threadsSince(threads, t) } : {};
    threads = t;
    write({ event: 'loop', at: now, maxMs, ...others, ...memory(), cpuMs: Math.round((used.user + used.system) / 1000), wallMs: now - last, ...main, gcMinorMs: Math.round(gcMs.minor), gcMajorMs: Math.round(gcMs.major) });
    gcMs.minor = gcMs.major = 0;
    last = now;
    h.reset();
    if (existsSync(probeRequest)) {
      rmSync(probeRequest, { force: true });
      probeHeap();
    }
  }, 250);
  timer.unref();
  // Garbage collection pauses over 20 ms, and every pause of a full collection however short (how
  // many there were, and why: most of their marking runs on other threads), with Node's kind
  // (perf_hooks constants NODE_PERFORMANCE_GC_*): 1 a scavenge, 4 a full collection's final pause,
  // 8 a step of incremental marking, 16 weak callbacks; and its flags (32: started by external
  // memory, such as array buffers, growing).
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const detail = (e as unknown as { detail?: { kind?: number; flags?: number } }).detail;
      const kind = detail?.kind ?? 0;
      if (kind === 1) gcMs.minor += e.duration;
      else gcMs.major += e.duration;
      if (e.duration > 20 || kind === 4) write({ event: 'gc', at: Math.round(performance.timeOrigin + e.startTime), ms: Math.round(e.duration), kind, flags: detail?.flags ?? 0 });
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  const profiler = profileDir ? startProfiler(profileDir) : undefined;
  // The live heap (after a full garbage collection), when the bench asks: what the loop samples
  // report includes garbage not yet collected.
  const probeHeap = (): void => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Session } = require('node:inspector') as typeof import('node:inspector');
    const session = new Session();
    session.connect();
    // The forced full collection blocks the loop (most of a second at a million rows): the bench
    // leaves loop samples between this mark and heapLive out of "host blocked", as the product
    // never forces one.
    write({ event: 'heapProbe', at: Date.now() });
    profiler?.cut(); // a second profile: from rowsSent to here (what the host does once the rows are sent, and while the bench uses the panel)
    session.post('HeapProfiler.collectGarbage', () => {
      write({ event: 'heapLive', at: Date.now(), heapMB: Math.round(process.memoryUsage().heapUsed / 1048576) });
      // Not from inside the session's own callback: Node 20 then never runs the event loop again.
      setImmediate(() => session.disconnect());
    });
  };
  current = {
    mark: (event, detail) => {
      write({ event, at: Date.now(), ...detail });
      if (event === 'rowsSent') profiler?.cut();
    },
    dispose: () => {
      clearInterval(timer);
      h.disable();
      gc.disconnect();
      profiler?.dispose();
      current = undefined;
    },
  };
  return current;
}

function startProfiler(dir: string): { cut(): void; dispose(): void } {
  // Loaded only when asked for: the inspector module is not needed otherwise.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Session } = require('node:inspector') as typeof import('node:inspector');
  const session = new Session();
  session.connect();
  // The profiles are written from the inspector's callback, where a missing folder threw unseen
  // and stopped the profiling for good.
  mkdirSync(dir, { recursive: true });
  let n = 0;
  const start = () => {
    session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start'));
  };
  session.post('Profiler.enable', start);
  return {
    cut: () => {
      session.post('Profiler.stop', (err, res) => {
        if (!err && res) writeFileSync(join(dir, `host-${Date.now()}-${++n}.cpuprofile`), JSON.stringify(res.profile));
        start();
      });
    },
    dispose: () => session.disconnect(),
  };
}
