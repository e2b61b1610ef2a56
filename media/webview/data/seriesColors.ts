/**
 * The trend's series as theme colours, DOM-free (trendChart.ts reads the palette from the page).
 */
import { distinctColors, mix, parseColor, toHex } from './colors';
import { seriesHues, type Hue } from './seriesHues';

export interface Palette {
  fg: string;
  lines: string;
  selection: string;
  byName: Record<Hue, string>;
}

const HUE_ORDER: readonly Hue[] = ['blue', 'purple', 'green', 'orange', 'red', 'yellow'];

/** A hue's second shade: half way to the chart foreground (lighter on dark themes, darker on light ones). */
function shade(p: Palette, c: string, t = 0.5): string {
  const a = parseColor(c);
  const b = parseColor(p.fg);
  return a && b ? toHex(mix(a, b, t)) : /^#[0-9a-f]{6}$/i.test(c) ? `${c}8c` : c;
}

/**
 * The colours of the series (see data/seriesHues.ts): a faded hue as its second shade; a series
 * whose colour would look like one before it gets another (data/colors.ts), a value's meaningful
 * colour excepted. So distinct series stay distinct in light, dark and high-contrast themes.
 */
export function seriesColors(p: Palette, split: string, keys: readonly string[]): string[] {
  const wanted = seriesHues(split, keys).map((h) =>
    h === 'other' ? { color: p.lines, fixed: true } : { color: h.faded ? shade(p, p.byName[h.hue]) : p.byName[h.hue], fixed: !!h.fixed },
  );
  const pool = [...HUE_ORDER.map((h) => p.byName[h]), ...HUE_ORDER.map((h) => shade(p, p.byName[h])), ...HUE_ORDER.map((h) => shade(p, p.byName[h], 0.25))];
  return distinctColors(wanted, pool);
}


/**
 * The previous period's line (Compare): the chart foreground, which every theme keeps apart from
 * its chart colours, unless it looks like a series drawn (the light theme's grey "Other" is near
 * its grey foreground); then the first colour of the series' pool far enough from all of them.
 */
export function previousColor(p: Palette, series: readonly string[]): string {
  const pool = [...HUE_ORDER.map((h) => p.byName[h]), ...HUE_ORDER.map((h) => shade(p, p.byName[h])), ...HUE_ORDER.map((h) => shade(p, p.byName[h], 0.25))];
  return distinctColors([...series.map((color) => ({ color, fixed: true })), { color: p.fg, fixed: false }], pool).at(-1)!;
}
