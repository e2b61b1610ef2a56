// Bytes to text for the XML reader (src/import/xmlText.ts): which encoding a document is read in,
// where a UTF-8 piece may be cut, and what each decoder gives back piece by piece.
import { strict as assert } from 'node:assert';
import { decoderFor, utf8Boundary, type ChunkDecoder } from '../../src/import/xmlText';
import { utf8 } from './importHelpers';

const bytes = (...b: number[]) => new Uint8Array(b);
const latin1 = (s: string) => new Uint8Array([...s].map((c) => c.charCodeAt(0)));

/** Decodes `doc` whole, the decoder chosen by its first bytes as the reader does. */
function decode(doc: Uint8Array): string {
  const d = decoderFor(doc.subarray(0, 200));
  return d.write(doc) + d.end();
}

/** Each write's result, then end's. */
function pieces(d: ChunkDecoder, parts: Uint8Array[]): string[] {
  return [...parts.map((p) => d.write(p)), d.end()];
}

describe('import: the encoding a document is read in', () => {
  it('an encoding in the XML declaration, in either quotes and with spaces around =, is used', () => {
    for (const decl of [
      '<?xml version="1.0" encoding="ISO-8859-1"?>',
      "<?xml version='1.0' encoding='iso-8859-1'?>",
      '<?xml version="1.0" encoding = "ISO-8859-1" ?>',
      '<?xml version="1.0"\n\tencoding=\n"windows-1252"?>',
      '<?xml encoding="latin1"?>',
    ]) {
      assert.equal(decode(latin1(`${decl}<a>Caf\u00e9</a>`)), `${decl}<a>Café</a>`, decl);
    }
  });

  it('only a whole `encoding` attribute of the declaration counts', () => {
    // A name ending in "encoding", a value in no quotes, a space in the name, or one after the
    // declaration's end: UTF-8, so the Latin-1 é is not valid and becomes U+FFFD.
    for (const decl of [
      '<?xml version="1.0" xencoding="ISO-8859-1"?>',
      '<?xml version="1.0" encoding=ISO-8859-1?>',
      '<?xml version="1.0"?><a encoding="ISO-8859-1"/>',
      '<?xml version="1.0" encoding="ISO 8859-1"?>',
      '<?xml version="1.0" encoding=""?>',
    ]) {
      assert.equal(decode(latin1(`${decl}<a>Caf\u00e9</a>`)), `${decl}<a>Caf\ufffd</a>`, decl);
    }
  });

  it('the declaration is looked for in the first 200 bytes only, however many the decoder is shown', () => {
    // `encoding="windows-1252"` ends at byte 199 in the first document, at byte 200 in the second.
    const at = (pad: number) => `<?xml version="1.0"${' '.repeat(pad)}encoding="windows-1252"?>`;
    const whole = (doc: Uint8Array) => {
      const d = decoderFor(doc);
      return d.write(doc) + d.end();
    };
    const inside = at(200 - '<?xml version="1.0"encoding="windows-1252"'.length);
    assert.equal(inside.indexOf('"?>'), 199);
    assert.equal(whole(latin1(`${inside}<a>\u00e9</a>`)), `${inside}<a>é</a>`);
    const outside = at(201 - '<?xml version="1.0"encoding="windows-1252"'.length);
    assert.equal(whole(latin1(`${outside}<a>\u00e9</a>`)), `${outside}<a>\ufffd</a>`);
    assert.equal(decode(latin1(`${outside}<a>\u00e9</a>`)), `${outside}<a>\ufffd</a>`);
    // The attribute may start late in those 200 bytes (l1 is a label of windows-1252).
    const late = `<?xml version="1.0"${' '.repeat(185 - 19)}encoding="l1"?>`;
    assert.equal(late.indexOf('encoding'), 185);
    assert.equal(whole(latin1(`${late}<a>\u00e9</a>`)), `${late}<a>é</a>`);
  });

  it('a declared UTF-8 or UTF-16 without a byte order mark, or an unknown encoding, is read as UTF-8', () => {
    for (const name of ['UTF-8', 'utf8', 'UTF-16', 'utf16', 'UTF-16LE', 'utf-16be', 'x-no-such-encoding']) {
      const doc = `<?xml version="1.0" encoding="${name}"?><a>é €</a>`;
      assert.equal(decode(utf8(doc)), doc, name);
    }
  });

  it('UTF-16 by its byte order mark, little- or big-endian, whatever the declaration says', () => {
    const doc = '<?xml version="1.0" encoding="UTF-8"?><a>é € 𝄞</a>';
    const le = new Uint8Array([0xff, 0xfe, ...Buffer.from(doc, 'utf16le')]);
    assert.equal(decode(le), doc);
    const be = Buffer.from(doc, 'utf16le').swap16();
    assert.equal(decode(new Uint8Array([0xfe, 0xff, ...be])), doc);
  });

  it('only both bytes of a UTF-16 byte order mark make UTF-16: one of them alone is read as UTF-8', () => {
    assert.equal(decode(bytes(0xff, 0x41, 0x42, 0x43)), '\ufffdABC');
    assert.equal(decode(bytes(0x41, 0xfe, 0x42, 0x43)), 'A\ufffdBC');
    assert.equal(decode(bytes(0xfe, 0x41, 0x42, 0x43)), '\ufffdABC');
    assert.equal(decode(bytes(0x41, 0xff, 0x42, 0x43)), 'A\ufffdBC');
  });

  it('UTF-16 and declared encodings decode across pieces cut inside a character', () => {
    const doc = '<a>é € 𝄞</a>';
    const le = new Uint8Array([0xff, 0xfe, ...Buffer.from(doc, 'utf16le')]);
    for (let cut = 1; cut < le.length; cut++) {
      const d = decoderFor(le);
      assert.equal(pieces(d, [le.subarray(0, cut), le.subarray(cut)]).join(''), doc, `cut at ${cut}`);
    }
    // Nothing is held back that could be given: a piece that ends on a whole character is all out.
    const d = decoderFor(le);
    assert.deepEqual(pieces(d, [le.subarray(0, 8), le.subarray(8)]), ['<a>', 'é € 𝄞</a>', '']);
    const d2 = decoderFor(le);
    assert.deepEqual(pieces(d2, [le.subarray(0, 9), le.subarray(9)]), ['<a>', 'é € 𝄞</a>', '']);
  });
});

