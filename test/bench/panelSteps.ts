/**
 * The steps bench:panel (benchPanel.ts) takes in VS Code and the page, and how it reads their
 * times: a real input waited for until the frame showing its result, a range opened, the rows in,
 * the disk cache read, every row exported, the same rows opened as a file.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { startWindowProfile } from './benchDevtools';
import { answer, choose, findWebviewFrame, openPalette, runCommand } from '../ui/harness';

/** Days in each run's range. */
export const DAYS = 7;
export const KEY = 'bench-key-1';
export const ORG = 'org-bench';

/** The extension host's perf marks (DMARC_PERF_FILE), one JSON line each. */
export function readPerf(file: string): { event: string; at: number; maxMs?: number; bytes?: number; heapMB?: number }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/**
 * What the user waits for after a real input (`act`: a Playwright click or key press, through the
 * browser's input pipeline, not an event made in the page), timed in the page:
 *   ms       from the input's handling (its first listener, capture phase) to the frame painted
 *            with the result — the bars' measure;
 *   inputMs  from the input event's own time stamp (when the browser took it in: the wait for a
 *            busy page included) to that same frame;
 *   handler  the page's own time in its handler (__dmarcPerf.lastSortMs / lastFilterMs).
 * "The result": the page's handler has run (it renders the table and the count before it
 * returns), or the first row is another row or a header's sort arrow moved (a sort), or the row
 * count changed (a search; `shown` is the count) — whichever comes first. Every animation frame
 * looks; the first task after the frame that saw it marks the end (that frame is painted by then;
 * a second animation frame would wait for what the page queued after it too: the trend and groups
 * that follow a keystroke, timed as `advice` and `group-by`). A result that never shows (10 s) throws.
 */
