/**
 * The summary of `npm run bench:panel`: each measure's median and worst over the runs, against
 * the bars of the records-panel issue and of issue 12, with met/MISSED; sort, filter key and host
 * blocked are met only with the worst run within twice the bar as well (issue 44).
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repoRoot = resolve(__dirname, '../..');

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

/** What each run measured, a value a run per measure. */
export function newResults() {
  return { firstPaint: [] as number[], sort: [] as number[], sortInput: [] as number[], sortHandler: [] as number[], filter: [] as number[], filterInput: [] as number[], filterCompute: [] as number[], advice: [] as number[], groupBy: [] as number[], groupByCompare: [] as number[], previousIn: [] as number[], domRows: [] as number[], hostBlocked: [] as number[], exportJson: [] as number[], exportFirst: [] as number[], exportBlocked: [] as number[], exportLines: 0, rows: 0,
    afterFirstByte: [] as number[], allFromFirstByte: [] as number[], download: [] as number[], afterReady: [] as number[], webviewStart: [] as number[], allRows: [] as number[], hostHeap: [] as number[], webviewHeap: [] as number[], mainRan: [] as number[], mainWaited: [] as number[], bodyMB: 0 };
}

export type Results = ReturnType<typeof newResults>;

/** A minified webview bundle's size: the page's script (main.ts), or Chart.js's, which the page loads when it first draws the trend (chart.ts). */
async function webviewBundleKb(entry = 'media/webview/main.ts'): Promise<number> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({ entryPoints: [join(repoRoot, entry)], bundle: true, minify: true, format: 'iife', write: false, outdir: join(tmpdir(), 'dmarc-bench-bundle'), loader: { '.ttf': 'empty' } });
  const js = out.outputFiles.find((f) => f.path.endsWith('.js'))!;
  return js.contents.byteLength / 1024;
}

/** Prints the table of medians, worsts and bars. */
export async function printSummary(results: Results, runs: number, keptBodies: boolean): Promise<SummaryBar[]> {
  const bars: SummaryBar[] = [];
  // `held`: a bar that holds (issue 44) — the median within it and the worst run within twice it.
  const line = (name: string, xs: number[], bar: number, unit: string, met?: boolean, held = false) => {
    const m = median(xs);
    const worst = Math.max(...xs);
    const ok = (met ?? m <= bar) && (!held || worst <= 2 * bar);
    console.log(`${name.padEnd(14)} ${String(Math.round(m)).padStart(7)} ${String(Math.round(worst)).padStart(7)} ${String(bar).padStart(6)} ${unit.padEnd(5)} ${ok ? 'met' : 'MISSED'}${held ? ` (worst ≤ ${2 * bar})` : ''}`);
    bars.push({ name, value: m, worst, limit: bar, unit, met: ok });
  };
  console.log(`\nrecords panel bench — ${results.rows} rows, ${runs} runs, medians (machine: 2 cores; API server bodies ${keptBodies ? "rendered before each run" : "rendered during the runs"}; see test/bench/benchPanel.ts)`);
  console.log(`${'measure'.padEnd(14)} ${'median'.padStart(7)} ${'worst'.padStart(7)} ${'bar'.padStart(6)}`);
  line('first paint', results.firstPaint, 1500, 'ms');
  // The streaming bars (issue 12): first rows after the first byte (or after the webview is ready,
  // when it is not ready by then), every row after the last byte, heaps.
  // Met when the first rows come ≤ 1 s after the first byte or, where the webview was not ready
  // by then, ≤ 150 ms after it was.
  const firstRowsMet = median(results.afterFirstByte) <= 1000 || median(results.afterReady) <= 150;
  line('first rows', results.afterFirstByte, 1000, 'ms', firstRowsMet);
  line('  (after rdy)', results.afterReady, 150, 'ms', firstRowsMet);
  line('  (wv start)', results.webviewStart, Infinity, 'ms'); // what the webview's start costs: printed, no bar
  line('every row', results.allRows, results.rows > 500_000 ? 1500 : 500, 'ms');
  line('  (1st byte)', results.allFromFirstByte, Infinity, 'ms'); // every row after the first byte: printed, no bar
  line('  (download)', results.download, Infinity, 'ms');
  // The heap bars are the 1M run's (issue 12 lists them under "At 1M rows"); at 100k the host's
  // own baseline (VS Code's built-in extensions share the heap) outweighs the rows: printed, no bar.
  line('host heap', results.hostHeap, results.rows > 500_000 ? Math.round(2 * results.bodyMB) : Infinity, 'MB');
  line('webview heap', results.webviewHeap, 600, 'MB');
  line('sort', results.sort, 150, 'ms', undefined, true);
  // What the user waits for: from the input event's own time (a busy page's wait included) to the frame showing the result; and the handler alone.
  line('  (input→frm)', results.sortInput, 150, 'ms');
  line('  (handler)', results.sortHandler, Infinity, 'ms');
  const big = results.rows > 500_000;
  // Issue 12: filter keystroke ≤ 100 ms at 1M rows too.
  line('filter key', results.filter, 100, 'ms', undefined, true);
  line('  (input→frm)', results.filterInput, 100, 'ms');
  line('  (compute)', results.filterCompute, 100, 'ms');
  line('group-by', results.groupBy, big ? 400 : 150, 'ms');
  // Issue 42: the groups with Compare's Δ columns within the group-by bar; the previous period's arrival printed, no bar.
  if (results.groupByCompare.length) line('compare', results.groupByCompare, big ? 400 : 150, 'ms');
  if (results.previousIn.length) line('  (prev in)', results.previousIn, Infinity, 'ms');
  // Issue 41: the Advice recomputes on a filter change within the groups' bars.
  line('advice', results.advice, big ? 400 : 100, 'ms');
  line('bundle', [await webviewBundleKb()], 250, 'KB');
  line('  (chart)', [await webviewBundleKb('media/webview/chart.ts')], Infinity, 'KB');
  line('DOM rows', results.domRows, 200, 'rows');
  // Issue 12 asks "never blocked > 100 ms" at 1M rows and, at 100k, every bar of before (200 ms).
  line('host blocked', results.hostBlocked, big ? 100 : 200, 'ms', undefined, true);
  // Until the last byte, the host's main thread on a core and ready to run but waiting for one
  // (Linux schedstat; printed, no bar): on two cores shared with the window and the webview.
  line('  (main ran)', results.mainRan, Infinity, 'ms');
  line('  (waited)', results.mainWaited, Infinity, 'ms');
  if (results.exportJson.length === 0) return bars;
  line('export JSON', results.exportJson, 3000, 'ms');
  // The tab shows its first rows while the rest is appended (printed, no bar: the bar is the whole document).
  line('  (1st rows)', results.exportFirst, Infinity, 'ms');
  line('  (host blk)', results.exportBlocked, 200, 'ms');
  const exportMedian = Math.round(median(results.exportJson));
  console.log(`export JSON ${Math.round(results.rows / 1000)}k: ${exportMedian} ms (bar 3000 ms) ${exportMedian <= 3000 ? 'met' : 'MISSED'} — ${results.exportLines} lines for ${results.rows} rows`);
  return bars;
}

/** A line of the summary, for bench:check (BENCH_JSON). */
export interface SummaryBar {
  name: string;
  value: number;
  worst: number;
  limit: number;
  unit: string;
  met: boolean;
}
