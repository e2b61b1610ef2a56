/**
 * Bytes → text for the XML reader. UTF-8 unless a UTF-16 byte order mark or the XML declaration
 * says otherwise (an encoding TextDecoder knows, e.g. ISO-8859-1); invalid bytes become U+FFFD
 * instead of failing the report (real reports carry broken UTF-8 in org names and selectors).
 *
 * UTF-8 is decoded piece by piece without TextDecoder's `stream` option, cutting each piece at a
 * character boundary ourselves: Node's streaming decode is ~8× slower than a whole decode (measured
 * 108 ms against 14 ms for 20 MB), which alone would cost a quarter of the XML throughput budget.
 */
const DECL_ENCODING = /^[^>]{0,200}?\bencoding\s*=\s*["']([A-Za-z0-9._-]{1,40})["']/;

export interface ChunkDecoder {
  write(bytes: Uint8Array): string;
  end(): string;
}

function encodingOf(head: Uint8Array): string {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  let ascii = '';
  for (let i = 0; i < head.length && i < 200; i++) ascii += String.fromCharCode(head[i]!);
  const declared = DECL_ENCODING.exec(ascii)?.[1]?.toLowerCase();
  // A declaration of UTF-16 (any byte order) that this ASCII scan could read was written in an
  // ASCII-compatible encoding, not UTF-16 (whose documents start with a byte order mark): UTF-8.
  if (declared && !/^utf-?(8|16(le|be)?)$/.test(declared)) {
    try {
      return new TextDecoder(declared).encoding;
    } catch {
      // An encoding the runtime does not know: read it as UTF-8, which most such reports are.
    }
  }
  return 'utf-8';
}

/** Where the last whole UTF-8 character of `b` ends (a cut never splits a character). */
export function utf8Boundary(b: Uint8Array): number {
  const n = b.length;
  let i = n - 1;
  let back = 0;
  while (i >= 0 && back < 3 && (b[i]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return n;
  const lead = b[i]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return n - i < need ? i : n;
}

class Utf8Decoder implements ChunkDecoder {
  private readonly td = new TextDecoder('utf-8', { ignoreBOM: true });
  private carry: Uint8Array | undefined;
  private first = true;

  write(bytes: Uint8Array): string {
    let b = bytes;
    if (this.carry) {
      b = new Uint8Array(this.carry.length + bytes.length);
      b.set(this.carry);
      b.set(bytes, this.carry.length);
      this.carry = undefined;
    }
    if (this.first && b.length < 3) {
      this.carry = b.slice();
      return '';
    }
    let start = 0;
    if (this.first) {
      this.first = false;
      if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) start = 3;
    }
    const cut = utf8Boundary(b);
    if (cut < b.length) this.carry = b.slice(cut);
    return this.td.decode(b.subarray(start, cut));
  }

  end(): string {
    const rest = this.carry;
    this.carry = undefined;
    if (!rest) return '';
    const bom = this.first && rest[0] === 0xef && rest[1] === 0xbb && rest[2] === 0xbf;
    return this.td.decode(bom ? rest.subarray(3) : rest);
  }
}

class StreamDecoder implements ChunkDecoder {
  private readonly td: TextDecoder;
  constructor(encoding: string) {
    this.td = new TextDecoder(encoding);
  }
  write(bytes: Uint8Array): string {
    return this.td.decode(bytes, { stream: true });
  }
  end(): string {
    return this.td.decode();
  }
}

/** A decoder for a document that starts with `head`. */
export function decoderFor(head: Uint8Array): ChunkDecoder {
  const encoding = encodingOf(head);
  return encoding === 'utf-8' ? new Utf8Decoder() : new StreamDecoder(encoding);
}
