/**
 * `npm run bench:overview`: the Overview of all organizations over 50 organizations with ~2,000
 * rows each in the last 30 days (and as many in the 30 before, which the same request brings),
 * from the local API server, in the real VS Code test host driven through headless Chromium. A
 * benchmark, not a test: it prints medians of BENCH_RUNS runs (default 3) against issue 42's bars.
 *
 *   first rows    the first organization's row on screen, after the first API response finished
 *                 arriving in the extension host (bar 1 s)
 *   complete      every row on screen, from the click on the command in the palette (bar 5 s)
 *   host blocked  the longest the extension host's event loop was blocked from the click until
 *                 every row was on screen (bar 100 ms; src/perf.ts samples it every 250 ms)
 *                 (after rdy): after the page was ready, when it was not by then; (wv start): when
 *                 it was, after the click (printed, no bar: VS Code's start of a webview)
 *   second open   the Overview closed and opened again: requests it sent (bar 0), its time until
 *                 every row was on screen (printed, no bar) and the host's longest block (bar 100 ms)
 *
 * Each run starts cold: Update API Key (the same key) drops the account's cached periods, as a
 * new key does. The 50 organizations are added once, through the palette, as a user would.
 * The API server runs in a process of its own (this file, with --serve), so its rendering of the
 * bodies is not on the bench's event loop; BENCH_FAST_SERVER=1 has it render every body before
 * the runs and send the kept bytes (a hosted API renders on its own machine, not on the user's).
 * Options (env): BENCH_RUNS (default 3), BENCH_ORGS (default 50), BENCH_ROWS (rows per
 * organization in 30 days, default 2000), BENCH_PHASES=1 (when each response and row came, the
 * host's blocks and garbage collections), BENCH_CONCURRENCY (dmarc.overview.concurrency, default
 * the setting's default).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Frame, Page } from 'playwright-core';
import { API_PATH, startApiServer } from '../server/server';
import { median } from './benchSummary';
import { addAccount, answer, findWebviewFrame, openDmarcView, openPalette, runCommand } from '../ui/harness';

const repoRoot = resolve(__dirname, '../..');
const RUNS = Number(process.env.BENCH_RUNS || 3);
const ORGS = Number(process.env.BENCH_ORGS || 50);
const ROWS = Number(process.env.BENCH_ROWS || 2000);
const KEY = 'bench-overview-key-1';
const orgIds = Array.from({ length: ORGS }, (_, i) => `bench-org-${String(i + 1).padStart(2, '0')}`);
const TITLE = 'DMARC: Open Overview of All Organizations';

// ---- the API server's process ----------------------------------------------------------------

async function serve(): Promise<void> {
  const keep = Boolean(process.env.BENCH_FAST_SERVER);
  const server = await startApiServer({ keys: { [KEY]: orgIds }, rowsPerDay: Math.ceil(ROWS / 30), ...(keep ? { cacheBodies: ORGS * 2 } : {}) });
  let since = 0;
  process.on('message', (m: { type: string; id?: number; url?: string }) => {
    if (m.type === 'mark') since = server.requests.length;
    if (m.type === 'count') {
      const list = server.requests.slice(since).filter((r) => r.path === API_PATH);
      process.send!({ type: 'count', id: m.id, count: list.length, orgs: new Set(list.map((r) => r.query.organizationId)).size, kept: list.filter((r) => r.kept).length });
    }
    if (m.type === 'stop') void server.close().then(() => process.exit(0));
  });
  process.send!({ type: 'url', url: server.url });
}

interface ServerHandle {
  url: string;
  /** Requests are counted from now on. */
  mark(): void;
  count(): Promise<{ count: number; orgs: number; kept: number }>;
  stop(): void;
}

async function startServer(): Promise<ServerHandle> {
  const child: ChildProcess = fork(__filename, ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((res, rej) => {
    child.once('message', (m: { url: string }) => res(m.url));
    child.once('exit', () => rej(new Error('the API server exited')));
  });
  let id = 0;
  return {
    url,
    mark: () => child.send({ type: 'mark' }),
    count: () => new Promise((res) => {
      const mine = ++id;
      const on = (m: { type: string; id: number; count: number; orgs: number; kept: number }) => {
        if (m.type !== 'count' || m.id !== mine) return;
        child.off('message', on);
        res(m);
      };
      child.on('message', on);
      child.send({ type: 'count', id: mine });
    }),
    stop: () => child.send({ type: 'stop' }),
  };
}

// ---- the extension's trace -------------------------------------------------------------------

type Mark = { event: string; at: number; maxMs?: number; bytes?: number };

function readPerf(file: string): Mark[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Mark);
}

interface PagePerf {
  scriptAt: number;
  firstRowAt: number | null;
  completeAt: number | null;
  rows: number;
  csp: string[];
}

/** Runs the command from the palette; the time of the click on it. */
async function openOverview(page: Page): Promise<number> {
  await openPalette(page, TITLE);
  const item = page.locator('.quick-input-list .monaco-list-row', { hasText: TITLE }).first();
  await item.waitFor({ state: 'visible' });
  const t0 = Date.now();
  await item.click();
  return t0;
}

