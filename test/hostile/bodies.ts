/**
 * Generated API bodies for the hostile suite (issue 14), each with its own expectation, worked
 * out from how the body was made (not by asking src/api): the rows it must give, in order, or
 * that it must fail with an ApiError.
 *
 * A good row is in the form of §2.2 of the API spec, its strings drawn from all of Unicode (lone
 * surrogates, NUL, bidi and zero-width characters, payloads included); its date is written in one
 * of the ISO 8601 forms the spec allows, and the instant it names is computed here from the parts.
 * A bad row is a good row with one thing broken that the spec does not allow.
 */
import fc from 'fast-check';

export const KEY = 'hostile-key-Zq9!x/+=%41';

/** What a good row must become: the fields a test compares. */
export interface Want {
  source: string;
  visibleFrom: string;
  rdns: string[];
  emails: number;
  dateMs: number;
}

export interface Row {
  /** The row's JSON text, as it goes into the body. */
  text: string;
  /** Undefined for a row that must be left out. */
  want?: Want;
  why: string;
  /** A good row's fields, before its hostile extra key (bad rows are made from it). */
  obj?: Record<string, unknown>;
}

/** Strings a hostile reporter could put anywhere. */
export const PAYLOADS = [
  '<img src=x onerror="globalThis.__pwned=1">',
  '"><script>globalThis.__pwned=1</script>',
  'javascript:globalThis.__pwned=1',
  '</style><style>*{background:url(http://127.0.0.1:9/x)}</style>',
  '{{constructor.constructor("globalThis.__pwned=1")()}}',
  '\u202egnp.exe\u202c', '\u200b\u200c\u200d\ufeff', '\u0000nul\u0000', '\ud800', '\udfff lone',
  '__proto__', 'constructor', 'prototype', '=cmd|"/c calc"!A1', '@SUM(1+1)', '../../../../etc/passwd',
  '%s%n%x', '${7*7}', 'a'.repeat(300),
];

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.constantFrom(...PAYLOADS) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }) },
);

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** A real calendar day, its time, and one of the spec's ISO forms; `ms` from the parts. */
export const isoDate = fc
  .record({
    y: fc.integer({ min: 1971, max: 2099 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 31 }),
    h: fc.integer({ min: 0, max: 23 }),
    mi: fc.integer({ min: 0, max: 59 }),
    s: fc.integer({ min: 0, max: 59 }),
    ms: fc.integer({ min: 0, max: 999 }),
    off: fc.integer({ min: -14 * 60, max: 14 * 60 }),
    form: fc.constantFrom('z-ms', 'z', 'offset', 'no-zone', 'date-only'),
  })
  .map(({ y, m, d, h, mi, s, ms, off, form }) => {
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    const day = Math.min(d, [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!);
    const ymd = `${y}-${pad(m)}-${pad(day)}`;
    const hms = `${pad(h)}:${pad(mi)}:${pad(s)}`;
    const utc = Date.UTC(y, m - 1, day, h, mi, s);
    if (form === 'z-ms') return { iso: `${ymd}T${hms}.${pad(ms, 3)}Z`, ms: utc + ms };
    if (form === 'z') return { iso: `${ymd}T${hms}Z`, ms: utc };
    if (form === 'no-zone') return { iso: `${ymd}T${hms}`, ms: utc };
    if (form === 'date-only') return { iso: ymd, ms: Date.UTC(y, m - 1, day) };
    const sign = off < 0 ? '-' : '+';
    const a = Math.abs(off);
    return { iso: `${ymd}T${hms}${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`, ms: utc - off * 60_000 };
  });

/** Dates the spec does not allow: each must leave its row out. */
export const BAD_DATES = [
  '2023-02-29T00:00:00Z', '2100-02-29', '2025-04-31T10:00:00Z', '2025-13-01', '2025-00-10', '2025-06-10T10:00:00+25:00',
  '2025-06-10T10:60:00Z', 'June 10, 2025', '', '10/06/2025', '2025-06-10T10:00:00ZZ', '+275760-09-14T00:00:00Z',
];

const RESULT = fc.constantFrom('pass', 'fail', 'none', 'softfail', 'temperror', 'permerror', 'neutral', 'policy', 'skipped', '');

/** A good row: its text and what it must become. */
export const goodRow: fc.Arbitrary<Row> = fc
  .record({
    source: text, reporter: text, visibleFrom: text, returnPath: text, ipAddress: text,
    to: fc.option(text, { nil: undefined }),
    rdns: fc.array(text, { maxLength: 3 }),
    emails: fc.oneof(fc.nat(), fc.constantFrom(0, 1.5, 2 ** 53 - 1, 2 ** 60, 1e300)),
    category: fc.oneof(fc.constantFrom('authorized', 'rejected', 'quarantined', 'partially-authorized'), text),
    date: isoDate,
    dmarc: fc.constantFrom('none', 'quarantine', 'reject'),
    alignedSpf: RESULT, alignedDkim: RESULT, spf: RESULT,
    dkims: fc.array(fc.record({ selector: text, domain: text, result: RESULT }), { maxLength: 2 }),
    extra: fc.constantFrom('', '"__proto__":{"polluted":1},', '"constructor":{"prototype":{"polluted":1}},', '"prototype":"__proto__",', '"source":123,'),
  })
  .map((r) => {
    const { date, extra, ...rest } = r;
    const obj = { ...rest, date: date.iso };
    // `extra` goes first: hostile keys, or a duplicate `source` that the later good one replaces.
    const want = { source: r.source, visibleFrom: r.visibleFrom, rdns: r.rdns, emails: r.emails, dateMs: date.ms };
    return { text: `{${extra}${JSON.stringify(obj).slice(1)}`, want, why: `good (${date.iso}${extra ? `, ${extra.slice(0, 14)}` : ''})`, obj };
  });

const REQUIRED_STRINGS = ['source', 'reporter', 'visibleFrom', 'returnPath', 'ipAddress', 'category', 'date', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf'];
const WRONG: Record<string, string> = { number: '7', negative: '-1', true: 'true', null: 'null', object: '{"a":1}', array: '["x"]', string: '"x"', huge: '1e400' };

/** One field given a value of a type the spec does not allow, or removed: the row must be left out. */
export const badRow: fc.Arbitrary<Row> = fc
  .tuple(
    goodRow,
    fc.oneof(
      fc.record({ field: fc.constantFrom(...REQUIRED_STRINGS), value: fc.constantFrom('number', 'true', 'null', 'object', 'array', 'missing') }),
      fc.record({ field: fc.constant('emails'), value: fc.constantFrom('string', 'negative', 'true', 'null', 'object', 'array', 'huge', 'missing') }),
      fc.record({ field: fc.constantFrom('rdns', 'dkims'), value: fc.constantFrom('number', 'true', 'object', 'missing') }),
      fc.record({ field: fc.constantFrom('to', 'ipCountryCode', 'reportId'), value: fc.constantFrom('number', 'true', 'object', 'array') }),
      fc.record({ field: fc.constant('date'), value: fc.constantFrom(...BAD_DATES.map((d) => `date:${d}`)) }),
      fc.record({ field: fc.constant('dkims'), value: fc.constantFrom('entry-without-selector', 'entry-number') }),
    ),
  )
  .map(([good, { field, value }]) => {
    const obj = { ...good.obj! };
    delete obj[field];
    let fieldText = '';
    if (value.startsWith('date:')) fieldText = `"date":${JSON.stringify(value.slice(5))},`;
    else if (value === 'entry-without-selector') fieldText = '"dkims":[{"domain":"d","result":"pass"}],';
    else if (value === 'entry-number') fieldText = '"dkims":[1],';
    else if (value !== 'missing') fieldText = `${JSON.stringify(field)}:${WRONG[value]},`;
    // `from` could stand in for a missing visibleFrom: make sure it is not there.
    delete obj.from;
    return { text: `{${fieldText}${JSON.stringify(obj).slice(1)}`, why: `${field} ${value}` };
  });

/** Anything a row could be that is not an object: left out. */
export const junkRow: fc.Arbitrary<Row> = fc
  .oneof(fc.constantFrom('null', 'true', '0', '-1', '"row"', '[]', '[{"source":"x"}]', '{}', '"__proto__"'), fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)).map((v) => JSON.stringify(v)))
  .map((t) => ({ text: t, why: 'junk' }));

