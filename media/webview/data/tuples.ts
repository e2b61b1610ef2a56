/**
 * Tuples (src/shared/columns.ts) as the binary chunks the host sends (src/shared/rowCodec.ts):
 * tests and the dev harness stand in for the host with these. Untrusted shapes are coerced:
 * anything missing reads as ''.
 */
import { T } from '../../../src/shared/columns';
import { decodeChunk, encodeChunk, type RowChunk, type RowFields } from '../../../src/shared/rowCodec';

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

function strList(v: unknown): string[] {
  return Array.isArray(v) ? v.map(str) : [];
}

/** A tuple (src/shared/columns.ts, untrusted shape: anything missing reads as '') as the binary chunk carries it. */
function tupleFields(raw: unknown): RowFields {
  const t = (Array.isArray(raw) ? raw : []) as unknown[];
  const n = typeof t[T.emails] === 'number' ? (t[T.emails] as number) : Number(t[T.emails]);
  return {
    scalars: [
      str(t[T.source]), str(t[T.reporter]), str(t[T.visibleFrom]), str(t[T.returnPath]), str(t[T.to]), str(t[T.ipAddress]),
      str(t[T.ipCountryCode]), str(t[T.category]), str(t[T.date]), str(t[T.dmarc]), str(t[T.alignedSpf]), str(t[T.alignedDkim]),
      str(t[T.spf]), str(t[T.dkimAligned]), str(t[T.spfReason]), str(t[T.dkimReason]), str(t[T.rowClass]),
      str(t[T.override]),
    ],
    emails: n,
    rdns: strList(t[T.rdns]),
    dkims: Array.isArray(t[T.dkims])
      ? (t[T.dkims] as unknown[]).map((d) => {
          const a = Array.isArray(d) ? d : [];
          return [str(a[0]), str(a[1]), str(a[2])] as const;
        })
      : [],
    extras: strList(t[T.extras]),
  };
}

/** Tuples as one binary chunk (tests and the dev harness stand in for the host with these). */
export function encodeTuples(tuples: readonly unknown[]): Uint8Array {
  return encodeChunk(tuples.length, (i) => tupleFields(tuples[i]));
}

/**
 * Appends tuples to a row store or records model (untrusted shapes are coerced: a missing field
 * reads as ''), through the same binary chunk the host sends. For tests and benchmarks: the
 * shipped webview only ever appends the host's chunks, and leaves the encoder out of its bundle.
 */
export function appendTuples(target: { appendChunk(c: RowChunk, expectedTotal?: number): void }, tuples: readonly unknown[], expectedTotal = 0): void {
  target.appendChunk(decodeChunk(encodeTuples(tuples)), expectedTotal);
}

