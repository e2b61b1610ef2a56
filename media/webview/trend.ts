/**
 * The trend at the top of the panel: emails per UTC day (per hour for two days or less, per ISO
 * week beyond 180 days), stacked by a chosen split, as emails or as share. Dragging across bars,
 * or choosing bars with the keyboard (Left/Right, Shift to extend, Enter), narrows the table to
 * those days. The numbers behind the bars are one keystroke away (T, or the Numbers button).
 */
import * as l10n from '@vscode/l10n';
import type { TrendSplit } from '../../src/shared/columns';
import { labelStart, type Trend } from './data/trend';
import { el, icon, iconButton } from './dom';
import { formatCount, formatDay, formatPercent, formatShortDay } from './format';
import type { Chart } from 'chart.js';
import { bandPlugin, chartClass, readPalette, seriesColors, type Palette } from './trendChart';
import { previousColor } from './data/seriesColors';

export interface TrendHost {
  onSplit(split: TrendSplit): void;
  onShare(share: boolean): void;
  /** Bars from…to (inclusive bucket indices) chosen; undefined clears. */
  onChoose(range: { from: number; to: number } | undefined): void;
  /** The header's chevron: open or close the chart. */
  onToggle(open: boolean): void;
}

export interface TrendView {
  trend: Trend;
  split: TrendSplit;
  share: boolean;
  /** Label per series key (group names, value labels). */
  labelOf: (key: string) => string;
  /** The chosen bars, if any. */
  chosen: { from: number; to: number } | undefined;
  groupSplitAvailable: boolean;
  /** Compare: the previous period per bar (emails, or its DMARC pass % when shares are shown), drawn as a dashed line. */
  previous?: (number | null)[];
}

const PER_UNIT = { hour: l10n.t('Emails per hour'), day: l10n.t('Emails per day'), week: l10n.t('Emails per week') } as const;

export function bucketLabel(unit: Trend['unit'], ms: number): string {
  if (unit === 'hour') return `${formatDay(ms)} ${new Date(ms).toISOString().slice(11, 13)}:00`;
  if (unit === 'week') return l10n.t('Week of {0}', formatDay(ms));
  return formatDay(ms);
}

function axisLabel(unit: Trend['unit'], ms: number): string {
  if (unit === 'hour') return `${new Date(ms).toISOString().slice(11, 13)}:00`;
  return formatShortDay(ms);
}

export class TrendPanel {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly table: HTMLElement;
  private readonly splitSelect: HTMLSelectElement;
  private readonly shareButton: HTMLButtonElement;
  private readonly numbersButton: HTMLButtonElement;
  private readonly caption: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly tip: HTMLElement;
  private readonly toggle: HTMLButtonElement;
  private readonly body: HTMLElement;
  private chart: Chart<'bar'> | undefined;
  private palette: Palette | undefined;
  private view: TrendView | undefined;
  private drag: { from: number; to: number } | undefined;
  /** The keyboard's bar and the anchor of a Shift+arrow range. */
  private cursor = -1;
  private anchor = -1;

