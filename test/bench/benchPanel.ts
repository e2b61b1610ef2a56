/**
 * `npm run bench:panel`: the records panel with ~100k records from the local API server, driven
 * in the real VS Code test host through headless Chromium. A benchmark, not a test: it prints
 * medians over several runs and how they compare with the bars of the records-panel issue.
 *
 *   first paint   first rows painted, after the HTTP response completed (bar 1.5 s)
 *   sort          a real click on a header (Playwright, through the browser's input pipeline), from
 *                 its handling in the page until the frame painted with the new first row (bar 150
 *                 ms; the worst run within 300); (input→frm) from the click's own time stamp, a busy
 *                 page's wait for it included: what the user waits for; (handler) the page's handler
 *   filter        one real keystroke in the search box, from its handling until the frame painted
 *                 with the new row count, with the trend, the facets and a two-level group-by
 *                 (source → IP) all recomputed (bar 100 ms; the worst run within 200); (input→frm)
 *                 and (compute) as for sort
 *   group-by      choosing another group-by field until the next frame is painted (bar 150 ms;
 *                 400 ms at 1M rows)
 *   compare       the same with Compare on (issue 42: within the group-by bar): the previous
 *                 period's rows (as many again) in, each group-by with the Δ columns, and one
 *                 sort "biggest drop first"; (prev in) how long the previous period took to arrive
 *   advice        the Advice recomputed for the rows of each keystroke's filter (the time of its
 *                 computation in the page, read once the trend and groups followed; bar 100 ms,
 *                 400 ms at 1M rows: the groups', issue 41)
 *   bundle        the webview's minified script (bar 250 KB); (chart) Chart.js's, loaded when the trend is first drawn
 *   DOM rows      row elements in the DOM at several scroll positions (bar 200)
 *   host blocked  longest extension-host event-loop block while loading and using the panel (bar
 *                 200 ms at 100k rows, the records-panel issue's; 100 ms at 1M rows, issue 12's);
 *                 (main ran) / (waited): until the last byte, the host's main thread's time on a
 *                 core and ready to run but waiting for one (Linux schedstat); with BENCH_PHASES,
 *                 a block over 100 ms also says what the host's other threads ran meanwhile (#2–#5:
 *                 V8's workers, the garbage collector's concurrent marking among them)
 *   export JSON   every row selected (Ctrl+A in the grid), then DMARC: Export Selected Rows to JSON
 *                 from the command palette, until the extension host has the untitled JSON document
 *                 open in its tab with one line per row (bar 3000 ms at 100k rows); with the
 *                 longest extension-host block meanwhile; (1st rows) when the tab showed its first
 *                 rows, before the rest was appended; in run 1, for reference, the same rows opened as a
 *                 file by VS Code alone (File: Open File…, no code of ours): the test host's own floor
 *   from disk     with 5 runs or more, run 2's period opened again once three more have pushed it
 *                 out of memory: read from the disk cache, its rows shown as they are read; first
 *                 rows and every row after the read started (printed, no bar)
 *
 * Options (env): BENCH_ROWS (default 100000), BENCH_RUNS (default 5); BENCH_KEY_ROUNDS=N types the
 * keystrokes N times (the later rounds printed with BENCH_PHASES, not in the bars: the same
 * keystrokes once the page has compiled their code); BENCH_PHASES=1 prints when
 * each step of a run happened; BENCH_CPUPROFILE=<dir> writes CPU profiles of the extension host;
 * BENCH_EXPORTPROFILE=1 prints where the workbench window's main thread spent the export;
 * BENCH_TRACE=<file> / BENCH_TRACE_USE=<file>: a Chromium trace of run 1's load / of its sorts, group-bys and
 * keystrokes. BENCH_FAST_SERVER=1 has the API server render each run's body before the run (see KEEP_BODIES).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startApiServer } from './apiServer';
import { startFrameProfile, webviewHeapMB } from './benchDevtools';
import { writeBenchJson } from './bars';
import { newResults, printSummary } from './benchSummary';
import { addAccount, openDmarcView, runCommand } from '../ui/harness';
import { DAYS, exportAll, fromDisk, KEY, loaded, openAsFile, openRange, ORG, readPerf, userWait } from './panelSteps';
import { cpuSampler, cpuWindow } from './procCpu';

const repoRoot = resolve(__dirname, '../..');
const ROWS = Number(process.env.BENCH_ROWS || 100_000);
const RUNS = Number(process.env.BENCH_RUNS || 5);
/** Days between the runs' ranges: a range, and its previous period (Compare) left alone. */
const SPACING = 2 * DAYS;
/** BENCH_KEY_ROUNDS: how many times the keystrokes are typed (only the first round counts in the bars). */
const KEY_ROUNDS = Math.max(1, Number(process.env.BENCH_KEY_ROUNDS || 1));


