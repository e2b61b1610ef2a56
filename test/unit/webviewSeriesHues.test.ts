// The trend's series colours (media/webview/data/seriesHues.ts): known values keep their meaning,
// every other series a hue no series of the chart has yet.
import { strict as assert } from 'node:assert';
import { seriesHues, type SeriesHue } from '../../media/webview/data/seriesHues';

const show = (h: SeriesHue): string => (h === 'other' ? 'other' : `${h.hue}${h.faded ? ' faded' : ''}`);

describe('trend series hues', () => {
  it('known categories keep their colours; values outside the documented sets never share one', () => {
    const keys = ['authorized', 'quarantined', 'AUTHORIZED', 'spoofed', 'partially-authorized', 'unauthorized', 'other'];
    assert.deepEqual(seriesHues('category', keys).map(show), ['green', 'orange', 'blue', 'yellow', 'purple', 'red', 'other']);
    // Before, the fourth series of the cycle was green: "AUTHORIZED" looked authorized.
  });

  it('dispositions and DMARC results by their meaning, the others after them', () => {
    assert.deepEqual(seriesHues('dmarc', ['none', 'quarantine', 'reject', 'bounce']).map(show), ['blue', 'orange', 'red', 'purple']);
    assert.deepEqual(seriesHues('dmarcResult', ['pass', 'fail']).map(show), ['green', 'red']);
  });

  it('groups are names: the cycle in order, then faded, "other" grey', () => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'other'];
    assert.deepEqual(seriesHues('group', keys).map(show), ['blue', 'purple', 'green', 'orange', 'yellow', 'red', 'blue faded', 'purple faded', 'other']);
    // A group called like a known value is still a name.
    assert.deepEqual(seriesHues('group', ['pass', 'fail']).map(show), ['blue', 'purple']);
  });

  it('no two series alike up to twelve, whatever the values (a key like __proto__ included)', () => {
    const keys = ['fail', '__proto__', 'constructor', 'pass', 'x', 'y', 'z', 'w', 'v', 'u', 'none', 't'];
    const hues = seriesHues('category', keys).map(show);
    assert.equal(new Set(hues).size, keys.length, hues.join(', '));
    assert.equal(hues[0], 'red');
    assert.equal(hues[3], 'green');
  });
});