export interface Body {
  bytes: Buffer;
  contentType: string;
  rows: Row[];
  /** The body must end in an ApiError (not in rows). */
  fails: boolean;
  why: string;
}

const space = fc.constantFrom('', ' ', '\n', '\r\n\t ');

/** A whole body of good, bad and junk rows, enveloped or bare, with odd spacing and maybe a BOM. */
export const body: fc.Arbitrary<Body> = fc
  .record({
    rows: fc.array(fc.oneof({ weight: 4, arbitrary: goodRow }, { weight: 2, arbitrary: badRow }, { weight: 1, arbitrary: junkRow }), { maxLength: 12 }),
    envelope: fc.constantFrom('bare', 'envelope', 'envelope-extra', 'envelope-status-last'),
    sp: space,
    bom: fc.boolean(),
    contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'APPLICATION/JSON;CHARSET=UTF-8'),
  })
  .map(({ rows, envelope, sp, bom, contentType }) => {
    const list = `[${sp}${rows.map((r) => r.text).join(`${sp},${sp}`)}${sp}]`;
    let json: string;
    if (envelope === 'bare') json = list;
    else if (envelope === 'envelope') json = `{${sp}"status":${sp}"success",${sp}"dmarcRecords":${sp}${list}${sp}}`;
    else if (envelope === 'envelope-extra') json = `{"__proto__":{"polluted":1},"meta":{"constructor":{"prototype":{"polluted":1}}},"status":"success","dmarcRecords":${list}}`;
    else json = `{"dmarcRecords":${list},"status":"success"}`;
    const bytes = Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(json, 'utf8')]);
    return named({ bytes, contentType, rows, fails: false, why: `${rows.length} rows, ${envelope}${bom ? ', BOM' : ''}` });
  });

/** A failing case prints as its description and its text, not as a dump of its bytes. */
export function named(b: Body): Body {
  return Object.assign(b, { [fc.toStringMethod]: () => `${b.why}: ${b.bytes.toString('utf8').slice(0, 2000)}` });
}

/** Every structural position of a real response, cut there: each must fail, never give rows as if whole. */
export function truncations(whole: string): Body[] {
  const out: Body[] = [];
  for (let i = 0; i < whole.length; i++) {
    if (!'{}[],:"'.includes(whole[i]!)) continue;
    out.push(named({ bytes: Buffer.from(whole.slice(0, i)), contentType: 'application/json', rows: [], fails: true, why: `cut at ${i} ("${whole.slice(Math.max(0, i - 8), i)}|")` }));
  }
  return out;
}
