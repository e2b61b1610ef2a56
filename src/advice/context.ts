/**
 * What a row adds to the rules beyond its fields (reasons.ts RowContext): for a report file's row,
 * the alignment modes its report says the domain published (`adkim`, `aspf`: `s` is strict) and
 * the receiver's override reasons. API rows have neither. The host reads it the same way where it
 * encodes rows for the panel (src/records/tuple.ts) and where the tree sums them (health.ts).
 */
import type { DmarcRecord } from '../api/types';
import { overridesOf } from './overrides';
import type { RowContext } from './reasons';

/** `overrides`: the row's override reasons when the caller has read them already (tuple.ts shows them too). */
export function contextOf(r: DmarcRecord, overrides: readonly string[] | undefined = r.raw ? overridesOf(r) : undefined): RowContext | undefined {
  if (!r.raw && !r.published) return undefined;
  const p = r.published;
  const strict = p && (p.adkim === 's' || p.aspf === 's');
  if (!strict && !overrides?.length) return undefined;
  return { ...(strict ? { adkim: p.adkim, aspf: p.aspf } : {}), ...(overrides?.length ? { overrides } : {}) };
}
