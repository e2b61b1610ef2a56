// Reading a decoded rows chunk back in the encoder's shape (src/shared/rowCodec.ts), for the codec's tests.
import { L, listOf, SCALARS, str, type RowChunk, type RowFields } from '../../src/shared/rowCodec';

/** Row i of a decoded chunk, in the encoder's shape. */
export function rowOf(c: RowChunk, i: number): RowFields {
  const list = (l: number) => Array.from(listOf(c, l, i), (code) => str(c, code));
  const dk = list(L.dkims);
  const dkims: [string, string, string][] = [];
  for (let k = 0; k < dk.length; k += 3) dkims.push([dk[k]!, dk[k + 1]!, dk[k + 2]!]);
  return { scalars: SCALARS.map((_, f) => str(c, c.scalars[f]![i]!)), emails: c.emails[i]!, rdns: list(L.rdns), dkims, extras: list(L.extras) };
}