describe('import: cutting UTF-8 at a character boundary', () => {
  it('a piece that ends inside a character is cut before it, by its lead byte’s length', () => {
    assert.equal(utf8Boundary(bytes()), 0);
    assert.equal(utf8Boundary(bytes(0x61)), 1);
    // 2-, 3- and 4-byte characters, lead bytes at the bottom of each range, cut after each byte.
    assert.equal(utf8Boundary(bytes(0xc0)), 0);
    assert.equal(utf8Boundary(bytes(0xc2)), 0);
    assert.equal(utf8Boundary(bytes(0xc2, 0xa9)), 2);
    assert.equal(utf8Boundary(bytes(0xe0)), 0);
    assert.equal(utf8Boundary(bytes(0xe0, 0xa0)), 0);
    assert.equal(utf8Boundary(bytes(0xe0, 0xa0, 0x80)), 3);
    assert.equal(utf8Boundary(bytes(0x61, 0xe2, 0x82)), 1);
    assert.equal(utf8Boundary(bytes(0xf0)), 0);
    assert.equal(utf8Boundary(bytes(0xf0, 0x9d)), 0);
    assert.equal(utf8Boundary(bytes(0xf0, 0x9d, 0x84)), 0);
    assert.equal(utf8Boundary(bytes(0x61, 0x62, 0xf0, 0x9d, 0x84)), 2);
    assert.equal(utf8Boundary(bytes(0xf0, 0x9d, 0x84, 0x9e)), 4);
    assert.equal(utf8Boundary(bytes(0x61, 0xf0, 0x9d, 0x84, 0x9e)), 5);
  });

  it('continuation bytes with no lead are left to the decoder (never cut)', () => {
    assert.equal(utf8Boundary(bytes(0x80)), 1);
    assert.equal(utf8Boundary(bytes(0x80, 0x80, 0x80)), 3);
    assert.equal(utf8Boundary(bytes(0x61, 0x80, 0x80, 0x80, 0x80)), 5);
  });
});

