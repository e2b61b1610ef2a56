// src/api/url.ts word for word: ISO 8601 dates read strictly (no rolled-over days, a date-time
// without a zone as UTC) with the API's own toISOString() form read without Date.parse, the base
// URL's checks and the request URL built from it, loopback hosts, whole-day ranges.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { buildRecordsUrl, checkBaseUrl, isLoopbackHost, parseIsoDateMs, toIsoUtc, utcDayRange } from '../../src/api';

/** The function's contract written out again: its grammar, a calendar table, then Date.parse of the canonical spelling. */
function expected(s: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/.exec(s);
  if (!m) return NaN;
  const [y, mo, d] = [m[1], m[2], m[3]].map(Number) as [number, number, number];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (days === undefined || d < 1 || d > days) return NaN;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  if (m[4] === undefined) return Date.parse(`${date}T00:00:00.000Z`);
  const z = m[8];
  const zone = z === undefined || z.toUpperCase() === 'Z' ? 'Z' : z.length === 3 ? `${z}:00` : `${z.slice(0, 3)}:${z.slice(-2)}`;
  return Date.parse(`${date}T${m[4]}:${m[5]}:${m[6] ?? '00'}.${(m[7] ?? '').padEnd(3, '0').slice(0, 3)}${zone}`);
}

