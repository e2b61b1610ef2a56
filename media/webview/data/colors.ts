/**
 * Colours told apart as people see them, DOM-free: the trend's series take the theme's chart
 * colours, and two of those can be near twins (charts.yellow and charts.orange differ by ~10 in
 * CIELAB ΔE in the default light theme: "partially-authorized and quarantined are the same
 * amber"). distinctColors() keeps each series' preferred colour unless it is too close to one
 * taken before it, then gives it the first colour of a pool (the palette, then its tints toward the
 * foreground and the background) that is far enough from all of them.
 */

export type Rgb = [number, number, number];

/** `#rgb`, `#rrggbb`, `#rrggbbaa` (alpha ignored), `rgb()`/`rgba()`; undefined for anything else. */
export function parseColor(css: string): Rgb | undefined {
  const s = css.trim().toLowerCase();
  let m = /^#([0-9a-f]{3})$/.exec(s);
  if (m) return [...m[1]!].map((c) => parseInt(c + c, 16)) as Rgb;
  m = /^#([0-9a-f]{6})([0-9a-f]{2})?$/.exec(s);
  if (m) return [0, 2, 4].map((i) => parseInt(m![1]!.slice(i, i + 2), 16)) as Rgb;
  m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/.exec(s);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])].map((v) => Math.max(0, Math.min(255, Math.round(v)))) as Rgb;
  return undefined;
}

export function toHex(c: Rgb): string {
  return `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

/** `a` moved a share `t` of the way to `b`. */
export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return a.map((v, i) => Math.round(v * (1 - t) + b[i]! * t)) as Rgb;
}

function lab(c: Rgb): [number, number, number] {
  const lin = (v: number): number => {
    const x = v / 255;
    return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = c.map(lin) as Rgb;
  const f = (t: number): number => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const x = f((r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047);
  const y = f(r * 0.2126 + g * 0.7152 + b * 0.0722);
  const z = f((r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

/** CIE76 ΔE: about 2 is a just noticeable difference; series need far more to be told apart at a glance. */
export function deltaE(a: Rgb, b: Rgb): number {
  const p = lab(a);
  const q = lab(b);
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

/** Series closer than this are moved (unless fixed). */
export const MIN_DELTA_E = 20;

/**
 * For each series its preferred colour (CSS), or a pool colour far enough from the ones before it.
 * `fixed` series (a value whose colour means something: rejected red) keep theirs whatever; the
 * others give way. Colours that cannot be parsed are kept as they are.
 */
export function distinctColors(series: readonly { color: string; fixed: boolean }[], pool: readonly string[]): string[] {
  const taken: Rgb[] = [];
  const parsed = (list: readonly string[]): Rgb[] => list.map(parseColor).filter((c): c is Rgb => c !== undefined);
  const fixed = parsed(series.filter((s) => s.fixed).map((s) => s.color));
  const candidates = parsed(pool);
  return series.map((s) => {
    const want = parseColor(s.color);
    if (!want) return s.color;
    const far = (c: Rgb): boolean => [...taken, ...fixed].every((t) => deltaE(t, c) >= MIN_DELTA_E);
    if (s.fixed || far(want)) {
      taken.push(want);
      return s.color;
    }
    const other = candidates.find(far);
    if (!other) return s.color;
    taken.push(other);
    return toHex(other);
  });
}
