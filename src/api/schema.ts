/**
 * The wire contract (zod) and the normalisation of one row (body.ts turns a body into rows).
 *
 * Tolerance, per §2.5 of the API spec and the brief:
 *  - the body may be the envelope `{status: "success", dmarcRecords: [...]}` or a bare array;
 *  - `rdns` is a list of strings; a lone string becomes a one-element list ('' becomes []);
 *  - the extra `from` field is accepted and stands in for `visibleFrom` when that is absent;
 *  - unknown fields are kept (`raw` is the row object exactly as parsed; a row of documented
 *    fields only is built again when asked for: rawOf, src/api/rawRow.ts);
 *  - a value outside an enum keeps the row and is reported once per field+value (RecordWarning);
 *  - a row that is not an object, lacks a required field or has a wrong type is left out and
 *    counted in RejectedSummary; every valid row is kept.
 *
 * Speed: zod is the boundary, but running the full zod schema on each row costs 60–160% of the
 * JSON.parse time of the same body (measured at 100k rows, Node 20), over the 50% we allow
 * ourselves; the path below costs about 30% (npm run bench:api). So every row first goes through
 * `fastRecord`, a hand-written check that accepts only rows in exactly the normal form. Any row
 * it does not accept — odd shapes, coercions, errors — goes through `RecordSchema`, which decides. The two must agree on every
 * row `fastRecord` accepts; test/unit/schema.test.ts checks that over a corpus.
 */
import * as z from 'zod';
import {
  CATEGORY_VALUES,
  DISPOSITION_VALUES,
  RESULT_VALUES,
  type DkimEntry,
  type DmarcRecord,
  type RecordWarning,
  type RejectedSummary,
} from './types';
import { snippet } from './errors';
import type { StringPool } from './stringPool';
import { parseIsoDateMs } from './url';

// ---------------------------------------------------------------------------------------------
// Enums (closed): exactly the values of the spec.

/** §2.4: exactly the twelve values, '' included. */
export const ResultSchema = z.enum(RESULT_VALUES);
export const CategorySchema = z.enum(CATEGORY_VALUES);
export const DispositionSchema = z.enum(DISPOSITION_VALUES);

const RESULT_SET: ReadonlySet<string> = new Set(ResultSchema.options);
const CATEGORY_SET: ReadonlySet<string> = new Set(CategorySchema.options);
const DISPOSITION_SET: ReadonlySet<string> = new Set(DispositionSchema.options);

// ---------------------------------------------------------------------------------------------
// Row schema. Enum fields are "open" at the row level: any string passes the shape check, and
// membership in the closed enum above is checked afterwards so an unknown value warns instead of
// dropping the row.

const OpenEnum = z.string();
/** Optional fields: absent or null both mean "not given". */
const OptionalString = z.string().nullish();

export const DkimEntrySchema = z.looseObject({
  selector: z.string(),
  domain: z.string(),
  result: OpenEnum,
});

/** The contract is a list; a lone string (the declared type in the spec) becomes a list. */
export const RdnsSchema = z.union([
  z.array(z.string()),
  z.string().transform((s) => (s === '' ? [] : [s])),
]);

export const IsoDateSchema = z.string().refine((s) => Number.isFinite(parseIsoDateMs(s)), 'is not an ISO 8601 date');

/** One row of §2.2 (plus the tolerated `from`), producing the normalised fields of DmarcRecord. */
export const RecordSchema = z
  .object({
    source: z.string(),
    reporter: z.string(),
    // Optional here because `from` may stand in for it; the refinement below requires one of them.
    visibleFrom: z.string().optional(),
    from: z.unknown().optional(),
    returnPath: z.string(),
    to: OptionalString,
    ipAddress: z.string(),
    ipCountryCode: OptionalString,
    rdns: RdnsSchema,
    emails: z.number().nonnegative(), // zod 4 numbers are finite: NaN and ±Infinity fail
    category: OpenEnum,
    date: IsoDateSchema,
    dmarc: OpenEnum,
    alignedSpf: OpenEnum,
    alignedDkim: OpenEnum,
    spf: OpenEnum,
    dkims: z.array(DkimEntrySchema),
    reportId: OptionalString,
  })
  .refine((r) => r.visibleFrom !== undefined || typeof r.from === 'string', {
    message: 'is missing (and there is no `from` to use instead)',
    path: ['visibleFrom'],
  })
  .transform((r) => ({
    source: r.source,
    reporter: r.reporter,
    visibleFrom: r.visibleFrom ?? (r.from as string),
    returnPath: r.returnPath,
    to: r.to ?? undefined,
    ipAddress: r.ipAddress,
    ipCountryCode: r.ipCountryCode ?? undefined,
    rdns: r.rdns,
    emails: r.emails,
    category: r.category,
    date: r.date,
    dateMs: parseIsoDateMs(r.date),
    dmarc: r.dmarc,
    alignedSpf: r.alignedSpf,
    alignedDkim: r.alignedDkim,
    spf: r.spf,
    dkims: r.dkims as DkimEntry[],
    reportId: r.reportId ?? undefined,
  }));

