/**
 * The trend's Chart.js, a bundle of its own (dist/chart.js): the page loads it the first time the
 * trend is drawn (trendChart.ts, chartClass). Only what a stacked bar chart needs is registered;
 * the legend and the tooltip are the page's own DOM (text, keyboard-reachable).
 */
import { BarController, BarElement, CategoryScale, Chart, LinearScale, LineController, LineElement, PointElement } from 'chart.js';

// Lines: the previous period's (Compare), over the bars.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement);
window.__dmarcChart = Chart;