  constructor(private readonly host: TrendHost) {
    this.element = el('section', { class: 'trend', attrs: { 'data-testid': 'trend', 'aria-label': l10n.t('Trend') } });
    const bar = el('div', { class: 'trend-bar' });
    this.caption = el('span', { class: 'trend-caption', attrs: { 'data-testid': 'trend-caption' } });
    this.splitSelect = el('select', { class: 'select', attrs: { 'aria-label': l10n.t('Split bars by'), 'data-testid': 'trend-split' } });
    for (const [v, label] of [['category', l10n.t('Category')], ['dmarcResult', l10n.t('DMARC result')], ['dmarc', l10n.t('Disposition')], ['rowClass', l10n.t('Class')], ['spfReason', l10n.t('Why SPF')], ['dkimReason', l10n.t('Why DKIM')], ['group', l10n.t('Top groups')]] as const) {
      this.splitSelect.append(el('option', { text: label, attrs: { value: v } }));
    }
    this.splitSelect.addEventListener('change', () => this.host.onSplit(this.splitSelect.value as TrendSplit));
    this.shareButton = el('button', { class: 'toggle-button', text: l10n.t('Share %'), attrs: { type: 'button', 'aria-pressed': 'false', 'data-testid': 'trend-share', title: l10n.t('Show each bar as shares of 100% instead of emails') } });
    this.shareButton.addEventListener('click', () => this.host.onShare(this.shareButton.getAttribute('aria-pressed') !== 'true'));
    this.numbersButton = iconButton('table', l10n.t('Show the numbers (T)'), 'trend-numbers');
    this.numbersButton.setAttribute('aria-pressed', 'false');
    this.numbersButton.addEventListener('click', () => this.toggleNumbers());
    // The controls wrap below the caption as one piece when the panel is narrow.
    const controls = el('div', { class: 'trend-controls' }, [el('label', { class: 'muted', text: l10n.t('Split by'), attrs: { for: 'trend-split' } }), this.splitSelect, this.shareButton, this.numbersButton]);
    this.toggle = el('button', { class: 'pane-toggle', attrs: { type: 'button', 'aria-expanded': 'true', 'aria-controls': 'trend-body', 'aria-label': l10n.t('Trend'), 'data-testid': 'trend-toggle', title: l10n.t('Show or hide the trend') } }, [icon('chevron-down', 'pane-chevron')]);
    this.toggle.addEventListener('click', () => this.host.onToggle(this.toggle.getAttribute('aria-expanded') !== 'true'));
    bar.append(this.toggle, this.caption, el('span', { class: 'spacer' }), controls);
    this.splitSelect.id = 'trend-split';
    this.canvas = el('canvas', { class: 'trend-canvas', attrs: { role: 'img', tabindex: 0, 'data-testid': 'trend-canvas', 'aria-describedby': 'trend-help' } });
    const help = el('span', { class: 'sr-only', text: l10n.t('Left and Right choose a bar, Shift extends, Enter shows only those days in the table, Escape clears, T shows the numbers.'), attrs: { id: 'trend-help' } });
    this.tip = el('div', { class: 'trend-tip', attrs: { 'data-testid': 'trend-tip', 'aria-hidden': 'true' } });
    this.tip.hidden = true;
    const wrap = el('div', { class: 'trend-chart' }, [this.canvas, this.tip]);
    this.legend = el('ul', { class: 'trend-legend', attrs: { 'aria-label': l10n.t('Series'), 'data-testid': 'trend-legend' } });
    this.table = el('div', { class: 'trend-table', attrs: { 'data-testid': 'trend-table' } });
    this.table.hidden = true;
    this.numbersButton.setAttribute('aria-controls', 'trend-table');
    this.table.id = 'trend-table';
    this.body = el('div', { class: 'trend-body', attrs: { id: 'trend-body' } }, [wrap, this.legend, help, this.table]);
    this.element.append(bar, this.body);
    this.wire();
    // VS Code changes the theme by swapping the body's class and the root's CSS variables.
    const redraw = new MutationObserver(() => this.themeChanged());
    redraw.observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-id'] });
    redraw.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
  }

  /** Closed: the header only (its caption still says what the chart would show). */
  setOpen(open: boolean): void {
    this.toggle.setAttribute('aria-expanded', String(open));
    this.element.classList.toggle('closed', !open);
    this.body.hidden = !open;
    // Never drawn yet: the header still says what it holds.
    if (!this.caption.textContent) this.caption.textContent = l10n.t('Trend');
  }

