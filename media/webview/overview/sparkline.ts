/**
 * A row's daily DMARC pass rate as a small inline SVG, drawn from numbers with createElementNS and
 * attributes only (no markup parsed, no inline style: the page's CSP allows neither). Days without
 * emails break the line; a lone day between gaps is a dot. Its words (first, last, lowest day) are
 * its label, for screen readers and the tooltip.
 */
import * as l10n from '@vscode/l10n';
import { formatDay } from '../format';
import { passText } from './columns';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 84;
const HEIGHT = 18;
const DAY_MS = 86_400_000;

/** The runs of consecutive days with a rate: [first index, rates]. */
export function segments(daily: readonly (number | null)[]): [number, number[]][] {
  const out: [number, number[]][] = [];
  let run: [number, number[]] | undefined;
  daily.forEach((v, i) => {
    if (v === null || v === undefined || !Number.isFinite(v)) run = undefined;
    else if (run) run[1].push(v);
    else out.push((run = [i, [v]]));
  });
  return out;
}

/** What the line says, in words. */
export function sparklineLabel(daily: readonly (number | null)[], startMs: number): string {
  let first = -1;
  let last = -1;
  let low = -1;
  daily.forEach((v, i) => {
    if (v === null) return;
    if (first < 0) first = i;
    last = i;
    if (low < 0 || v < daily[low]!) low = i;
  });
  if (first < 0) return l10n.t('No day with emails');
  const day = (i: number) => formatDay(startMs + i * DAY_MS);
  return l10n.t('Daily DMARC pass from {0} on {1} to {2} on {3}; lowest {4} on {5}', passText(daily[first]!), day(first), passText(daily[last]!), day(last), passText(daily[low]!), day(low));
}

function node<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  return n;
}

export function sparkline(daily: readonly (number | null)[], startMs: number): SVGSVGElement {
  const label = sparklineLabel(daily, startMs);
  const svg = node('svg', { class: 'sparkline', width: WIDTH, height: HEIGHT, viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': label });
  const title = node('title', {});
  title.textContent = label;
  svg.append(title);
  const n = daily.length;
  const x = (i: number) => (n <= 1 ? WIDTH / 2 : 1 + (i * (WIDTH - 2)) / (n - 1));
  const y = (v: number) => 1 + (1 - Math.min(1, Math.max(0, v))) * (HEIGHT - 2);
  // The top (100%) and bottom (0%) as faint guides.
  svg.append(node('line', { class: 'spark-guide', x1: 0, x2: WIDTH, y1: y(1), y2: y(1) }), node('line', { class: 'spark-guide', x1: 0, x2: WIDTH, y1: y(0), y2: y(0) }));
  for (const [at, rates] of segments(daily)) {
    if (rates.length === 1) svg.append(node('circle', { class: 'spark-dot', cx: x(at), cy: y(rates[0]!), r: 1.5 }));
    else svg.append(node('polyline', { class: 'spark-line', points: rates.map((v, k) => `${x(at + k).toFixed(1)},${y(v).toFixed(1)}`).join(' ') }));
  }
  return svg;
}
