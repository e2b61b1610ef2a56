/** The per-row faults of the local API server (server.ts): pure, one row at a time. */
import type { WireRow } from './data';
import type { Rng } from './rng';
import { HOSTILE_STRINGS, share, type Faults } from './faults';
import { applyWireVariants } from './wireVariants';

/**
 * What a row's faults do to it (see `Faults`): a malformed row in its place, `visibleFrom`
 * left out, the wire variants, `rdns` as a string, values outside the documented sets, hostile
 * strings in every text field. Draws from `r` only for the faults that are on.
 */
export function applyRowFaults(row: WireRow, f: Faults, r: Rng, i: number): unknown {
  if (f.badRows && r.chance(share(f.badRows))) return badRow(row, r);
  const out: Record<string, unknown> = row as unknown as Record<string, unknown>;
  if (f.fromOnly && r.chance(share(f.fromOnly))) delete out.visibleFrom;
  applyWireVariants(out, f, r);
  if (f.rdnsString && r.chance(share(f.rdnsString))) out.rdns = row.rdns[0] ?? '';
  if (f.unknownEnums && r.chance(share(f.unknownEnums))) {
    const which = r.int(0, 5);
    if (which === 0) out.category = r.pick(['spoofed', 'unauthorized', 'AUTHORIZED']);
    else if (which === 1) out.dmarc = r.pick(['discard', 'bounce', 'Reject']);
    else if (which === 2) out.spf = r.pick(['hardfail', 'PASS', 'error']);
    else if (which === 3) out.alignedSpf = r.pick(['bestguesspass', 'aligned']);
    else if (which === 4) out.alignedDkim = r.pick(['ok', 'PASS']);
    else if (row.dkims.length) row.dkims[0]!.result = r.pick(['invalid', 'expired', 'PASS']);
    else out.category = 'spoofed';
  }
  if (f.hostileStrings) {
    const list = Array.isArray(f.hostileStrings) && f.hostileStrings.length ? f.hostileStrings : HOSTILE_STRINGS;
    let k = i;
    const h = (s: string) => `${list[k++ % list.length]}${s}`;
    for (const key of Object.keys(out)) {
      if (key !== 'date' && typeof out[key] === 'string') out[key] = h(out[key] as string);
    }
    if (Array.isArray(out.rdns)) out.rdns = (out.rdns as string[]).map(h);
    for (const d of row.dkims) {
      d.selector = h(d.selector);
      d.domain = h(d.domain);
      d.result = h(d.result);
    }
  }
  return out;
}

/** One of the malformed rows a server might send instead of a record. */
function badRow(row: WireRow, r: Rng): unknown {
  const copy: Record<string, unknown> = { ...row };
  switch (r.int(0, 6)) {
    case 0:
      return null;
    case 1:
      return 'not a record';
    case 2:
      delete copy.source;
      return copy;
    case 3:
      copy.emails = String(row.emails);
      return copy;
    case 4:
      copy.date = 'yesterday';
      return copy;
    case 5:
      copy.dkims = 'pass';
      return copy;
    default:
      delete copy.visibleFrom;
      delete copy.from;
      return copy;
  }
}