/**
 * BENCH_FAST_SERVER=1: the API server renders each run's body before the run and sends it from
 * memory, as fast as the host reads it. By default it renders the rows while it sends them (as
 * when the bars were set), which takes it ~10 s of CPU for a million rows, from the two cores the
 * extension host, the window and the webview share; a hosted API renders on its own machine.
 * Measured both ways: at a million rows the host blocked as long (the host's main thread still
 * waited for a core as long as it ran); at 100k every row came later after the last byte (0.59
 * against 0.37 s) because the last byte came sooner (first byte to every row 2.9 s both ways).
 */
const KEEP_BODIES = Boolean(process.env.BENCH_FAST_SERVER);

async function startServer(rowsPerDay: number): Promise<{ url: string; stop: () => void; keptSent: () => number }> {
  const server = await startApiServer(['--rows-per-day', String(rowsPerDay), '--key', `${KEY}=${ORG}`, ...(KEEP_BODIES ? ['--cache-bodies', '1'] : [])]);
  return { url: server.url, stop: server.stop, keptSent: () => server.out().split('\n').filter((l) => l.startsWith('kept body sent')).length };
}

/** Has the server render the body of the days first..last (as the extension asks for them: utcDayRange) and keep it. */
async function renderBefore(url: string, first: Date, last: Date): Promise<void> {
  const q = new URLSearchParams({ organizationId: ORG, startDate: `${first.toISOString().slice(0, 10)}T00:00:00.000Z`, endDate: `${last.toISOString().slice(0, 10)}T23:59:59.999Z` });
  const res = await fetch(`${url}/api/public/dmarc-records?${q}`, { headers: { authorization: `Bearer ${KEY}` } });
  const reader = res.body!.getReader();
  while (!(await reader.read()).done) { /* the body is only rendered and kept */ }
}

/** Node's kinds of garbage collection pause (perf_hooks NODE_PERFORMANCE_GC_*), as src/perf.ts records them. */
const GC_KINDS: Record<number, string> = { 1: 'scavenge', 4: 'full', 8: 'marking', 16: 'weak' };
/** A collection's pause in the host's trace (src/perf.ts): every full one, the others over 20 ms. */
interface GcMark {
  at: number;
  ms: number;
  kind: number;
  flags?: number;
}
/** NODE_PERFORMANCE_GC_FLAGS_ALL_EXTERNAL_MEMORY: V8 started it because external memory (array buffers) grew. */
const GC_EXTERNAL = 32;
/** How many full collections ended in `gcs`, and how many of them external memory started. */
function fullCollections(gcs: readonly GcMark[]): string {
  const full = gcs.filter((e) => e.kind === 4);
  return `${full.length} (started by external memory: ${full.filter((e) => ((e.flags ?? 0) & GC_EXTERNAL) !== 0).length}; final pauses ${full.map((e) => e.ms).join(', ') || 'none'} ms)`;
}

/** BENCH_PHASES: every process's CPU, sampled through the runs (procCpu.ts cpuSampler). */
let sampler: ReturnType<typeof cpuSampler> | undefined;