function same(s: string): void {
  const got = parseIsoDateMs(s);
  assert.ok(Object.is(got, expected(s)), `${JSON.stringify(s)}: ${got} ≠ ${expected(s)}`);
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

describe('api: url.ts', () => {
  it('reads ISO 8601 dates strictly: real calendar days only, other spellings and zones, a fraction cut to milliseconds', () => {
    const cases: [string, string | null][] = [
      ['2024-03-07T10:00:00.000Z', '2024-03-07T10:00:00.000Z'], ['2024-03-07', '2024-03-07T00:00:00.000Z'],
      ['2024-03-07 10:00Z', '2024-03-07T10:00:00.000Z'], ['2024-03-07t10:00:00z', '2024-03-07T10:00:00.000Z'],
      ['2024-03-07T10:00:00', '2024-03-07T10:00:00.000Z'], ['2024-03-07T10:00:00,5Z', '2024-03-07T10:00:00.500Z'],
      ['2024-03-07T10:00:00.123456789Z', '2024-03-07T10:00:00.123Z'], ['2024-03-07T10:00:00+0100', '2024-03-07T09:00:00.000Z'],
      ['2024-03-07T10:00:00+01', '2024-03-07T09:00:00.000Z'], ['2024-03-07T10:00:00-05:30', '2024-03-07T15:30:00.000Z'],
      ['2000-02-29T00:00:00.000Z', '2000-02-29T00:00:00.000Z'], ['2024-02-29', '2024-02-29T00:00:00.000Z'],
      ['2024-09-30T00:00:00.000Z', '2024-09-30T00:00:00.000Z'], ['0100-01-01T00:00:00.000Z', '0100-01-01T00:00:00.000Z'],
      ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
      ['1900-02-29T00:00:00.000Z', null], ['2023-02-29', null], ['2024-09-31T00:00:00.000Z', null], ['2024-11-31T00:00:00.000Z', null],
      ['2024-04-31', null], ['2024-06-31', null], ['2024-13-01', null], ['2024-00-10', null], ['2024-03-00', null],
      ['2024-03-07T10:00:00.000Zx', null], [' 2024-03-07T10:00:00.000Z', null], ['2024-03-07T10:00:00.000Z ', null], ['March 7, 2024', null], ['', null],
    ];
    for (const [s, want] of cases) {
      assert.ok(Object.is(parseIsoDateMs(s), want === null ? NaN : Date.parse(want)), `${s} → ${want}`);
      same(s);
    }
  });

  it('any date and time in the API’s form, and one character changed anywhere in it, read as the contract says', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 999 }),
        (y, mo, d, h, mi, s, ms) => same(`${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}Z`)),
      { numRuns: 3000 },
    );
    // '/' and ':' sit just below and above the digits: a check of one side lets them through as -1 and 10.
    for (const form of ['2024-03-07T17:20:00.123Z', '2000-02-29T23:59:59.999Z']) {
      for (let i = 0; i < form.length; i++) for (const c of '/:-.TZtz ,x09+') same(form.slice(0, i) + c + form.slice(i + 1));
    }
  });

  it('reads the API’s form without Date.parse, at every edge of its ranges, and every other spelling with it', () => {
    const parse = Date.parse;
    const seen: string[] = [];
    Date.parse = (s: string) => (seen.push(s), parse(s));
    try {
      const fast = ['2024-03-07T10:00:00.000Z', '0100-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2000-02-29T12:00:00.000Z', '2024-02-29T00:00:00.000Z',
        '2024-09-30T00:00:00.000Z', '2024-11-30T00:00:00.000Z', '2024-12-31T23:59:59.000Z', '2024-01-01T00:00:00.001Z'];
      const want = fast.map((s) => new Date(s).getTime());
      assert.deepEqual(fast.map(parseIsoDateMs), want);
      assert.deepEqual(seen, [], 'no Date.parse for the API’s form');
      for (const s of ['2024-03-07T10:00:00Z', '2024-03-07T10:00:00.000+01:00', '2024-03-07 10:00:00.000Z', '2024-03-07T10:00:00,000Z', '0099-12-31T23:59:59.000Z', '2024-03-07T24:00:00.000Z']) {
        seen.length = 0;
        parseIsoDateMs(s);
        assert.equal(seen.length, 1, s);
      }
    } finally {
      Date.parse = parse;
    }
  });

  it('query bounds: ISO strings trimmed and given as toISOString(), whole UTC days, and a clear error for a non-date', () => {
    assert.equal(toIsoUtc(' 2024-03-07 '), '2024-03-07T00:00:00.000Z');
    assert.equal(toIsoUtc(new Date(Date.UTC(2024, 2, 7, 10))), '2024-03-07T10:00:00.000Z');
    assert.equal(toIsoUtc('2024-02-30'), undefined);
    assert.equal(toIsoUtc(new Date(NaN)), undefined);
    assert.deepEqual(utcDayRange(' 2024-03-07 ', '2024-03-09T15:00:00+02:00'), { startDate: '2024-03-07T00:00:00.000Z', endDate: '2024-03-09T23:59:59.999Z' });
    assert.deepEqual(utcDayRange(new Date(Date.UTC(2024, 1, 29, 23, 59))), { startDate: '2024-02-29T00:00:00.000Z', endDate: '2024-02-29T23:59:59.999Z' });
    for (const [a, b] of [['x', '2024-03-07'], ['2024-03-07', 'x'], ['2024-02-30', '2024-03-01']]) {
      assert.throws(() => utcDayRange(a!, b), (e: unknown) => e instanceof RangeError && e.message === 'utcDayRange: not a valid date', `${a}…${b}`);
    }
  });

  it('the request URL: the endpoint appended to any prefix, a pasted endpoint kept once, query and fragment replaced', () => {
    const at = (base: string) => buildRecordsUrl(base, 'acme & co', '2024-03-07T00:00:00.000Z', '2024-03-07T23:59:59.999Z').href;
    const q = '?organizationId=acme+%26+co&startDate=2024-03-07T00%3A00%3A00.000Z&endDate=2024-03-07T23%3A59%3A59.999Z';
    assert.equal(at(' https://h.example '), `https://h.example/api/public/dmarc-records${q}`);
    assert.equal(at('https://h.example/p//'), `https://h.example/p/api/public/dmarc-records${q}`);
    assert.equal(at('https://h.example/p/api/public/dmarc-records/'), `https://h.example/p/api/public/dmarc-records${q}`);
    assert.equal(at('https://h.example/xapi/public/dmarc-records'), `https://h.example/xapi/public/dmarc-records/api/public/dmarc-records${q}`);
    assert.equal(at('https://h.example/p/?organizationId=other&x=1#frag'), `https://h.example/p/api/public/dmarc-records${q}`);
  });

  it('base URLs: the exact sentence for blank input, credentials in any part refused', () => {
    assert.equal(checkBaseUrl('   '), 'Enter the base URL of the API, for example https://api.example.com.');
    for (const u of ['https://user@h.example', 'https://:pw@h.example', 'https://user:pw@h.example']) {
      assert.equal(checkBaseUrl(u), 'The base URL must not contain a user name or password; the API key is entered separately.', u);
    }
    assert.equal(checkBaseUrl(' https://h.example/p '), undefined);
  });

  it('loopback hosts: padded names, and anything the URL parser refuses is not loopback', () => {
    for (const h of [' localhost ', '\tLOCALHOST\n', ' [::1] ', '127.0.0.1.']) assert.equal(isLoopbackHost(h), true, JSON.stringify(h));
    for (const h of ['exa mple', 'local host', '[::1', '[]', '   ', '127.0.0.1:80', 'localhost/x', 'localhost?x', 'localhost#x', 'localhost\\x', 'x@localhost', '%']) assert.equal(isLoopbackHost(h), false, JSON.stringify(h));
  });
});
