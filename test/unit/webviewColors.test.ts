// Issue 43 (12): distinct series stay distinct in the default light, dark and high-contrast themes.
// The palettes are VS Code's defaults for the charts.* tokens (read from the workbench's colour
// registry: charts.red = editorError.foreground, blue = editorInfo.foreground, yellow =
// editorWarning.foreground, orange = minimap.findMatchHighlight, green and purple their own).
import { strict as assert } from 'node:assert';
import { deltaE, distinctColors, MIN_DELTA_E, mix, parseColor, toHex } from '../../media/webview/data/colors';
import { previousColor, seriesColors, type Palette } from '../../media/webview/data/seriesColors';

const theme = (fg: string, red: string, blue: string, yellow: string, orange: string, green: string, purple: string): Palette => ({
  fg, lines: 'rgba(128, 128, 128, 0.5)', selection: 'rgba(0,120,212,0.18)', byName: { red, blue, yellow, orange, green, purple },
});
const THEMES: Record<string, Palette> = {
  light: theme('#616161', '#E51400', '#1a85ff', '#BF8803', '#d18616', '#388A34', '#652D90'),
  dark: theme('#CCCCCC', '#F14C4C', '#3794FF', '#CCA700', '#d18616', '#89D185', '#B180D7'),
  hcDark: theme('#FFFFFF', '#F48771', '#3794FF', '#FFD370', '#AB5A00', '#89D185', '#B180D7'),
  hcLight: theme('#292929', '#B5200D', '#1a85ff', '#895503', '#0F4A85', '#374e06', '#652D90'),
};

function closest(colors: readonly string[]): { d: number; pair: string } {
  let best = { d: Number.POSITIVE_INFINITY, pair: '' };
  for (let i = 0; i < colors.length; i++)
    for (let j = i + 1; j < colors.length; j++) {
      const d = deltaE(parseColor(colors[i]!)!, parseColor(colors[j]!)!);
      if (d < best.d) best = { d, pair: `${i} ${colors[i]} / ${j} ${colors[j]}` };
    }
  return best;
}

describe('webview: trend series colours people can tell apart', () => {
  it('reads the colour spellings a theme variable can have', () => {
    assert.deepEqual(parseColor('#abc'), [170, 187, 204]);
    assert.deepEqual(parseColor(' #1A85FF '), [26, 133, 255]);
    assert.deepEqual(parseColor('#1a85ff8c'), [26, 133, 255]);
    assert.deepEqual(parseColor('rgba(128, 128, 128, 0.5)'), [128, 128, 128]);
    assert.deepEqual(parseColor('rgb(300 0 0)'), [255, 0, 0]);
    assert.equal(parseColor('var(--x)'), undefined);
    assert.equal(toHex(mix([0, 0, 0], [255, 255, 255], 0.5)), '#808080');
    // The defect: the light theme's yellow and orange are near twins.
    assert.ok(deltaE(parseColor('#BF8803')!, parseColor('#d18616')!) < MIN_DELTA_E);
  });

  for (const [name, p] of Object.entries(THEMES)) {
    it(`${name}: categories, dispositions, classes and eight top groups (and "other") all distinct`, () => {
      const splits: [string, string[]][] = [
        ['category', ['authorized', 'rejected', 'quarantined', 'partially-authorized', 'other']],
        ['dmarc', ['none', 'quarantine', 'reject']],
        ['rowClass', ['Compliant', 'Forwarded', 'Needs fixing', 'Unauthenticated']],
        ['group', ['Google', 'Mailchimp', 'Salesforce', 'SendGrid', 'Zendesk', 'Microsoft', 'Unknown', 'Amazon SES', 'other']],
        ['spfReason', ['SPF aligned pass', 'SPF passes, Return-Path not aligned', 'IP not in your SPF', 'IP not in the other domain\u2019s SPF', 'No SPF record', 'SPF error', 'unknown', 'other']],
      ];
      for (const [split, keys] of splits) {
        const colors = seriesColors(p, split, keys);
        const { d, pair } = closest(colors);
        assert.ok(d >= MIN_DELTA_E, `${split}: ${pair} (ΔE ${d.toFixed(1)})`);
      }
      // Compare's Previous period line stands apart from every series under it.
      for (const [split, keys] of splits) {
        const colors = seriesColors(p, split, keys);
        const prev = previousColor(p, colors);
        for (const c of colors) assert.ok(deltaE(parseColor(prev)!, parseColor(c)!) >= MIN_DELTA_E, `${split}: previous ${prev} / ${c}`);
      }
      // Colours that mean something keep it.
      const [authorized, rejected] = seriesColors(p, 'category', ['authorized', 'rejected']);
      assert.deepEqual([authorized, rejected], [p.byName.green, p.byName.red]);
    });
  }

  it('a colour it cannot read is left as it is; a fixed one never moves', () => {
    assert.deepEqual(distinctColors([{ color: 'var(--x)', fixed: false }, { color: '#ff0000', fixed: true }, { color: '#fe0101', fixed: true }], ['#0000ff']), ['var(--x)', '#ff0000', '#fe0101']);
    assert.deepEqual(distinctColors([{ color: '#ff0000', fixed: true }, { color: '#fe0101', fixed: false }], ['#ff0000', '#0000ff']), ['#ff0000', '#0000ff']);
  });
});
