import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { isoUtcMs } from '../../media/webview/data/isoDate';

const same = (s: string): void => {
  const want = Date.parse(s);
  const got = isoUtcMs(s);
  assert.ok(Object.is(got, want), `${JSON.stringify(s)}: ${got} ≠ Date.parse ${want}`);
};

describe('webview: record dates read as Date.parse reads them', () => {
  it('the API\'s forms, with and without milliseconds, and their edges', () => {
    for (const s of [
      '2026-11-16T17:20:00.000Z', '2026-11-16T17:20:00Z', '2026-11-16T17:20:00.5Z', '2026-11-16T17:20:00.123Z', '1970-01-01T00:00:00Z',
      '0099-12-31T23:59:59Z', '0100-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2024-02-29T12:00:00Z',
      // Rolled over or refused alike: 30 February, hour 24, second 60, month 13, day 0 and 32.
      '2023-02-30T00:00:00Z', '2026-11-16T24:00:00Z', '2026-11-16T24:30:00Z', '2026-11-16T17:20:60Z', '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z', '2026-11-00T00:00:00Z', '2026-11-32T00:00:00Z', '2026-11-16T17:60:00Z',
      // Other spellings (Date.parse's own answer), and broken ones.
      '2026-11-16T17:20:00+01:00', '2026-11-16 17:20:00Z', '2026-11-16T17:20:00.000z', '2026-11-16', '2026-11-16T17:20Z', 'x026-11-16T17:20:00Z',
      '2026-11-16T17:20:00,000Z', '2026-11-16T17:20:00.0a0Z', '2026-11-16T1:20:00.000Z', '', 'not a date', '２０２６-11-16T17:20:00Z',
    ]) same(s);
  });

  it('any date and time in the API\'s form, and any string of its length', () => {
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }), fc.option(fc.integer({ min: 0, max: 999 })),
        (y, mo, d, h, mi, s, ms) => same(`${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${ms === null ? '' : `.${pad(ms, 3)}`}Z`)),
      { numRuns: 5000 },
    );
    fc.assert(fc.property(fc.string({ minLength: 20, maxLength: 24, unit: fc.constantFrom(...'0123456789-:T.Z+ ') }), same), { numRuns: 5000 });
  });

  it('one character changed anywhere in the API\'s forms, to a character just outside the digits or to a separator', () => {
    // '/' and ':' sit just below and above '0'–'9': a digit check that tests only one side of the
    // range lets them through as digits -1 and 10.
    for (const form of ['2026-11-16T17:20:00.123Z', '2026-11-16T17:20:00Z']) {
      for (let i = 0; i < form.length; i++) {
        for (const c of '/:-.TZx 9') same(form.slice(0, i) + c + form.slice(i + 1));
      }
    }
  });

  it('reads the API\'s forms without Date.parse (the point of the fast path), and only those', () => {
    const parse = Date.parse;
    const seen: string[] = [];
    Date.parse = (s: string) => (seen.push(s), parse(s));
    try {
      const fast = ['2026-11-16T17:20:00.000Z', '2026-11-16T17:20:00Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '0100-01-01T00:00:00Z', '2023-02-30T00:00:00Z', '2026-12-31T23:59:59Z', '2026-01-01T00:00:00.001Z'];
      const want = fast.map((s) => new Date(s).getTime());
      assert.deepEqual(fast.map(isoUtcMs), want);
      assert.deepEqual(seen, [], 'no Date.parse for the API\'s forms');
      const slow = ['0099-12-31T23:59:59Z', '2026-11-16T24:00:00Z', '2026-11-16T17:20:60Z', '2026-11-16T17:60:00Z', '2026-13-01T00:00:00Z', '2026-00-01T00:00:00Z', '2026-11-00T00:00:00Z', '2026-11-32T00:00:00Z',
        '2026-11-16T17:20:00+01:00', '2026-11-16 17:20:00Z', '2026-11-16T17:20:00.000z', '2026-11-16T17:20:00,000Z', '2026-11-16T17:20:00.0a0Z', 'x026-11-16T17:20:00Z', '2026-11-16T17:20:00.5Z', '2026/11/16T17:20:00Z', '2026-11-16t17:20:00Z', '2026-11-16T17-20:00Z', '2026-11-16T17:20-00Z', '2026-11-16T17:20:00.000+'];
      for (const s of slow) isoUtcMs(s);
      assert.deepEqual(seen, slow, 'every other spelling goes to Date.parse');
    } finally {
      Date.parse = parse;
    }
  });
});