  private wire(): void {
    const indexAt = (e: PointerEvent): number => {
      const x = this.chart?.scales.x;
      const n = this.view?.trend.starts.length ?? 0;
      if (!x || n === 0) return -1;
      const rect = this.canvas.getBoundingClientRect();
      const v = x.getValueForPixel(e.clientX - rect.left);
      return typeof v === 'number' ? Math.max(0, Math.min(n - 1, Math.round(v))) : -1;
    };
    this.canvas.addEventListener('pointerdown', (e) => {
      const i = indexAt(e);
      if (i < 0 || e.button !== 0) return;
      this.canvas.setPointerCapture(e.pointerId);
      this.drag = { from: i, to: i };
      this.chart?.draw();
    });
    this.canvas.addEventListener('pointerleave', () => (this.tip.hidden = true));
    this.canvas.addEventListener('blur', () => (this.tip.hidden = true));
    this.canvas.addEventListener('pointermove', (e) => {
      const at = indexAt(e);
      if (at >= 0) this.showTip(at);
      if (!this.drag) return;
      const i = at;
      if (i >= 0 && i !== this.drag.to) {
        this.drag.to = i;
        this.chart?.draw();
      }
    });
    const end = (): void => {
      const d = this.drag;
      this.drag = undefined;
      if (!d) return;
      const from = Math.min(d.from, d.to);
      const to = Math.max(d.from, d.to);
      const c = this.view?.chosen;
      // A click on the only chosen bar clears the choice.
      if (from === to && c && c.from === from && c.to === to) this.host.onChoose(undefined);
      else this.host.onChoose({ from, to });
    };
    this.canvas.addEventListener('pointerup', end);
    this.canvas.addEventListener('pointercancel', () => {
      this.drag = undefined;
      this.chart?.draw();
    });
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
  }

