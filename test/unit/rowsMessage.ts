// The rows chunk a `rows` message carries, inflated first when packed (src/panel/rowSender.ts),
// and rows to send.
import { inflateRawSync } from 'node:zlib';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord } from '../../src/api/types';
import { decodeChunk, type RowChunk } from '../../src/shared/rowCodec';

export function chunkOf(m: { data: Uint8Array; packed?: boolean }): RowChunk {
  return decodeChunk(m.packed ? new Uint8Array(inflateRawSync(m.data)) : m.data);
}

/** `n` rows with sources S<from>…, their other fields alike. */
export function records(n: number, from = 0): DmarcRecord[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const r = normaliseRow({
      source: `S${i}`, reporter: 'r', visibleFrom: 'a.example', returnPath: 'a.example', ipAddress: `10.0.${i >> 8}.${i & 255}`, rdns: [],
      emails: i + 1, category: 'authorized', date: '2026-11-16T00:00:00Z', dmarc: 'none', alignedSpf: 'pass', alignedDkim: 'pass', spf: 'pass', dkims: [],
    });
    if (!('record' in r)) throw new Error(r.reason);
    return r.record;
  });
}
