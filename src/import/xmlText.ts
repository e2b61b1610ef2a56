/**
 * Bytes → text for the XML reader. UTF-8 unless a UTF-16 byte order mark or the XML declaration
 * says otherwise (an encoding TextDecoder knows, e.g. ISO-8859-1); invalid bytes become U+FFFD
 * instead of failing the report (real reports carry broken UTF-8 in org names and selectors).
 */
const DECL_ENCODING = /^[^>]{0,200}?\bencoding\s*=\s*["']([A-Za-z0-9._-]{1,40})["']/;

export function decoderFor(head: Uint8Array): TextDecoder {
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le');
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be');
  let ascii = '';
  for (let i = 0; i < head.length && i < 200; i++) ascii += String.fromCharCode(head[i]!);
  const declared = DECL_ENCODING.exec(ascii)?.[1]?.toLowerCase();
  if (declared && !/^utf-?(8|16)$/.test(declared)) {
    try {
      return new TextDecoder(declared);
    } catch {
      // An encoding the runtime does not know: read it as UTF-8, which most such reports are.
    }
  }
  return new TextDecoder('utf-8');
}
