/**
 * Who had the CPU during a step of a bench (Linux: /proc): each process's user + system time,
 * read before and after, so a slow keystroke can be told from one that waited for a core
 * (BENCH_PHASES=1 prints it beside each keystroke). Elsewhere it reports nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

type Snapshot = Map<number, { name: string; ticks: number }>;

/** A /proc stat line's name and user + system ticks ("pid (comm) state …": comm may hold spaces and parentheses). */
function readStat(path: string): { name: string; ticks: number; nice: number } | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, close), ticks: Number(fields[11]) + Number(fields[12]), nice: Number(fields[16]) };
  } catch {
    return undefined; // gone meanwhile
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir).filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
}

/** Per process (and with BENCH_THREADS=1, per thread: key pid.tid) its CPU ticks so far. */
function snapshot(): Snapshot {
  const out: Snapshot = new Map();
  const threads = process.env.BENCH_THREADS === '1';
  for (const pid of list('/proc')) {
    const p = readStat(`/proc/${pid}/stat`);
    if (!p) continue;
    out.set(Number(pid), { name: p.name, ticks: p.ticks });
    if (!threads) continue;
    for (const tid of list(`/proc/${pid}/task`)) {
      const t = readStat(`/proc/${pid}/task/${tid}/stat`);
      if (t) out.set(Number(pid) + Number(tid) / 1e7, { name: `  ${t.name}(nice ${t.nice})`, ticks: t.ticks });
    }
  }
  return out;
}

/** A Chromium or Electron process's type (renderer, gpu-process, utility…) from its command line; '' for others. */
function kind(pid: number): string {
  try {
    const type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    return type ? `/${type[1]}` : '';
  } catch {
    return '';
  }
}

/** Starts a window; the function it gives ends it and says the processes that ran most in it ("name ms, …"). */
export function cpuWindow(): () => string {
  const before = snapshot();
  const t0 = performance.now();
  return () => {
    const wall = performance.now() - t0;
    const after = snapshot();
    const used: [string, number][] = [];
    let total = 0;
    const threads: [string, number][] = [];
    for (const [pid, a] of after) {
      const ms = (a.ticks - (before.get(pid)?.ticks ?? a.ticks)) * TICK_MS;
      if (ms <= 0) continue;
      if (!Number.isInteger(pid)) {
        threads.push([`${Math.floor(pid)}/${a.name.trim()}`, ms]);
        continue;
      }
      total += ms;
      used.push([`${a.name}${kind(pid)}:${pid}`, ms]);
    }
    used.sort((x, y) => y[1] - x[1]);
    threads.sort((x, y) => y[1] - x[1]);
    const top = threads.length ? ` [threads: ${threads.slice(0, 8).map(([n, ms]) => `${n} ${ms}`).join(', ')}]` : '';
    return `cpu ${total} ms in ${Math.round(wall)} ms: ${used.slice(0, 4).map(([n, ms]) => `${n} ${ms}`).join(', ')}${top}`;
  };
}

/**
 * Who had the CPU over any stretch of a run: a snapshot of every process every `everyMs`, so
 * that a block of the extension host found afterwards (its perf trace's 250 ms samples) can be
 * told what the rest of the machine ran meanwhile (BENCH_PHASES). `between` diffs the snapshots
 * around [from, to] (epoch ms), so its window is up to one interval wider on each side.
 */
export function cpuSampler(everyMs = 250): { between(from: number, to: number): string; stop(): void } {
  const taken: { at: number; snap: Snapshot }[] = [{ at: Date.now(), snap: snapshot() }];
  const timer = setInterval(() => {
    taken.push({ at: Date.now(), snap: snapshot() });
    // An hour at most (a 1M run is minutes).
    if (taken.length > 14_400) taken.shift();
  }, everyMs);
  timer.unref();
  return {
    between(from, to) {
      const before = [...taken].reverse().find((s) => s.at <= from) ?? taken[0]!;
      const after = taken.find((s) => s.at >= to) ?? taken.at(-1)!;
      const used: [string, number][] = [];
      for (const [pid, a] of after.snap) {
        const ms = (a.ticks - (before.snap.get(pid)?.ticks ?? a.ticks)) * TICK_MS;
        if (ms > 0) used.push([`${a.name}${kind(pid)}:${pid}`, ms]);
      }
      used.sort((x, y) => y[1] - x[1]);
      return `machine ${used.reduce((s, [, ms]) => s + ms, 0)} ms in ${after.at - before.at} ms: ${used.slice(0, 5).map(([n, ms]) => `${n} ${ms}`).join(', ')}`;
    },
    stop: () => clearInterval(timer),
  };
}