  private onKey(e: KeyboardEvent): void {
    const n = this.view?.trend.starts.length ?? 0;
    if (n === 0) return;
    if (e.key === 't' || e.key === 'T') {
      e.preventDefault();
      this.toggleNumbers();
      return;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      this.cursor = this.anchor = -1;
      this.host.onChoose(undefined);
      return;
    }
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (this.cursor < 0) return;
      const a = this.anchor >= 0 ? this.anchor : this.cursor;
      this.host.onChoose({ from: Math.min(a, this.cursor), to: Math.max(a, this.cursor) });
      return;
    }
    const step: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, Home: -n, End: n };
    const d = step[e.key];
    if (d === undefined) return;
    e.preventDefault();
    if (this.cursor < 0) this.cursor = d > 0 ? -1 : n;
    if (!e.shiftKey) this.anchor = -1;
    else if (this.anchor < 0) this.anchor = Math.max(0, Math.min(n - 1, this.cursor));
    this.cursor = Math.max(0, Math.min(n - 1, this.cursor + d));
    this.showCursor();
  }

  private showCursor(): void {
    const chart = this.chart;
    if (!chart || this.cursor < 0) return;
    chart.draw();
    this.showTip(this.cursor);
    const t = this.view!.trend;
    const label = bucketLabel(t.unit, labelStart(t, this.cursor));
    const text = l10n.t('{0}: {1} emails', label, formatCount(t.totals[this.cursor]!));
    this.canvas.setAttribute('aria-valuetext', text);
    this.announce(text);
  }

  private announce(text: string): void {
    this.caption.dataset.cursor = text;
  }

  private toggleNumbers(): void {
    const show = this.table.hidden;
    this.table.hidden = !show;
    this.numbersButton.setAttribute('aria-pressed', String(show));
    this.numbersButton.title = show ? l10n.t('Hide the numbers (T)') : l10n.t('Show the numbers (T)');
    if (show) this.renderTable();
  }

  private themeChanged(): void {
    this.palette = undefined;
    if (this.view) this.update(this.view);
  }

  update(view: TrendView): void {
    this.view = view;
    const { trend, split, share } = view;
    this.palette ??= readPalette();
    const p = this.palette;
    this.splitSelect.value = split;
    (this.splitSelect.querySelector('option[value="group"]') as HTMLOptionElement).disabled = !view.groupSplitAvailable;
    this.shareButton.setAttribute('aria-pressed', String(share));
    this.shareButton.classList.toggle('active', share);
    const per = PER_UNIT[trend.unit];
    const total = trend.totals.reduce((a, b) => a + b, 0);
    this.caption.textContent = view.chosen
      ? l10n.t('{0} (UTC) · {1} of {2} chosen', per, formatCount(this.chosenEmails()), formatCount(total))
      : l10n.t('{0} (UTC)', per);
    this.caption.title = this.caption.textContent;
    this.canvas.setAttribute('aria-label', this.accessibleName());
    const labels = Array.from(trend.starts, (_, b) => axisLabel(trend.unit, labelStart(trend, b)));
    const totals = trend.totals;
    const colors = seriesColors(p, split, trend.series.map((s) => s.key));
    const datasets = trend.series.map((s, k) => ({
      label: view.labelOf(s.key),
      data: Array.from(s.values, (v, b) => (share ? (totals[b]! > 0 ? (v / totals[b]!) * 100 : 0) : v)),
      backgroundColor: colors[k]!,
      borderWidth: 0,
      stack: 'emails',
    }));
    const prev = previousDataset(view.previous, share, previousColor(p, colors));
    this.renderLegend([...datasets.map((d) => ({ label: d.label, color: d.backgroundColor })), ...(prev ? [{ label: prev.label, color: prev.borderColor, dashed: true }] : [])]);
    if (!this.table.hidden) this.renderTable();
    // Chart.js comes in a bundle of its own: drawn once it has loaded.
    let chart = this.chart;
    const all = [...datasets, ...(prev ? [prev] : [])] as typeof datasets;
    if (chart) {
      chart.data.labels = labels;
      chart.data.datasets = all;
    } else {
      const ChartJs = chartClass(() => this.view && !this.chart && this.update(this.view));
      if (!ChartJs) return;
      chart = this.chart = new ChartJs(this.canvas, {
        type: 'bar',
        data: { labels, datasets: all },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          interaction: { mode: 'index', intersect: false },
          scales: {},
          plugins: {},
        },
        plugins: [bandPlugin(() => this.band(), () => this.palette?.selection ?? 'rgba(0,120,212,0.18)')],
      });
    }
    // sampleSize: the labels are dates of one width, a few measured say how many fit (Chart.js
    // measured every label on each redraw).
    chart.options.scales = {
      x: { stacked: true, ticks: { color: p.fg, autoSkip: true, maxRotation: 0, sampleSize: 8 }, grid: { display: false }, border: { color: p.lines } },
      y: { stacked: true, beginAtZero: true, ...(share ? { max: 100 } : {}), ticks: { color: p.fg, callback: (v) => (share ? `${v}%` : formatCount(Number(v))) }, grid: { color: p.lines }, border: { display: false } },
    };
    chart.update('none');
  }

  private renderLegend(items: { label: string; color: string; dashed?: boolean }[]): void {
    this.legend.hidden = items.length < 2;
    this.legend.replaceChildren(
      ...items.map((it) => {
        const sw = el('span', { class: `swatch${it.dashed ? ' swatch-dashed' : ''}`, attrs: { 'aria-hidden': 'true' } });
        if (it.dashed) sw.style.borderColor = it.color;
        else sw.style.background = it.color;
        return el('li', { class: 'legend-item', attrs: it.dashed ? { 'data-testid': 'trend-legend-previous' } : {} }, [sw, el('span', { class: 'legend-label', text: it.label })]);
      }),
    );
  }

  /** The numbers of one bar, over the chart (text only). */
  private showTip(b: number): void {
    const v = this.view;
    const x = this.chart?.scales.x;
    if (!v || !x || b < 0 || b >= v.trend.starts.length) return;
    const t = v.trend;
    const total = t.totals[b]!;
    const lines = [el('div', { class: 'tip-title', text: bucketLabel(t.unit, labelStart(t, b)) })];
    if (t.series.length > 1) {
      for (const s of t.series) {
        const val = s.values[b]!;
        if (val === 0) continue;
        lines.push(el('div', { text: `${v.labelOf(s.key)}: ${v.share ? formatPercent(total > 0 ? val / total : Number.NaN) : formatCount(val)}` }));
      }
    }
    lines.push(el('div', { class: 'tip-total', text: l10n.t('Total: {0} emails', formatCount(total)) }));
    this.tip.replaceChildren(...lines);
    this.tip.hidden = false;
    const px = x.getPixelForValue(b);
    const w = this.canvas.clientWidth;
    this.tip.style.left = `${Math.max(0, Math.min(w - 180, px + 12))}px`;
  }

  private band(): { from: number; to: number } | undefined {
    const d = this.drag;
    if (d) return { from: Math.min(d.from, d.to), to: Math.max(d.from, d.to) };
    return this.view?.chosen;
  }

  private chosenEmails(): number {
    const c = this.view?.chosen;
    if (!c) return 0;
    let sum = 0;
    for (let b = c.from; b <= c.to; b++) sum += this.view!.trend.totals[b] ?? 0;
    return sum;
  }

  private accessibleName(): string {
    const t = this.view!.trend;
    const n = t.starts.length;
    let peak = -1;
    for (let b = 0; b < n; b++) if (peak < 0 || t.totals[b]! > t.totals[peak]!) peak = b;
    const total = t.totals.reduce((a, b) => a + b, 0);
    const first = n ? bucketLabel(t.unit, labelStart(t, 0)) : '';
    const last = n ? bucketLabel(t.unit, labelStart(t, n - 1)) : '';
    const peakText = peak >= 0 ? l10n.t(', most on {0} ({1})', bucketLabel(t.unit, labelStart(t, peak)), formatCount(t.totals[peak]!)) : '';
    return l10n.t('{0}, {1} to {2} (UTC): {3} emails{4}. Press T for the numbers.', PER_UNIT[t.unit], first, last, formatCount(total), peakText);
  }

  /** The text alternative: one row per bar, with each series. */
  private renderTable(): void {
    const v = this.view;
    if (!v) return;
    const t = v.trend;
    const table = el('table', { class: 'numbers', attrs: { 'aria-label': PER_UNIT[t.unit] } });
    const head = el('tr');
    head.append(el('th', { text: t.unit === 'week' ? l10n.t('Week') : t.unit === 'hour' ? l10n.t('Hour (UTC)') : l10n.t('Day (UTC)'), attrs: { scope: 'col' } }), el('th', { text: l10n.t('Emails'), attrs: { scope: 'col' } }));
    for (const s of t.series) if (t.series.length > 1) head.append(el('th', { text: v.labelOf(s.key), attrs: { scope: 'col' } }));
    if (v.previous) head.append(el('th', { text: v.share ? l10n.t('Previous period (DMARC pass %)') : l10n.t('Previous period'), attrs: { scope: 'col' } }));
    table.append(el('thead', {}, [head]));
    const body = el('tbody');
    for (let b = 0; b < t.starts.length; b++) {
      const tr = el('tr');
      tr.append(el('th', { text: bucketLabel(t.unit, labelStart(t, b)), attrs: { scope: 'row' } }), el('td', { text: formatCount(t.totals[b]!) }));
      if (t.series.length > 1) {
        for (const s of t.series) {
          const val = s.values[b]!;
          tr.append(el('td', { text: v.share ? formatPercent(t.totals[b]! > 0 ? val / t.totals[b]! : Number.NaN) : formatCount(val) }));
        }
      }
      if (v.previous) {
        const p = v.previous[b];
        tr.append(el('td', { text: p === null || p === undefined ? '' : v.share ? formatPercent(p / 100) : formatCount(p) }));
      }
      body.append(tr);
    }
    table.append(body);
    this.table.replaceChildren(table);
  }
}

/**
 * The previous period as a dashed line over the bars, in a stack of its own (never added to them),
 * in the theme's foreground or a colour apart from every series' (data/seriesColors.ts previousColor).
 */
function previousDataset(values: (number | null)[] | undefined, share: boolean, color: string) {
  if (!values) return undefined;
  return {
    type: 'line' as const,
    label: share ? l10n.t('Previous period (DMARC pass %)') : l10n.t('Previous period'),
    data: values,
    borderColor: color,
    backgroundColor: color,
    borderWidth: 2,
    borderDash: [6, 4],
    pointRadius: 0,
    tension: 0,
    stack: 'previous',
    order: -1,
  };
}
