/**
 * The bars the benchmarks print, in one form: met or missed, and — where the bar is a ratio to a
 * floor measured in the same run (JSON.parse of the same text, a bare SAX pass over the same
 * files) — the ratio too, so that a slower or busier machine moves the floor and the figure alike.
 * BENCH_JSON=<file>: each bench also appends its figures and bars there (npm run bench:check).
 */
import { appendFileSync } from 'node:fs';

export interface Bar {
  name: string;
  /** The figure, in ms (or what `unit` says). */
  value: number;
  /** The bar on `value` (≤), in the same unit. */
  limit: number;
  unit: string;
  met: boolean;
  /** For a bar relative to a floor: the floor's figure, its name and the ratio allowed. */
  floor?: { name: string; value: number; ratio: number };
}

/** value ≤ ratio × floor. */
export function ratioBar(name: string, value: number, floor: number, ratio: number, floorName: string): Bar {
  const limit = floor * ratio;
  return { name, value, limit, unit: 'ms', met: value <= limit, floor: { name: floorName, value: floor, ratio } };
}

/** value ≤ limit (an absolute bar). */
export function msBar(name: string, value: number, limit: number, unit = 'ms'): Bar {
  return { name, value, limit, unit, met: value <= limit };
}

export function describeBar(b: Bar): string {
  const v = `${Math.round(b.value)} ${b.unit}`;
  if (b.floor) {
    const r = b.value / b.floor.value;
    return `${b.met ? 'met   ' : 'MISSED'}  ${b.name}: ${v} = ${r.toFixed(2)}× ${b.floor.name} (${Math.round(b.floor.value)} ms); bar ≤ ${b.floor.ratio.toFixed(2)}×`;
  }
  return `${b.met ? 'met   ' : 'MISSED'}  ${b.name}: ${v}; bar ≤ ${b.limit} ${b.unit}`;
}

export function printBars(bars: readonly Bar[]): void {
  for (const b of bars) console.log(`bar: ${describeBar(b)}`);
}

/** Right-aligned columns. */
export function table(head: string[], lines: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  console.log(fmt(head));
  for (const l of lines) console.log(fmt(l));
}

/** Appends one line of JSON for bench:check, when BENCH_JSON names a file. */
export function writeBenchJson(bench: string, data: { bars: readonly Bar[] } & Record<string, unknown>): void {
  const file = process.env.BENCH_JSON;
  if (file) appendFileSync(file, `${JSON.stringify({ bench, at: new Date().toISOString(), ...data })}\n`);
}
