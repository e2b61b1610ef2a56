/**
 * How a group's change since the previous period reads in the groups table, DOM-free: Δ emails
 * signed (+1,234, −56 with a true minus, 0), Δ DMARC pass in points with one decimal (▲4.1,
 * ▼12.0, ±0.0) and the verdict that moved ("Compliant → Needs fixing").
 */
import { verdictMoved, type Change } from '../../../src/advice/compare';
import { termOf, type Verdict } from '../../../src/advice/vocabulary';

export function signedCount(n: number, format: (n: number) => string): string {
  if (n === 0) return format(0);
  return n > 0 ? `+${format(n)}` : `\u2212${format(-n)}`;
}

/** Points with one decimal and an arrow; '' without a rate in either period. */
export function pointsText(points: number | undefined): string {
  if (points === undefined || !Number.isFinite(points)) return '';
  const shown = Math.round(Math.abs(points) * 10) / 10;
  if (shown === 0) return '±0.0';
  return `${points > 0 ? '▲' : '▼'}${shown.toFixed(1)}`;
}

const label = (v: Verdict | undefined): string | undefined => (v ? termOf(v)?.label : undefined);

/** "Compliant → Needs fixing" when both periods were judged and the verdict moved; undefined otherwise. */
export function verdictMove(c: Change | undefined): string | undefined {
  if (!c || !verdictMoved(c)) return undefined;
  return `${label(c.verdictBefore)} → ${label(c.verdictNow)}`;
}
