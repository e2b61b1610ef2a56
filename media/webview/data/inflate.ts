/**
 * A packed chunk's bytes (raw deflate: src/panel/rowSender.ts), inflated by the browser's own
 * DecompressionStream. DOM-free (Node has it too, for the unit tests).
 */

/** The bytes of a chunk's data, whatever shape structured cloning gave them; undefined for anything else. */
export function chunkBytes(data: unknown): Uint8Array<ArrayBuffer> | undefined {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data) && data.buffer instanceof ArrayBuffer) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}

/** The bytes of a chunk's data; throws for anything else. */
export function requireBytes(data: unknown): Uint8Array<ArrayBuffer> {
  const bytes = chunkBytes(data);
  if (!bytes) throw new Error('the rows arrived in an unknown form');
  return bytes;
}

/** A packed chunk's data, inflated. */
export async function unpack(data: unknown): Promise<Uint8Array> {
  const bytes = requireBytes(data);
  // Written to the stream directly: a Blob per chunk (registered with the browser process) was
  // half a second of the webview's time over 100k rows in VS Code.
  const stream = new DecompressionStream('deflate-raw');
  const writer = stream.writable.getWriter();
  void writer.write(bytes).catch(() => undefined);
  void writer.close().catch(() => undefined);
  return new Uint8Array(await new Response(stream.readable).arrayBuffer());
}