describe('import: the UTF-8 decoder piece by piece', () => {
  it('gives each piece’s whole characters at once, holding back only a cut one', () => {
    const d = decoderFor(utf8('<a>'));
    const euro = utf8('€');
    assert.deepEqual(pieces(d, [utf8('<a>'), bytes(0x78, euro[0]!), bytes(euro[1]!), bytes(euro[2]!, 0x79)]), ['<a>', 'x', '', '€y', '']);
  });

  it('the first piece is held until it has three bytes (a byte order mark may be coming)', () => {
    const d = decoderFor(utf8('<a>'));
    assert.deepEqual(pieces(d, [utf8('<'), utf8('a'), utf8('>'), utf8('b')]), ['', '', '<a>', 'b', '']);
    const short = decoderFor(utf8('<a'));
    assert.deepEqual(pieces(short, [utf8('<a')]), ['', '<a']);
    const three = decoderFor(utf8('abc'));
    assert.deepEqual(pieces(three, [utf8('abc')]), ['abc', '']);
  });

  it('a byte order mark is dropped only at the start: U+FEFF later in the text is kept', () => {
    const d = decoderFor(bytes(0xef, 0xbb, 0xbf));
    assert.deepEqual(pieces(d, [bytes(0xef, 0xbb, 0xbf, 0x3c), bytes(0xef, 0xbb, 0xbf, 0x61)]), ['<', '\ufeffa', '']);
    const e = decoderFor(utf8('<a>'));
    assert.deepEqual(pieces(e, [utf8('<a>'), bytes(0xef, 0xbb, 0xbf)]), ['<a>', '\ufeff', '']);
    const only = decoderFor(bytes(0xef, 0xbb, 0xbf));
    assert.deepEqual(pieces(only, [bytes(0xef, 0xbb, 0xbf)]), ['', '']);
  });

  it('only a whole UTF-8 byte order mark is dropped: other bytes in its place are text', () => {
    assert.equal(decode(bytes(0x41, 0xbb, 0xbf, 0x42)), 'A\ufffd\ufffdB');
    assert.equal(decode(bytes(0xef, 0x41, 0xbf, 0x42)), '\ufffdA\ufffdB');
    assert.equal(decode(bytes(0xef, 0xbb, 0x41, 0x42)), '\ufffdAB');
    assert.equal(decode(bytes(0x41, 0x42, 0xbf, 0x43)), 'AB\ufffdC');
    // A document that is only the start of a mark, or ends in a cut character whose last bytes look like one.
    assert.deepEqual(pieces(decoderFor(bytes(0xef, 0xbb)), [bytes(0xef, 0xbb)]), ['', '\ufffd']);
    assert.deepEqual(pieces(decoderFor(utf8('abc')), [utf8('abc'), bytes(0xf0, 0x9f, 0xbf)]), ['abc', '', '\ufffd']);
    assert.deepEqual(pieces(decoderFor(utf8('abc')), [utf8('abc'), bytes(0xf0, 0xbb, 0xbf)]), ['abc', '', '\ufffd']);
  });

  it('keeps its own copy of bytes it holds back: the caller may reuse its buffer', () => {
    const d = decoderFor(utf8('<a'));
    const buf = utf8('<a');
    assert.equal(d.write(buf), '');
    buf.set(utf8('zz'));
    assert.equal(d.write(utf8('>')), '<a>');
    const e = decoderFor(utf8('abc'));
    const cut = bytes(0x61, 0x62, 0x63, 0xe2, 0x82);
    assert.equal(e.write(cut), 'abc');
    cut.fill(0x78);
    assert.equal(e.write(bytes(0xac)), '€');
  });

  it('a cut character left at the end becomes one U+FFFD; nothing is carried past end', () => {
    const d = decoderFor(utf8('<a>'));
    assert.deepEqual(pieces(d, [bytes(0x3c, 0x61, 0x3e, 0xf0, 0x9d)]), ['<a>', '\ufffd']);
    assert.equal(d.end(), '');
    const two = decoderFor(bytes(0xc3));
    assert.deepEqual(pieces(two, [bytes(0xc3, 0xa9)]), ['', 'é']);
  });
});