/** The declared envelope. `status` is checked by hand so a non-success status gets its own message. */
export const EnvelopeSchema = z.looseObject({
  status: z.string().optional(),
  dmarcRecords: z.array(z.unknown()),
});

// ---------------------------------------------------------------------------------------------
// Per-row normalisation.

/**
 * Every DmarcRecord has the same properties in the same order (absent optional fields are
 * `undefined`): one hidden class for 100k objects keeps memory and property access cheap.
 */
function makeRecord(n: z.output<typeof RecordSchema>, raw: Record<string, unknown>): DmarcRecord {
  return {
    source: n.source,
    reporter: n.reporter,
    visibleFrom: n.visibleFrom,
    returnPath: n.returnPath,
    to: n.to,
    ipAddress: n.ipAddress,
    ipCountryCode: n.ipCountryCode,
    rdns: n.rdns,
    emails: n.emails,
    category: n.category,
    date: n.date,
    dateMs: n.dateMs,
    dmarc: n.dmarc,
    alignedSpf: n.alignedSpf,
    alignedDkim: n.alignedDkim,
    spf: n.spf,
    dkims: n.dkims,
    reportId: n.reportId,
    raw,
    shape: undefined,
  };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function allStrings(a: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string') return false;
  return true;
}

function normalDkims(a: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const d = a[i];
    if (!isPlainObject(d) || typeof d.selector !== 'string' || typeof d.domain !== 'string' || typeof d.result !== 'string') return false;
  }
  return true;
}

/**
 * The fast path: accepts only a row already in normal form and builds its record without zod;
 * returns undefined for anything else (the caller then asks RecordSchema). With a pool (the
 * rows of a response), a row of documented fields only is not kept: the record has arrays of its
 * own and the row's shape (src/api/rawRow.ts). Otherwise the record and `raw` share the parsed
 * arrays (both read-only by convention).
 */
export function fastRecord(row: unknown, pool?: StringPool): DmarcRecord | undefined {
  if (!isPlainObject(row)) return undefined;
  const { source, reporter, visibleFrom, returnPath, to, ipAddress, ipCountryCode, rdns, emails, category, date, dmarc, alignedSpf, alignedDkim, spf, dkims, reportId } = row;
  if (
    typeof source !== 'string' ||
    typeof reporter !== 'string' ||
    typeof visibleFrom !== 'string' ||
    typeof returnPath !== 'string' ||
    (to !== undefined && typeof to !== 'string') ||
    typeof ipAddress !== 'string' ||
    (ipCountryCode !== undefined && typeof ipCountryCode !== 'string') ||
    !Array.isArray(rdns) ||
    typeof emails !== 'number' ||
    !(emails >= 0 && emails !== Infinity) || // false for NaN too
    typeof category !== 'string' ||
    typeof date !== 'string' ||
    typeof dmarc !== 'string' ||
    typeof alignedSpf !== 'string' ||
    typeof alignedDkim !== 'string' ||
    typeof spf !== 'string' ||
    !Array.isArray(dkims) ||
    (reportId !== undefined && typeof reportId !== 'string') ||
    !allStrings(rdns) ||
    !normalDkims(dkims)
  ) {
    return undefined;
  }
  const dateMs = parseIsoDateMs(date);
  if (dateMs !== dateMs) return undefined;
  // A response's rows (a pool): a row of only documented fields is not kept (src/api/rawRow.ts)
  // and the values with few distinct values are shared (StringPool); a row kept as `raw` gets them too.
  const shape = pool?.shapes.of(row, dkims as object[]);
  if (pool && !shape) pool.internRow(row);
  return {
    source: shared(pool, source),
    reporter: shared(pool, reporter),
    visibleFrom: shared(pool, visibleFrom),
    returnPath: pool ? pool.path(returnPath) : returnPath,
    to,
    ipAddress,
    ipCountryCode: ipCountryCode === undefined ? undefined : shared(pool, ipCountryCode),
    rdns: shape ? pool!.names(rdns as string[]) : (rdns as string[]),
    emails,
    category: shared(pool, category),
    date,
    dateMs,
    dmarc: shared(pool, dmarc),
    alignedSpf: shared(pool, alignedSpf),
    alignedDkim: shared(pool, alignedDkim),
    spf: shared(pool, spf),
    dkims: shape ? pool!.signatures(dkims as DkimEntry[]) : (dkims as DkimEntry[]),
    reportId,
    raw: shape ? undefined : row,
    shape,
  };
}

/** The pool's string equal to `s` (`s` itself without a pool). */
const shared = (pool: StringPool | undefined, s: string): string => (pool ? pool.str(s) : s);

/** The full zod path: a record, or the reason the row is left out. */
export function zodRecord(row: unknown): { record: DmarcRecord } | { reason: string } {
  const r = RecordSchema.safeParse(row);
  if (r.success) return { record: makeRecord(r.data, row as Record<string, unknown>) };
  return { reason: describeIssue(r.error.issues[0], row) };
}