/** The page's own times once every row is on screen (polled every 250 ms, so polling costs the cores little). */
async function complete(page: Page): Promise<{ frame: Frame; perf: PagePerf }> {
  const frame = await findWebviewFrame(page, '[data-testid="overview"]', 120_000);
  await frame.waitForFunction(() => (window as unknown as { __dmarcOverview?: PagePerf }).__dmarcOverview?.completeAt, undefined, { timeout: 180_000, polling: 250 });
  return { frame, perf: await frame.evaluate(() => (window as unknown as { __dmarcOverview: PagePerf }).__dmarcOverview) };
}

async function main(): Promise<void> {
  const launch = await import(pathToFileURL(join(repoRoot, 'test/host/launch.mjs')).href);
  const install = await import(pathToFileURL(join(repoRoot, 'test/host/installHost.mjs')).href);
  (globalThis as { __dmarcHarness?: unknown }).__dmarcHarness = { repoRoot, screenshots: join(repoRoot, 'test-output', 'screenshots'), startHost: launch.startHost, launchBrowser: launch.launchBrowser };
  install.installHost();

  const server = await startServer();
  const tmp = mkdtempSync(join(tmpdir(), 'dmarc-bench-overview-'));
  const perfFile = join(tmp, 'perf.jsonl');
  const concurrency = process.env.BENCH_CONCURRENCY ? { 'dmarc.overview.concurrency': Number(process.env.BENCH_CONCURRENCY) } : {};
  const host = await launch.startHost({ env: { DMARC_PERF_FILE: perfFile }, userSettings: concurrency });
  const { browser, page } = await launch.launchBrowser({ colorScheme: 'dark' });
  const r = { mainRan: [] as number[], mainWaited: [] as number[], gcMax: [] as number[], webviewStart: [] as number[], afterReady: [] as number[], firstRows: [] as number[], complete: [] as number[], blocked: [] as number[], secondRequests: [] as number[], secondComplete: [] as number[], secondBlocked: [] as number[], firstRequests: [] as number[] };
  try {
    await page.goto(host.workbenchUrl({ extensionPath: repoRoot }));
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await openDmarcView(page);
    const setupAt = Date.now();
    await addAccount(page, { label: 'Bench', baseUrl: server.url, key: KEY, orgId: orgIds[0]!, orgName: 'Bench 01' });
    for (const [i, id] of orgIds.entries()) {
      if (i === 0) continue;
      await runCommand(page, 'DMARC: Add Organization…');
      await answer(page, id);
      await answer(page, `Bench ${String(i + 1).padStart(2, '0')}`);
    }
    // The tree shows only the rows that fit: the Overview's first run counts them all (below).
    await page.waitForTimeout(1000);
    console.log(`${ORGS} organizations added through the palette in ${Math.round((Date.now() - setupAt) / 1000)} s`);
    if (process.env.BENCH_FAST_SERVER) {
      // Every body rendered once and kept: the runs get the kept bytes.
      await openOverview(page);
      await complete(page);
      await runCommand(page, 'View: Close All Editors');
    }

    for (let run = 0; run < RUNS; run++) {
      // Cold: Update API Key (the same key) drops what the store holds of the account.
      await runCommand(page, 'DMARC: Update API Key…');
      await answer(page, KEY);
      // Once the key was checked against every organization (50 requests of one day) and saved.
      await page.locator('.statusbar', { hasText: 'API key of Bench updated' }).waitFor({ state: 'visible', timeout: 120_000 });
      await page.waitForTimeout(1000);
      server.mark();
      const t0 = await openOverview(page);
      const { frame, perf } = await complete(page);
      if (perf.csp.length) throw new Error(`CSP violations: ${perf.csp.join('; ')}`);
      await page.waitForTimeout(600); // the loop sample after the last row
      const trace = readPerf(perfFile).filter((e) => e.at >= t0);
      const response = trace.find((e) => e.event === 'response');
      if (!response || perf.firstRowAt === null || perf.completeAt === null) throw new Error('no response mark in the trace, or no row on screen');
      const requests = await server.count();
      r.firstRequests.push(requests.count);
      r.firstRows.push(perf.firstRowAt - response.at);
      // When the page was ready for rows: the first rows cannot come before it (VS Code starts a webview in 0.5–1.5 s here).
      // When the page's script started: the first rows cannot come before it (VS Code starts a webview in 0.5–1.5 s here).
      r.webviewStart.push(perf.scriptAt - t0);
      r.afterReady.push(perf.firstRowAt - Math.max(perf.scriptAt, response.at));
      if (process.env.BENCH_PHASES) {
        const responses = trace.filter((e) => e.event === 'response');
        const rows = trace.filter((e) => e.event === 'overviewRow');
        console.log(`  responses (ms after the click: took ms, KB): ${responses.map((e) => `${e.at - t0}:${(e as { ms?: number }).ms}/${Math.round((e.bytes ?? 0) / 1024)}`).join(' ')}`);
        console.log(`  rows posted (ms after the click): ${rows.map((e) => e.at - t0).join(' ')}`);
        console.log(`  loop blocks > 50 ms (ms@after the click): ${trace.filter((e) => e.event === 'loop' && (e.maxMs ?? 0) > 50 && e.at <= perf.completeAt! + 500).map((e) => `${e.maxMs}@${e.at - t0}`).join(' ')}`);
        console.log(`  gc pauses > 20 ms (ms@after the click): ${trace.filter((e) => e.event === 'gc' && e.at <= perf.completeAt! + 500).map((e) => `${(e as { ms?: number }).ms}@${e.at - t0}`).join(' ')}`);
      }
      r.complete.push(perf.completeAt - t0);
      const loops = trace.filter((e) => e.event === 'loop' && e.at <= perf.completeAt! + 500) as (Mark & { mainRunMs?: number; mainWaitMs?: number })[];
      r.blocked.push(Math.max(0, ...loops.map((e) => e.maxMs ?? 0)));
      // The host's main thread meanwhile: on a core, and ready to run but waiting for one (Linux schedstat).
      r.mainRan.push(loops.reduce((a, e) => a + (e.mainRunMs ?? 0), 0));
      r.mainWaited.push(loops.reduce((a, e) => a + (e.mainWaitMs ?? 0), 0));
      r.gcMax.push(Math.max(0, ...trace.filter((e) => e.event === 'gc' && e.at <= perf.completeAt! + 500).map((e) => (e as { ms?: number }).ms ?? 0)));
      const rowsShown = await frame.locator('tr[data-state="loaded"]').count();
      if (rowsShown !== ORGS) throw new Error(`${rowsShown} rows loaded of ${ORGS}`);
      // The second open: from memory, no request.
      await runCommand(page, 'View: Close All Editors');
      await page.waitForTimeout(300);
      server.mark();
      const t1 = await openOverview(page);
      const second = await complete(page);
      r.secondComplete.push(second.perf.completeAt! - t1);
      r.secondRequests.push((await server.count()).count);
      await page.waitForTimeout(600);
      r.secondBlocked.push(Math.max(0, ...readPerf(perfFile).filter((e) => e.event === 'loop' && e.at >= t1 && e.at <= second.perf.completeAt! + 500).map((e) => e.maxMs ?? 0)));
      console.log(`run ${run + 1}/${RUNS}: ${requests.count} requests for ${requests.orgs} organizations${requests.kept ? ` (${requests.kept} kept bodies)` : ''}; first rows ${r.firstRows.at(-1)} ms after the first response (${response.at - t0} ms after the click), every row ${r.complete.at(-1)} ms after the click, host blocked ≤ ${r.blocked.at(-1)} ms; second open: ${r.secondRequests.at(-1)} requests, every row ${r.secondComplete.at(-1)} ms, host blocked ≤ ${r.secondBlocked.at(-1)} ms`);
      await runCommand(page, 'View: Close All Editors');
    }
  } finally {
    await browser.close().catch(() => undefined);
    await host.close();
    server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }

  const line = (name: string, xs: number[], bar: number, unit: string, met?: boolean) => {
    const m = median(xs);
    const verdict = bar === Infinity && met === undefined ? '' : (met ?? m <= bar) ? 'met' : 'MISSED';
    console.log(`${name.padEnd(16)} ${String(Math.round(m)).padStart(7)} ${String(Math.round(Math.max(...xs))).padStart(7)} ${(bar === Infinity ? '' : String(bar)).padStart(6)} ${unit.padEnd(5)} ${verdict}`);
  };
  console.log(`\noverview bench — ${ORGS} organizations × ~${ROWS} rows in 30 days (one request each for 60 days), ${RUNS} runs, medians (API server bodies ${process.env.BENCH_FAST_SERVER ? 'rendered before the runs' : 'rendered during the runs'}; machine: ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the end; see test/bench/benchOverview.ts)`);
  console.log(`${'measure'.padEnd(16)} ${'median'.padStart(7)} ${'worst'.padStart(7)} ${'bar'.padStart(6)}`);
  // As bench:panel reads its bar: met when the first rows come ≤ 1 s after the first response or,
  // where the page's script had not started by then, ≤ 150 ms after it did.
  const firstMet = median(r.firstRows) <= 1000 || median(r.afterReady) <= 150;
  line('first rows', r.firstRows, 1000, 'ms', firstMet);
  line('  (after rdy)', r.afterReady, 150, 'ms', firstMet);
  line('  (wv start)', r.webviewStart, Infinity, 'ms');
  line('complete', r.complete, 5000, 'ms');
  line('host blocked', r.blocked, 100, 'ms');
  line('  (main ran)', r.mainRan, Infinity, 'ms');
  line('  (waited)', r.mainWaited, Infinity, 'ms');
  line('  (gc max)', r.gcMax, Infinity, 'ms');
  line('requests', r.firstRequests, ORGS, 'req');
  line('2nd open reqs', r.secondRequests, 0, 'req');
  line('  (2nd complete)', r.secondComplete, Infinity, 'ms');
  line('  (2nd blocked)', r.secondBlocked, 100, 'ms');
}

if (process.argv.includes('--serve')) {
  serve().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
