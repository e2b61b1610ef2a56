// The search's character bits (media/webview/data/searchBits.ts): read from a chunk's ASCII bytes
// they are the bits of the strings the decoder makes of those bytes, whatever the ends say.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { asciiBits, charBits } from '../../media/webview/data/searchBits';
import { decodeChunk, encodeChunk, SCALARS } from '../../src/shared/rowCodec';

/** The strings one after the other as ASCII bytes, and where each ends. */
function layout(strings: string[]): { units: Uint8Array; ends: Uint32Array } {
  const units = new Uint8Array(strings.reduce((n, s) => n + s.length, 0));
  const ends = new Uint32Array(strings.length);
  let p = 0;
  strings.forEach((s, k) => {
    for (let j = 0; j < s.length; j++) units[p++] = s.charCodeAt(j);
    ends[k] = p;
  });
  return { units, ends };
}

describe('webview search: character bits from a chunk\'s bytes', () => {
  it('are charBits of each string, for any ASCII text (capitals, digits, punctuation, controls, empty strings)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 12 }), { maxLength: 30 }), (strings) => {
        const { units, ends } = layout(strings);
        assert.deepStrictEqual(asciiBits(units, ends), Uint32Array.from(strings, charBits));
      }),
      { numRuns: 300 },
    );
  });

  it('follow the decoder on a broken chunk: ends past the text or going back give what the decoded strings have', () => {
    const units = new TextEncoder().encode('Mail.Example2026-Z');
    const ends = Uint32Array.from([4, 2, 12, 400, 18]);
    // The strings as the decoder cuts them (src/shared/rowCodec.ts): each from the previous end,
    // clamped to the text; an end before the previous one gives '' and moves the start back.
    const strings: string[] = [];
    const all = 'Mail.Example2026-Z';
    let prev = 0;
    for (const e of ends) {
      const end = Math.min(e, units.length);
      strings.push(all.slice(prev, end));
      prev = end;
    }
    assert.deepStrictEqual(asciiBits(units, ends), Uint32Array.from(strings, charBits));
  });

  it('are not made from bytes that are not ASCII (the strings are read instead)', () => {
    assert.equal(asciiBits(Uint8Array.from([0x61, 0xc3, 0xa9]), Uint32Array.from([3])), undefined);
    assert.equal(asciiBits(Uint8Array.from([0x61, 0x80]), Uint32Array.from([1, 2])), undefined);
  });

  it('a decoded ASCII chunk carries its bytes and ends; one with other text does not', () => {
    const row = (s: string) => ({ scalars: SCALARS.map(() => s), emails: 1, rdns: [s], dkims: [], extras: [] });
    const ascii = decodeChunk(encodeChunk(2, (i) => row(i ? 'Mail.Example' : 'x')));
    assert.ok(ascii.ascii);
    assert.deepStrictEqual(asciiBits(ascii.ascii.units, ascii.ascii.ends), Uint32Array.from(ascii.strings, charBits));
    assert.equal(decodeChunk(encodeChunk(1, () => row('é'))).ascii, undefined);
  });
});
