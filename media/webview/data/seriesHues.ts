/**
 * Which of the theme's six chart colours each series of the trend gets (DOM-free: trendChart.ts
 * turns hues into the theme's colours). A known value keeps its meaning (authorized green,
 * rejected red…); every other series takes, in turn, a hue that no series of this chart has yet,
 * so a value outside the documented sets ("AUTHORIZED", "spoofed") never looks like a known one.
 * Past six, hues repeat faded (lower opacity), again the unused ones first. "other" is grey.
 */
import { adviceCode } from './adviceLabels';

export type Hue = 'red' | 'blue' | 'yellow' | 'orange' | 'green' | 'purple';
/** `fixed`: the hue means something (rejected red) and stays; the others may give way to tell series apart (trendChart.ts). */
export type SeriesHue = { hue: Hue; faded: boolean; fixed?: boolean } | 'other';


const KNOWN: Readonly<Record<string, Hue>> = {
  // category
  // partially-authorized was yellow: next to quarantined's orange, the same amber in the light theme.
  authorized: 'green', rejected: 'red', quarantined: 'orange', 'partially-authorized': 'purple',
  // DMARC result
  pass: 'green', fail: 'red',
  // disposition
  none: 'blue', quarantine: 'orange', reject: 'red',
};
/**
 * Splits by an advice column: their values are labels (adviceLabels.ts). Each class keeps a hue
 * of its meaning; of the reasons only the aligned passes do (green), the others are told apart.
 */
const ADVICE_SPLITS = new Set(['rowClass', 'spfReason', 'dkimReason']);
const ADVICE_HUES: Readonly<Record<string, Hue>> = {
  compliant: 'green', forwarded: 'blue', 'needs-fixing': 'yellow', unauthenticated: 'red', 'spf-aligned-pass': 'green', 'dkim-aligned-pass': 'green',
};
const CYCLE: readonly Hue[] = ['blue', 'purple', 'green', 'orange', 'yellow', 'red'];

/** The hue of each series key, in order. `split` 'group' has no known values (groups are names). */
export function seriesHues(split: string, keys: readonly string[]): SeriesHue[] {
  const advice = ADVICE_SPLITS.has(split);
  const known = (key: string): Hue | undefined =>
    advice ? ADVICE_HUES[adviceCode(key) ?? ''] : split !== 'group' && Object.hasOwn(KNOWN, key) ? KNOWN[key] : undefined;
  // Taken per fading level: [full, faded, faded again…].
  const taken: Set<Hue>[] = [new Set(keys.map(known).filter((h): h is Hue => h !== undefined))];
  return keys.map((key) => {
    if (key === 'other') return 'other';
    if (key === 'emails') return { hue: 'blue', faded: false, fixed: true };
    const k = known(key);
    if (k) return { hue: k, faded: false, fixed: true };
    for (let level = 0; ; level++) {
      const used = (taken[level] ??= new Set());
      const hue = CYCLE.find((h) => !used.has(h));
      if (hue) {
        used.add(hue);
        return { hue, faded: level > 0 };
      }
    }
  });
}