/**
 * A loop sample over 100 ms, with the process's CPU time (all its threads) in that 250 ms sample
 * (far less than its length: the host waited for a core), its main thread's time on a core and
 * waiting for one, and the array buffers the host held (each ~64 MB more starts a full collection).
 */
function cpuOf(e: { maxMs?: number; at?: number }): string {
  const d = e as { cpuMs?: number; wallMs?: number; mainRunMs?: number; mainWaitMs?: number; arrayBuffersMB?: number; threads?: string };
  const machine = sampler && e.at !== undefined && d.wallMs !== undefined ? `; ${sampler.between(e.at - d.wallMs, e.at)}` : '';
  const main = `${d.mainRunMs !== undefined ? `, main ran ${d.mainRunMs} waited ${d.mainWaitMs}` : ''}${d.threads ? `, other threads: ${d.threads}` : ''}${d.arrayBuffersMB !== undefined ? `, array buffers ${d.arrayBuffersMB} MB` : ''}${machine}`;
  return (e.maxMs ?? 0) > 100 && d.cpuMs !== undefined ? `(cpu ${d.cpuMs}/${d.wallMs}${main})` : '';
}


async function main(): Promise<void> {
  const launch = await import(pathToFileURL(join(repoRoot, 'test/host/launch.mjs')).href);
  const install = await import(pathToFileURL(join(repoRoot, 'test/host/installHost.mjs')).href);
  (globalThis as { __dmarcHarness?: unknown }).__dmarcHarness = { repoRoot, screenshots: join(repoRoot, 'test-output', 'screenshots'), startHost: launch.startHost, launchBrowser: launch.launchBrowser };
  install.installHost();

  const rowsPerDay = Math.ceil(ROWS / DAYS);
  const server = await startServer(rowsPerDay);
  const tmp = mkdtempSync(join(tmpdir(), 'dmarc-bench-'));
  const perfFile = join(tmp, 'perf.jsonl');
  const host = await launch.startHost({ env: { DMARC_PERF_FILE: perfFile, ...(process.env.BENCH_CPUPROFILE ? { DMARC_PERF_CPUPROFILE: process.env.BENCH_CPUPROFILE } : {}) } });
  const { browser, page } = await launch.launchBrowser({ colorScheme: 'dark' });
  const results = newResults();
  if (process.env.BENCH_PHASES) sampler = cpuSampler();
  try {
    await page.goto(host.workbenchUrl({ extensionPath: repoRoot }));
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await openDmarcView(page);
    await addAccount(page, { label: 'Bench', baseUrl: server.url, key: KEY, orgId: ORG, orgName: 'Bench Org' });

    for (let run = 0; run < RUNS; run++) {
      // A different 7-day range each run, so every run goes to the network; a week apart, so that
      // the previous period Compare fetches is never the next run's range.
      const endDay = new Date(Date.now() - (run * SPACING + 1) * 86_400_000);
      const startDay = new Date(endDay.getTime() - (DAYS - 1) * 86_400_000);
      if (KEEP_BODIES) await renderBefore(server.url, startDay, endDay);
      const keptBefore = server.keptSent();
      const since = Date.now();
      const frame = await openRange(page, startDay, endDay);
      const wvProfile = process.env.BENCH_WVPROFILE ? await startFrameProfile(page, frame) : undefined;
      // BENCH_TRACE=<file>: a Chromium trace of the browser while the rows load (chrome://tracing, Perfetto).
      if (process.env.BENCH_TRACE && run === 0) await browser.startTracing(page, { path: process.env.BENCH_TRACE, categories: ['devtools.timeline', 'toplevel', 'v8', 'blink', 'ipc', 'disabled-by-default-devtools.timeline'] });
      const perf = await loaded(frame);
      if (process.env.BENCH_TRACE && run === 0) await browser.stopTracing();
      if (wvProfile) console.log(await wvProfile());
      const rows = Number((await frame.locator('[data-testid="summary-rows"]').innerText()).replace(/[^\d]/g, ''));
      results.rows = rows;
      if (KEEP_BODIES && server.keptSent() === keptBefore) console.log('  (the API server rendered this body during the run: the range it kept was not the one asked for)');
      const response = readPerf(perfFile).filter((e) => e.event === 'response' && e.at >= since && (e.bytes ?? 0) > 1_000_000).pop();
      if (!response) throw new Error('no response mark in the performance trace');
      results.firstPaint.push(perf.firstPaintAt - response.at);
      // The new measures: from the first byte of the body, and from its last.
      const trace = readPerf(perfFile).filter((e) => e.at >= since);
      const firstByte = trace.filter((e) => e.event === 'firstByte' && e.at <= response.at).pop();
      const created = trace.find((e) => e.event === 'panelCreated');
      const ready = trace.find((e) => e.event === 'panelReady');
      if (!firstByte || !created || !ready) throw new Error('no firstByte / panelCreated / panelReady mark in the performance trace');
      results.afterFirstByte.push(perf.firstPaintAt - firstByte.at);
      results.afterReady.push(perf.firstPaintAt - Math.max(firstByte.at, ready.at));
      results.webviewStart.push(ready.at - created.at);
      results.allRows.push(perf.loadedAt - response.at);
      // End to end: every row in the table after the first byte, and the download between (work
      // moved into the download, on two cores, can slow it: only this sum says the user waits less).
      results.allFromFirstByte.push(perf.loadedAt - firstByte.at);
      results.download.push(response.at - firstByte.at);
      results.bodyMB = (response.bytes ?? 0) / 1048576;
      // The host's CPU until the last byte: the process's, and its main thread's time on a core and
      // waiting for one (the blocks over 100 ms at a million rows were mostly waiting).
      const samples = readPerf(perfFile).filter((e) => e.event === 'loop' && e.at >= since && e.at <= response.at) as unknown as Record<string, number | undefined>[];
      const sum = (k: string): number => samples.reduce((a, e) => a + (e[k] ?? 0), 0);
      const hostCpu = { cpu: sum('cpuMs'), ran: sum('mainRunMs'), waited: sum('mainWaitMs'), gcMinor: sum('gcMinorMs'), gcMajor: sum('gcMajorMs') };
      const heaps = samples.map((e) => e.heapMB ?? 0);
      const buffers = samples.map((e) => e.arrayBuffersMB ?? 0);
      results.mainRan.push(hostCpu.ran);
      results.mainWaited.push(hostCpu.waited);
      if (process.env.BENCH_PHASES) {
        const marks = readPerf(perfFile).filter((e) => e.event !== 'loop' && e.event !== 'gc' && e.at >= since);
        const label = (e: (typeof marks)[number]): string => {
          const d = e as { rows?: number; inFlight?: number; waiting?: number; packed?: number; from?: number; sent?: number; behind?: number };
          if (e.event === 'posted' && d.inFlight !== undefined) return `posted ${d.rows} (${d.inFlight} in flight, ${d.waiting} waiting, ${d.packed ?? 0} packed)`;
          if (e.event === 'resend') return `resend from ${d.from} (${d.sent} sent)`;
          if (e.event === 'pageBehind') return d.behind ? 'page behind' : 'page keeps up';
          return e.event;
        };
        const steps = [...marks.map((e) => [label(e), e.at] as const), ['webviewScript', perf.scriptAt] as const, ['webviewFirstChunk', perf.firstChunkAt] as const, ['webviewFirstPaint', perf.firstPaintAt] as const, [`webviewLastChunk (${perf.queuedAtLast} queued)`, perf.lastChunkAt] as const, ['webviewLoaded', perf.loadedAt] as const]
          .sort((a, b) => a[1] - b[1]);
        console.log(steps.map(([name, at]) => `  ${String(at - response.at).padStart(6)} ms  ${name}`).join('\n'));
        console.log(`  (times above are from the last byte, at ${response.at} ms since the epoch)`);
        const resends = (perf as unknown as { resends?: string[] }).resends ?? [];
        if (resends.length) console.log(`  the page asked again: ${resends.map((r) => r.replace(/@(\d+)$/, (_, t: string) => `@${Number(t) - response.at}`)).join('; ')}`);
        const loops = readPerf(perfFile).filter((e) => e.event === 'loop' && e.at >= since && (e.maxMs ?? 0) > 50);
        console.log(`  loop blocks > 50 ms: ${loops.map((e) => `${e.maxMs}@${e.at - response.at}${cpuOf(e)}`).join(' ')}`);
        console.log(`  host until the last byte: process CPU ${(hostCpu.cpu / 1000).toFixed(1)} s; main thread on a core ${(hostCpu.ran / 1000).toFixed(1)} s, waiting for one ${(hostCpu.waited / 1000).toFixed(1)} s; paused for garbage collection ${(hostCpu.gcMinor / 1000).toFixed(1)} s (scavenges) + ${(hostCpu.gcMajor / 1000).toFixed(1)} s (the rest); heap in use ${heaps[0]} MB at the start, up to ${Math.max(...heaps)} MB; array buffers up to ${Math.max(...buffers)} MB`);
        const gcs = readPerf(perfFile).filter((e) => e.event === 'gc' && e.at >= since) as unknown as GcMark[];
        console.log(`  gc pauses > 20 ms (ms@at kind): ${gcs.filter((e) => e.ms > 20).map((e) => `${e.ms}@${e.at - response.at} ${GC_KINDS[e.kind] ?? `kind ${e.kind}`}`).join(' ')}`);
        console.log(`  full collections until the last byte: ${fullCollections(gcs.filter((e) => e.at <= response.at))}`);
        // The host's own steps (a network read parsed, a chunk encoded) over 40 ms of wall time: beside
        // the blocks above, a step long in itself, or one stretched by a collection or a wait for a core.
        const slow = readPerf(perfFile).filter((e) => e.event === 'slowStep' && e.at >= since) as unknown as { at: number; ms: number; step: string }[];
        console.log(`  host steps > 40 ms (ms@at step): ${slow.map((e) => `${e.ms}@${e.at - response.at} ${e.step}`).join(' ') || 'none'}`);
      }

      // BENCH_TRACE_USE=<file>: a Chromium trace over the sorts, group-bys and keystrokes of run 1.
      const traceUse = process.env.BENCH_TRACE_USE && run === 0;
      if (traceUse) await browser.startTracing(page, { path: process.env.BENCH_TRACE_USE, categories: ['devtools.timeline', 'toplevel', 'blink', 'cc', 'viz', 'gpu', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'disabled-by-default-devtools.timeline.invalidationTracking'] });
      // Sort: click the header, wait two animation frames (the new rows are painted).
      const sortDetail: string[] = [];
      // BENCH_WVPROFILE: a profile of the webview over the sorts too.
      const wvSorts = process.env.BENCH_WVPROFILE ? await startFrameProfile(page, frame) : undefined;
      for (const column of ['emails', 'source', 'date']) {
        // A real click (the browser's input pipeline), timed in the page: see userWait.
        const header = frame.locator(`[data-testid="grid"] [role="columnheader"][data-column="${column}"]`);
        const { ms, inputMs, handler } = await userWait(frame, 'pointerdown', 'firstRow', () => header.click());
        results.sort.push(ms);
        results.sortInput.push(inputMs);
        results.sortHandler.push(handler);
        sortDetail.push(`${column} ${Math.round(ms)} (input→frame ${Math.round(inputMs)}, handler ${Math.round(handler)})`);
      }
      if (process.env.BENCH_PHASES) console.log(`  sorts: ${sortDetail.join(', ')}`);
      if (wvSorts) console.log((await wvSorts()).replace('while loading', 'while sorting'));
      // Group by source, then by IP address: the keystrokes below recompute the groups as well.
      const pick = (testid: string, value: string) =>
        frame.evaluate(async ([id, v]) => {
          const select = document.querySelector<HTMLSelectElement>(`[data-testid="${id}"]`)!;
          const t0 = performance.now();
          select.value = v!;
          select.dispatchEvent(new Event('change', { bubbles: true }));
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          return performance.now() - t0;
        }, [testid, value] as const);
      const groupDetail: string[] = [];
      for (const field of ['ipAddress', 'ipNetwork', 'dkimDomain', 'reporter', 'visibleFrom', 'source']) {
        const ms = await pick('group-by', field);
        results.groupBy.push(ms);
        groupDetail.push(`${field} ${Math.round(ms)}`);
      }
      if (process.env.BENCH_PHASES) console.log(`  group-bys: ${groupDetail.join(', ')}`);
      // Compare: the previous period's rows come (one request, as many rows again), then the same
      // group-bys with the Δ columns, and the sort "biggest drop first".
      const compareAt = Date.now();
      await frame.evaluate(() => document.querySelector<HTMLElement>('[data-testid="compare-toggle"]')!.click());
      await frame.waitForSelector('[data-testid="groups-grid"] [role="columnheader"][data-column="deltaPass"]:not([hidden])', { timeout: 300_000 });
      results.previousIn.push(Date.now() - compareAt);
      const compareDetail: string[] = [];
      for (const field of ['ipAddress', 'ipNetwork', 'dkimDomain', 'reporter', 'visibleFrom', 'source']) {
        const ms = await pick('group-by', field);
        results.groupByCompare.push(ms);
        compareDetail.push(`${field} ${Math.round(ms)}`);
      }
      const dropMs = await frame.evaluate(async () => {
        const h = document.querySelector<HTMLElement>('[data-testid="groups-grid"] [role="columnheader"][data-column="deltaPass"]')!;
        const t0 = performance.now();
        h.click();
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return performance.now() - t0;
      });
      results.groupByCompare.push(dropMs);
      if (process.env.BENCH_PHASES) console.log(`  compare: previous period in ${results.previousIn.at(-1)} ms; group-bys ${compareDetail.join(', ')}, biggest drop first ${Math.round(dropMs)}`);
      // Off again: the keystrokes below are measured as before.
      await frame.evaluate(() => document.querySelector<HTMLElement>('[data-testid="compare-toggle"]')!.click());
      await pick('then-by', 'ipAddress');
      // Filter: one keystroke at a time (the search runs in the input handler), until the next
      // frame is painted; then check the summary really changed.
      let previous = -1;
      const keyDetail: string[] = [];
      // BENCH_WVPROFILE: a second profile of the webview, over the keystrokes.
      const wvInteract = process.env.BENCH_WVPROFILE ? await startFrameProfile(page, frame) : undefined;
      const search = frame.locator('[data-testid="search"]');
      await search.focus();
      for (let round = 0; round < KEY_ROUNDS; round++) for (const text of ['m', 'mi', 'mic', 'micr', '']) {
        // Rounds after the first (BENCH_KEY_ROUNDS): the same keystrokes again, printed apart and
        // not counted in the bars (the code they run compiled by then, as after a while of use).
        const again = round > 0;
        if (again && text === 'm') previous = -1;
        // Real keys (the last clears the box: Ctrl+A, then Backspace is the keystroke timed).
        if (text === '') await page.keyboard.press('Control+A');
        const key = text === '' ? 'Backspace' : text.at(-1)!;
        const cpu = process.env.BENCH_PHASES ? cpuWindow() : undefined;
        const { ms, inputMs, handler: compute, search: searchMs, shown } = await userWait(frame, 'keydown', 'rowCount', () => page.keyboard.press(key));
        const used = cpu?.();
        if ((await search.inputValue()) !== text) throw new Error(`the search box holds "${await search.inputValue()}", not "${text}"`);
        if (!again) results.filterCompute.push(compute);
        if (!again) results.filterInput.push(inputMs);
        // The Advice follows once the frame is painted, with the trend and groups (analysis.ts `later`).
        const advice = await frame.evaluate(async () => {
          await new Promise((r) => setTimeout(r, 250));
          const p = (window as unknown as { __dmarcPerf: { lastAdviceMs?: number | null } }).__dmarcPerf;
          const ms = p.lastAdviceMs;
          p.lastAdviceMs = null;
          return ms ?? null;
        });
        if (advice !== null && !again) results.advice.push(advice);
        if (shown === previous && text !== '') throw new Error(`the search "${text}" did not change the rows (${shown})`);
        previous = shown;
        if (!again) results.filter.push(ms);
        keyDetail.push(`${again && text === 'm' ? `(round ${round + 1}) ` : ''}"${text}" ${Math.round(ms)} (input→frame ${Math.round(inputMs)}, handler ${Math.round(compute)} of which search ${Math.round(searchMs)}, ${shown} rows${used ? `; ${used}` : ''})`);
      }
      if (process.env.BENCH_PHASES) console.log(`  keystrokes: ${keyDetail.join(', ')}`);
      if (wvInteract) console.log((await wvInteract()).replace('while loading', 'while filtering'));
      if (traceUse) await browser.stopTracing();
      // DOM size at several scroll positions.
      for (const at of [0, 0.25, 0.5, 0.75, 1]) {
        results.domRows.push(await frame.evaluate(async (fraction) => {
          const scroller = document.querySelector<HTMLElement>('[data-testid="grid"]')!;
          scroller.scrollTop = (scroller.scrollHeight - scroller.clientHeight) * fraction;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          return document.querySelectorAll('.row').length;
        }, at));
      }
      await page.waitForTimeout(600);
      if (process.env.BENCH_PHASES) {
        // Everything after the last byte: what blocked the host, and the marks around it.
        const after = readPerf(perfFile).filter((e) => e.at >= response.at && (e.event !== 'loop' || (e.maxMs ?? 0) > 100) && (e.event !== 'gc' || (e as { ms?: number }).ms! > 50 || ((e as { kind?: number }).kind === 4 && (((e as { flags?: number }).flags ?? 0) & GC_EXTERNAL) !== 0)));
        console.log(`  full collections after the last byte: ${fullCollections(readPerf(perfFile).filter((e) => e.event === 'gc' && e.at > response.at) as unknown as GcMark[])}`);
        console.log(`  after the last byte: ${after.map((e) => `${e.event}${e.event === 'gc' && (((e as { flags?: number }).flags ?? 0) & GC_EXTERNAL) !== 0 ? '(external)' : ''}${e.event === 'loop' ? ` ${e.maxMs}ms${cpuOf(e)}` : ''}${'ms' in e && e.event !== 'loop' ? ` ${(e as { ms?: number }).ms}ms` : ''}${'rows' in e ? ` ${e.rows}r` : ''}@${e.at - response.at}`).join(' ')}`);
      }
      // Heaps after the load (and the sorts, filters and groupings above).
      // The live heap: measured by the host after a full garbage collection, asked for now (src/perf.ts).
      writeFileSync(`${perfFile}.heap`, '');
      let live: { heapMB?: number } | undefined;
      for (const until = Date.now() + 15_000; !(live = readPerf(perfFile).filter((e) => e.event === 'heapLive' && e.at >= since).pop()); await page.waitForTimeout(200)) {
        if (Date.now() > until) throw new Error('no heapLive mark in the performance trace');
      }
      results.hostHeap.push(live.heapMB ?? NaN);
      // Host blocked, before, during and after the load, but not by the bench's own forced full
      // GC for the live heap (between its heapProbe and heapLive marks; the sample that reports
      // it comes right after heapLive): printed apart.
      await page.waitForTimeout(600);
      const traceNow = readPerf(perfFile);
      const probeAt = traceNow.filter((e) => e.event === 'heapProbe' && e.at >= since).pop()?.at ?? Infinity;
      const liveAt = (live as { at?: number }).at ?? Infinity;
      const loops = traceNow.filter((e) => e.event === 'loop' && e.at >= since);
      const inProbe = (e: { at: number }) => e.at >= probeAt && e.at <= liveAt + 500;
      results.hostBlocked.push(Math.max(0, ...loops.filter((e) => !inProbe(e)).map((e) => e.maxMs ?? 0)));
      const probeBlock = Math.max(0, ...loops.filter(inProbe).map((e) => e.maxMs ?? 0));
      if (probeBlock > 100) console.log(`  (the heap probe's forced full GC blocked the host ${probeBlock} ms: not counted)`);
      // What the webview holds: its JS heap after a garbage collection (what is left is live), and
      // the typed arrays the rows and caches hold (outside that heap, uncounted by performance.memory).
      results.webviewHeap.push(await webviewHeapMB(page, frame));
      // The export bar is for 100k rows; above 200k rows an export goes to a file (a save dialog).
      const exported = rows <= 200_000 && !process.env.BENCH_SKIP_EXPORT ? await exportAll(page, frame, perfFile, rows) : { ms: NaN, firstMs: NaN, lines: 0, blocked: NaN };
      if (rows <= 200_000 && !process.env.BENCH_SKIP_EXPORT) {
        results.exportJson.push(exported.ms);
        results.exportFirst.push(exported.firstMs);
        results.exportBlocked.push(exported.blocked);
        results.exportLines = exported.lines;
        // Run 1: the floor the test host sets, the same rows opened as a file by VS Code alone.
        // A reference, no bar: should VS Code's own editor not open the file, the run goes on.
        if (run === 0) await openAsFile(page, server.url, startDay, endDay, tmp, perfFile).catch(async (err: Error) => {
          console.log(`  (the same rows opened as a file by VS Code alone: not measured, ${err.message.split('\n')[0]})`);
          await runCommand(page, 'View: Close All Editors');
        });
      }
      console.log(`run ${run + 1}/${RUNS}: first rows ${Math.round(results.afterFirstByte.at(-1)!)} ms after the first byte (${Math.round(results.afterReady.at(-1)!)} ms after the webview was ready; its start ${results.webviewStart.at(-1)} ms), every row ${Math.round(results.allRows.at(-1)!)} ms after the last byte, heaps: host ${results.hostHeap.at(-1)} MB, webview ${Math.round(results.webviewHeap.at(-1)!)} MB`);
      console.log(`run ${run + 1}/${RUNS}: ${rows} rows, first paint ${Math.round(results.firstPaint.at(-1)!)} ms after the response, host blocked ≤ ${results.hostBlocked.at(-1)} ms, export JSON ${exported.ms} ms (its tab showed the first rows at ${exported.firstMs} ms; ${exported.lines} lines, host blocked ≤ ${exported.blocked} ms)`);
      await runCommand(page, 'View: Close All Editors');
      await page.waitForTimeout(500);
    }
    // Run 2's period (settled, written to disk) has left memory once three more were loaded: opened
    // again, it is read from the disk cache, its rows shown as they are read.
    if (RUNS >= 5) await fromDisk(page, perfFile, new Date(Date.now() - (SPACING + 1) * 86_400_000));
  } finally {
    await browser.close().catch(() => undefined);
    await host.close();
    server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }

  const bars = await printSummary(results, RUNS, KEEP_BODIES);
  writeBenchJson(`panel ${Math.round(results.rows / 1000)}k`, { bars: bars.filter((b) => Number.isFinite(b.limit)).map((b) => ({ ...b, name: `panel ${Math.round(results.rows / 1000)}k: ${b.name.trim()}` })) });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
