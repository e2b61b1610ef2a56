// The rows chunk a `rows` message carries, inflated first when packed (src/panel/rowSender.ts).
import { inflateRawSync } from 'node:zlib';
import { decodeChunk, type RowChunk } from '../../src/shared/rowCodec';

export function chunkOf(m: { data: Uint8Array; packed?: boolean }): RowChunk {
  return decodeChunk(m.packed ? new Uint8Array(inflateRawSync(m.data)) : m.data);
}