export async function userWait(frame: Frame, input: 'pointerdown' | 'keydown', result: 'firstRow' | 'rowCount', act: () => Promise<void>): Promise<{ ms: number; inputMs: number; handler: number; search: number; shown: number }> {
  await frame.evaluate(([inputType, what]) => {
    const perf = (window as unknown as { __dmarcPerf: { lastSortMs: number | null; lastFilterMs: number | null } }).__dmarcPerf;
    perf.lastSortMs = null;
    perf.lastFilterMs = null;
    const probe = (): string =>
      what === 'firstRow'
        ? `${document.querySelector<HTMLElement>('[data-testid="grid"] .row[aria-rowindex="2"]')?.dataset.index ?? ''} ${Array.from(document.querySelectorAll('[data-testid="grid"] [role="columnheader"]'), (h) => h.getAttribute('aria-sort')).join()}`
        : (document.querySelector('[data-testid="summary-rows"]')?.getAttribute('data-value') ?? '');
    const before = probe();
    const w = { inputAt: NaN, handledAt: NaN, shownAt: NaN, shown: NaN, done: false };
    (window as unknown as { __userWait: typeof w }).__userWait = w;
    document.addEventListener(inputType!, (e) => {
      w.inputAt = e.timeStamp;
      w.handledAt = performance.now();
    }, { capture: true, once: true });
    const deadline = performance.now() + 10_000;
    const look = (): void => {
      const handled = (what === 'firstRow' ? perf.lastSortMs : perf.lastFilterMs) !== null;
      if (!Number.isNaN(w.inputAt) && (handled || probe() !== before)) {
        w.shown = what === 'rowCount' ? Number(probe()) : NaN;
        // The first task after this frame: it is painted by then.
        setTimeout(() => {
          w.shownAt = performance.now();
          w.done = true;
        }, 0);
      } else if (performance.now() > deadline) w.done = true;
      else requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  }, [input, result] as const);
  await act();
  await frame.waitForFunction(() => (window as unknown as { __userWait: { done: boolean } }).__userWait.done, undefined, { timeout: 15_000, polling: 50 });
  const w = await frame.evaluate(() => {
    const u = (window as unknown as { __userWait: { inputAt: number; handledAt: number; shownAt: number; shown: number } }).__userWait;
    const p = (window as unknown as { __dmarcPerf: { lastSortMs: number | null; lastFilterMs: number | null; lastSearchMs?: number } }).__dmarcPerf;
    return { ...u, handler: p.lastSortMs ?? p.lastFilterMs ?? NaN, search: p.lastSearchMs ?? NaN };
  });
  if (Number.isNaN(w.shownAt)) throw new Error(`the ${input} did not show its result within 10 s`);
  return { ms: w.shownAt - w.handledAt, inputMs: w.shownAt - w.inputAt, handler: w.handler, search: w.search, shown: w.shown };
}

/** Fetch Records for Date Range… for these days (one organization: it goes straight to the range); the panel's webview. */
export async function openRange(page: Page, startDay: Date, endDay: Date): Promise<Frame> {
  await runCommand(page, 'DMARC: Fetch Records for Date Range…');
  await choose(page, 'Custom range…');
  await answer(page, startDay.toISOString().slice(0, 10));
  await answer(page, endDay.toISOString().slice(0, 10));
  return findWebviewFrame(page, '[data-testid="records-panel"]', 120_000);
}

/**
 * The page's own times once every row is in. Polled every 250 ms, not every frame (Playwright's
 * default): the page stamps both times itself, and a predicate run in each animation frame kept
 * the webview, the window and the compositor producing frames for the whole load, on the cores
 * the host needs.
 */
export async function loaded(frame: Frame): Promise<Record<string, number>> {
  await frame.waitForFunction(() => {
    const p = (window as unknown as { __dmarcPerf?: { firstPaintAt?: number; loadedAt?: number } }).__dmarcPerf;
    return p?.firstPaintAt && p?.loadedAt;
  }, undefined, { timeout: 120_000, polling: 250 });
  return frame.evaluate(() => (window as unknown as { __dmarcPerf: Record<string, number> }).__dmarcPerf);
}

/** Opens the 7 days ending `endDay` again and prints how soon the rows read from the disk cache were shown. */
export async function fromDisk(page: Page, perfFile: string, endDay: Date): Promise<void> {
  const startDay = new Date(endDay.getTime() - (DAYS - 1) * 86_400_000);
  const since = Date.now();
  const perf = await loaded(await openRange(page, startDay, endDay));
  const trace = readPerf(perfFile).filter((e) => e.at >= since);
  const start = trace.find((e) => e.event === 'diskReadStart');
  const read = trace.find((e) => e.event === 'diskRead');
  const ready = trace.find((e) => e.event === 'panelReady');
  const created = trace.find((e) => e.event === 'panelCreated');
  if (!start || !read || !ready || !created) {
    console.log(`from disk: the period was not read from the disk cache (${trace.some((e) => e.event === 'response') ? 'fetched' : 'in memory'})`);
    return;
  }
  const t0 = Math.max(start.at, ready.at);
  console.log(`from disk: ${(read as { rows?: number }).rows} rows; first rows ${perf.firstPaintAt - created.at} ms after the panel was created (${perf.firstPaintAt - t0} after the read started or the webview was ready), every row ${perf.loadedAt - created.at} ms (${perf.loadedAt - t0}); the read took ${read.at - start.at} ms, the webview's start ${ready.at - created.at} ms`);
  await runCommand(page, 'View: Close All Editors');
}

/**
 * Selects every row (Ctrl+A in the grid) and runs Export Selected Rows to JSON from the palette;
 * the time runs from the click on the command until the extension host has the document open in
 * its tab (its perf mark), and that document must hold one line per row.
 */
export async function exportAll(page: Page, frame: Frame, perfFile: string, rows: number): Promise<{ ms: number; firstMs: number; lines: number; blocked: number }> {
  await frame.locator('.row:visible').first().click();
  await page.keyboard.press('Control+A');
  await frame.locator(`[data-testid="selected-count"][data-value="${rows}"]`).waitFor({ timeout: 30_000 });
  const title = 'DMARC: Export Selected Rows to JSON';
  await openPalette(page, title);
  const item = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await item.waitFor({ state: 'visible' });
  const profile = process.env.BENCH_EXPORTPROFILE ? await startWindowProfile(page) : undefined;
  const t0 = Date.now();
  if (process.env.BENCH_DEBUG) console.log(`  palette items: ${(await page.locator('.quick-input-list .monaco-list-row').allInnerTexts()).join(' | ')}`);
  await item.click();
  if (process.env.BENCH_DEBUG) {
    await page.waitForTimeout(3000);
    await page.screenshot({ path: '/tmp/bench-export.png' });
  }
  const deadline = t0 + 180_000;
  let shown: { at: number; rows?: number; lines?: number } | undefined;
  while (!(shown = readPerf(perfFile).find((e) => e.event === 'exportShown' && e.at >= t0))) {
    if (Date.now() > deadline) {
      const marks = readPerf(perfFile).filter((e) => e.event.startsWith('export') && e.at >= t0);
      throw new Error(`the export did not open within 3 minutes (marks: ${marks.map((e) => `${e.event} +${e.at - t0}`).join(', ') || 'none'})`);
    }
    await page.waitForTimeout(20);
  }
  if (profile) console.log(await profile());
  if (process.env.BENCH_PHASES) {
    const marks = readPerf(perfFile).filter((e) => e.event.startsWith('export') && e.at >= t0);
    console.log(`  export (from the command, at ${t0} ms since the epoch): ${marks.map((e) => `${e.event} +${e.at - t0}`).join(', ')}`);
    const loops = readPerf(perfFile).filter((e) => e.event === 'loop' && e.at >= t0 && e.at <= shown!.at + 300 && (e.maxMs ?? 0) > 50);
    console.log(`  export loop blocks > 50 ms: ${loops.map((e) => `${e.maxMs}@+${e.at - t0}`).join(' ')}`);
  }
  const lines = Number(shown.lines);
  if (Number(shown.rows) !== rows) throw new Error(`exported ${shown.rows} rows, not ${rows}`);
  // `[`, one line per row, `]`, and the empty line after the final line break.
  if (lines < rows) throw new Error(`the exported document has ${lines} lines for ${rows} rows`);
  // The loop samples cover 250 ms each: wait for the one after the export, then take the worst.
  await page.waitForTimeout(600);
  const blocked = Math.max(0, ...readPerf(perfFile).filter((e) => e.event === 'loop' && e.at >= t0 && e.at <= shown!.at + 300).map((e) => e.maxMs ?? 0));
  // Close the untitled export without a save prompt: brought to the front first (a panel narrower
  // than 1,440 px, as here, opens it as a tab behind itself), then reverted and closed.
  await page.locator('.tab', { hasText: /dmarc-.*\.json/ }).first().click();
  await page.locator('.tab.active', { hasText: /dmarc-.*\.json/ }).first().waitFor();
  await runCommand(page, 'View: Revert and Close Editor');
  await page.waitForTimeout(300);
  const first = readPerf(perfFile).find((e) => e.event === 'exportFirstShown' && e.at >= t0);
  return { ms: shown.at - t0, firstMs: first ? first.at - t0 : NaN, lines, blocked };
}

/**
 * What VS Code itself takes, in this host, to show a document the size of the export: the rows of
 * the range (as the API sent them, one per line inside the array, as the export writes them) are
 * written to a file, which is opened with File: Open File… — no code of the extension's on the
 * way. Timed from Enter in the file dialog until the editor shows the file (the cursor's position
 * in the status bar), then checked whole (Ctrl+End goes to its last line). A reference for the
 * export bar: printed, no bar of its own.
 */
export async function openAsFile(page: Page, url: string, first: Date, last: Date, dir: string, perfFile: string): Promise<void> {
  const q = new URLSearchParams({ organizationId: ORG, startDate: `${first.toISOString().slice(0, 10)}T00:00:00.000Z`, endDate: `${last.toISOString().slice(0, 10)}T23:59:59.999Z` });
  const res = await fetch(`${url}/api/public/dmarc-records?${q}`, { headers: { authorization: `Bearer ${KEY}` } });
  const body = (await res.json()) as { dmarcRecords: unknown[] };
  const file = join(dir, 'export-as-file.json');
  writeFileSync(file, `[\n${body.dmarcRecords.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);
  const chars = readFileSync(file, 'utf8').length;
  await runCommand(page, 'File: Open File...');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.press('Control+A');
  await page.keyboard.insertText(file);
  await page.waitForTimeout(500);
  const position = page.locator('[id="status.editor.selection"]');
  let t0 = Date.now();
  await input.press('Enter');
  // VS Code in a browser does not show a file this large until asked to ("Open Anyway").
  const anyway = page.getByRole('button', { name: 'Open Anyway' });
  await Promise.race([position.waitFor({ state: 'visible', timeout: 120_000 }), anyway.waitFor({ state: 'visible', timeout: 120_000 })]);
  const asked = await anyway.isVisible();
  const askedAfter = Date.now() - t0;
  if (asked) {
    t0 = Date.now();
    await anyway.click();
  }
  await position.waitFor({ state: 'visible', timeout: 120_000 });
  const ms = Date.now() - t0;
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+End');
  await page.waitForTimeout(300);
  const at = await position.innerText();
  console.log(`  the same ${body.dmarcRecords.length} rows (${(chars / 1e6).toFixed(1)} M characters) opened as a file by VS Code alone (File: Open File…): ${asked ? `"The file is not displayed in the text editor because it is very large" after ${askedAfter} ms; from "Open Anyway"` : 'from Enter'} ${ms} ms until its editor showed it; Ctrl+End: ${at} (the export's text: ${((readPerf(perfFile).filter((e) => e.event === 'exportBuilt').pop() as { chars?: number } | undefined)?.chars ?? NaN) / 1e6} M characters; its bar 3000 ms)`);
  await runCommand(page, 'View: Close All Editors');
  rmSync(file, { force: true });
}