/** One row through both paths, as the parser does it. */
export function normaliseRow(row: unknown): { record: DmarcRecord } | { reason: string } {
  const fast = fastRecord(row);
  return fast ? { record: fast } : zodRecord(row);
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `"${snippet(v, 40)}"`;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return 'an object'; // what else JSON.parse makes
}

/** "emails should be a number, got "12"" rather than zod's generic wording. */
function describeIssue(issue: z.core.$ZodIssue | undefined, row: unknown): string {
  if (!issue) return 'invalid row';
  if (issue.path.length === 0) {
    return isPlainObject(row) ? issue.message : `the row is ${describeValue(row)}, not an object`;
  }
  const path = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
  let value: unknown = row;
  for (const p of issue.path) value = isPlainObject(value) || Array.isArray(value) ? (value as Record<PropertyKey, unknown>)[p as PropertyKey] : undefined;
  if (issue.code === 'invalid_type' || issue.code === 'invalid_union') {
    if (value === undefined) return `${path} is missing`;
    // rdns is the one union (a list of strings, or one string).
    const expected = issue.code === 'invalid_type' ? issue.expected : 'a list of strings';
    return `${path} should be ${expected === 'array' ? 'a list' : expected === 'object' ? 'an object' : expected.startsWith('a') ? expected : `a ${expected}`}, got ${describeValue(value)}`;
  }
  if (issue.code === 'too_small') return `${path} is negative (${describeValue(value)})`;
  // The rest are the schema's own refinements, whose messages read "is …".
  return value === undefined ? `${path} ${issue.message}` : `${path} ${issue.message} (${describeValue(value)})`;
}

// ---------------------------------------------------------------------------------------------
// Warnings for values outside the enums.

/** Distinct values reported per field; past that they are folded into one "other values" entry. */
const MAX_DISTINCT_PER_FIELD = 50;
const OTHER = '\u0000other';

/** The collector of the response read last, kept for V8's sake (see StringPool's `kept`). */
const kept: { collector?: WarningCollector } = {};

/** Values outside the enums, once per field + value, in the order first seen. */
export class WarningCollector {
  private readonly byKey = new Map<string, RecordWarning>();
  private readonly distinct = new Map<string, number>();

  note(field: string, value: string, index: number): void {
    let key = `${field}\u0000${value}`;
    const w = this.byKey.get(key);
    if (w) {
      w.count++;
      return;
    }
    const n = this.distinct.get(field) ?? 0;
    if (n >= MAX_DISTINCT_PER_FIELD) {
      // A hostile or broken server could send a new value on every row: fold the rest.
      key = `${field}\u0000${OTHER}`;
      const other = this.byKey.get(key);
      if (other) other.count++;
      else this.byKey.set(key, { field, value: OTHER, count: 1, firstIndex: index, message: '' });
      return;
    }
    this.distinct.set(field, n + 1);
    this.byKey.set(key, { field, value, count: 1, firstIndex: index, message: '' });
  }

  check(rec: DmarcRecord, index: number): void {
    if (!CATEGORY_SET.has(rec.category)) this.note('category', rec.category, index);
    if (!DISPOSITION_SET.has(rec.dmarc)) this.note('dmarc', rec.dmarc, index);
    if (!RESULT_SET.has(rec.alignedSpf)) this.note('alignedSpf', rec.alignedSpf, index);
    if (!RESULT_SET.has(rec.alignedDkim)) this.note('alignedDkim', rec.alignedDkim, index);
    if (!RESULT_SET.has(rec.spf)) this.note('spf', rec.spf, index);
    const dk = rec.dkims;
    for (let i = 0; i < dk.length; i++) if (!RESULT_SET.has(dk[i]!.result)) this.note('dkims[].result', dk[i]!.result, index);
  }

  result(): RecordWarning[] {
    kept.collector = this;
    const out = [...this.byKey.values()];
    for (const w of out) {
      const rows = w.count === 1 ? `1 row (#${w.firstIndex})` : `${w.count} rows (first #${w.firstIndex})`;
      if (w.value === OTHER) {
        w.value = '';
        w.message = `More unknown ${w.field} values in ${rows}; rows kept.`;
      } else {
        w.message = `Unknown ${w.field} value "${snippet(w.value, 60)}" in ${rows}; rows kept.`;
      }
    }
    return out;
  }
}

/** Row samples kept in RejectedSummary. */
export const MAX_REJECTED_SAMPLES = 5;

/** Validates and normalises one row at `index` into `out`, noting warnings and rejections (with `pool`, its common values shared). */
export function takeRow(row: unknown, index: number, out: DmarcRecord[], warnings: WarningCollector, rejected: RejectedSummary, pool?: StringPool): void {
  let rec = fastRecord(row, pool);
  if (!rec) {
    const z = zodRecord(row);
    if ('reason' in z) {
      rejected.count++;
      if (rejected.samples.length < MAX_REJECTED_SAMPLES) rejected.samples.push({ index, reason: z.reason });
      return;
    }
    rec = z.record;
  }
  warnings.check(rec, index);
  out.push(rec);
}
