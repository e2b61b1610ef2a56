/**
 * The trend's Chart.js, a bundle of its own (dist/chart.js): the page loads it the first time the
 * trend is drawn (trendChart.ts, chartClass). Only what a stacked bar chart needs is registered;
 * the legend and the tooltip are the page's own DOM (text, keyboard-reachable).
 */
import { BarController, BarElement, CategoryScale, Chart, LinearScale } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale);
window.__dmarcChart = Chart;
