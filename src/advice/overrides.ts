/**
 * The receiver's override reasons of a report file's row (`policy_evaluated/reason/type`, RFC
 * 7489 §A.2 and RFC 9990), read from the row's XML as the importer kept it. API rows carry none.
 * Lower-cased and trimmed; any value is kept (the rules act on the known ones only).
 */
import type { DmarcRecord } from '../api/types';

const NONE: readonly string[] = Object.freeze([]);

function child(v: unknown, key: string): unknown {
  const o = Array.isArray(v) ? v[0] : v;
  return o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

function textOf(v: unknown): string {
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' ? s.trim().toLowerCase() : '';
}

export function overridesOf(r: Pick<DmarcRecord, 'raw'>): readonly string[] {
  const reasons = child(child(r.raw?.row, 'policy_evaluated'), 'reason');
  if (reasons === undefined) return NONE;
  const out: string[] = [];
  for (const x of Array.isArray(reasons) ? reasons : [reasons]) {
    const t = textOf(child(x, 'type'));
    if (t && !out.includes(t)) out.push(t);
  }
  return out.length ? out : NONE;
}
