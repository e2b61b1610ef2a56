/**
 * The trend's Chart.js setup. Chart.js (134 KB of the page's script) is a bundle of its own,
 * dist/chart.js (entry: chart.ts), that the page loads the first time the trend is drawn: the
 * table's rows paint before it is even parsed. Only the pieces a stacked bar chart needs are
 * registered (the rest is tree-shaken away), no animation, colours from VS Code's
 * `--vscode-charts-*` theme variables. Chart.js draws on a canvas and sets styles through the
 * CSSOM only, so it runs under the panel's CSP (no inline style attributes, no eval); its script
 * element carries the page's nonce.
 */
import type { Chart, Plugin } from 'chart.js';
import type { Palette } from './data/seriesColors';

export { seriesColors, type Palette } from './data/seriesColors';

export type ChartClass = typeof Chart;

declare global {
  interface Window {
    /** Set by dist/chart.js when it has run. */
    __dmarcChart?: ChartClass;
  }
}

/** The page's nonce, read while this script runs (document.currentScript is only set then). */
const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce ?? '';
let loading: Promise<ChartClass | undefined> | undefined;

/**
 * Chart.js once its bundle has run; until then undefined, and the bundle is loaded (once) and
 * `then` called when it is in. The host names the bundle on `<body data-chart>`.
 */
export function chartClass(then: () => void): ChartClass | undefined {
  if (window.__dmarcChart) return window.__dmarcChart;
  loading ??= new Promise((resolve) => {
    const src = document.body.dataset.chart;
    if (!src) return resolve(undefined);
    const script = document.createElement('script');
    script.nonce = nonce;
    script.src = src;
    script.onload = () => resolve(window.__dmarcChart);
    script.onerror = () => resolve(undefined);
    document.head.append(script);
  });
  void loading.then((c) => c && then());
  return undefined;
}


function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim() || getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

export function readPalette(): Palette {
  return {
    fg: cssVar('--vscode-charts-foreground', cssVar('--vscode-foreground', '#616161')),
    lines: cssVar('--vscode-charts-lines', 'rgba(128,128,128,0.5)'),
    selection: cssVar('--vscode-editor-selectionHighlightBackground', 'rgba(0,120,212,0.18)'),
    byName: {
      red: cssVar('--vscode-charts-red', '#e51400'),
      blue: cssVar('--vscode-charts-blue', '#1a85ff'),
      yellow: cssVar('--vscode-charts-yellow', '#bf8803'),
      orange: cssVar('--vscode-charts-orange', '#d18616'),
      green: cssVar('--vscode-charts-green', '#388a34'),
      purple: cssVar('--vscode-charts-purple', '#652d90'),
    },
  };
}

/** The days chosen (or being dragged) drawn as a band behind the bars. */
export function bandPlugin(get: () => { from: number; to: number } | undefined, color: () => string): Plugin<'bar'> {
  return {
    id: 'dmarcBand',
    beforeDatasetsDraw(chart) {
      const band = get();
      const x = chart.scales.x;
      if (!band || !x) return;
      const n = chart.data.labels?.length ?? 0;
      if (n === 0) return;
      const half = n > 1 ? (x.getPixelForValue(1) - x.getPixelForValue(0)) / 2 : (chart.chartArea.right - chart.chartArea.left) / 2;
      const left = x.getPixelForValue(Math.max(0, band.from)) - half;
      const right = x.getPixelForValue(Math.min(n - 1, band.to)) + half;
      const { top, bottom } = chart.chartArea;
      const ctx = chart.ctx;
      ctx.save();
      ctx.fillStyle = color();
      ctx.fillRect(left, top, right - left, bottom - top);
      ctx.restore();
    },
  };
}
