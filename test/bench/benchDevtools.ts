/**
 * DevTools helpers of `npm run bench:panel`: CPU profiles of the webview and of the workbench
 * window (BENCH_WVPROFILE, BENCH_EXPORTPROFILE) and the webview's heap.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CDPSession, Frame, Page } from 'playwright-core';

/**
 * A DevTools session of the webview's renderer: the webview is an out-of-process frame of the
 * workbench page (its own origin, see test/host/launch.mjs), and a session attaches to the frame
 * at the root of that process (VS Code's outer webview frame), not to our page inside it.
 */
async function frameSession(page: Page, frame: Frame): Promise<CDPSession> {
  for (let f: Frame | null = frame; f && f !== page.mainFrame(); f = f.parentFrame()) {
    const session = await page.context().newCDPSession(f).catch(() => undefined);
    if (session) return session;
  }
  throw new Error('the webview does not run in a renderer of its own');
}

/** Starts V8's sampling profiler on a CDP session (`interval` in µs); the function returned stops it, detaches and gives the profile. */
async function startProfiler(cdp: CDPSession, interval: number) {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval });
  await cdp.send('Profiler.start');
  return async () => {
    const { profile } = await cdp.send('Profiler.stop');
    await cdp.detach().catch(() => undefined);
    return profile;
  };
}

/** BENCH_WVPROFILE=1: a CPU profile of the webview's page while it loads; the stop function gives its top self times. */
export async function startFrameProfile(page: Page, frame: Frame): Promise<() => Promise<string>> {
  const stop = await startProfiler(await frameSession(page, frame), 200);
  return async () => {
    const profile = await stop();
    // BENCH_WVPROFILE=<dir> (a path): the profile itself too, for DevTools or a timeline.
    if (process.env.BENCH_WVPROFILE!.includes('/')) writeFileSync(join(process.env.BENCH_WVPROFILE!, `webview-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    const self = new Map<string, number>();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const total = profile.endTime - profile.startTime;
    profile.samples!.forEach((id, k) => {
      const f = byId.get(id)!.callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
      self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas![k] ?? 0));
    });
    const idle = self.get('(idle) :-1') ?? 0;
    return `  webview CPU while loading (self time; busy ${Math.round((total - idle) / 1000)} ms of ${Math.round(total / 1000)}):\n${[...self].sort((a, b) => b[1] - a[1]).slice(0, 18).map(([k, v]) => `    ${Math.round(v / 1000)} ms ${k}`).join('\n')}`;
  };
}

/** BENCH_EXPORTPROFILE=1: a CPU profile of the workbench window's main thread; the stop function gives its top self and total times. */
export async function startWindowProfile(page: Page): Promise<() => Promise<string>> {
  const stop = await startProfiler(await page.context().newCDPSession(page), 500);
  return async () => {
    const profile = await stop();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const name = (id: number): string => {
      const f = byId.get(id)!.callFrame;
      return `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
    };
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    profile.samples!.forEach((id, k) => {
      const dt = profile.timeDeltas![k] ?? 0;
      self.set(name(id), (self.get(name(id)) ?? 0) + dt);
      const seen = new Set<string>();
      for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
        const key = name(x);
        if (!seen.has(key)) total.set(key, (total.get(key) ?? 0) + dt);
        seen.add(key);
      }
    });
    const top = (m: Map<string, number>, n: number): string => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `    ${Math.round(v / 1000)} ms ${k}`).join('\n');
    return `  workbench window CPU during the export (self):\n${top(self, 25)}\n  (total):\n${top(total, 40)}`;
  };
}

/** The webview's live JS heap plus its typed arrays, in MB; BENCH_HEAPSNAPSHOT=<file> also writes a heap snapshot of it. */
export async function webviewHeapMB(page: Page, frame: Frame): Promise<number> {
  // The webview is an out-of-process frame of the workbench page: a DevTools session of its own.
  const cdp = await frameSession(page, frame);
  try {
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    const arrays = await frame.evaluate(() => (window as unknown as { __dmarcPerf: { arrayBytes?: () => number } }).__dmarcPerf.arrayBytes?.() ?? 0);
    if (process.env.BENCH_HEAPSNAPSHOT) {
      const out: string[] = [];
      cdp.on('HeapProfiler.addHeapSnapshotChunk', (e) => out.push(e.chunk));
      await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      writeFileSync(process.env.BENCH_HEAPSNAPSHOT, out.join(''));
      console.log(`  heap snapshot: ${process.env.BENCH_HEAPSNAPSHOT}`);
    }
    return (usedSize + arrays) / 1048576;
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}
