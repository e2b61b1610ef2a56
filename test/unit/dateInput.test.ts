import { strict as assert } from 'node:assert';
import { endProblem, parseBound, presetRange, rangeLabel, startProblem } from '../../src/records/dateInput';

describe('date range input', () => {
  const now = new Date('2026-11-21T15:30:00.000Z');

  it('a date is a whole UTC day: its first millisecond as a start, its last as an end', () => {
    assert.equal(parseBound('2026-11-01', 'start')?.toISOString(), '2026-11-01T00:00:00.000Z');
    assert.equal(parseBound('2026-11-01', 'end')?.toISOString(), '2026-11-01T23:59:59.999Z');
    assert.equal(parseBound(' 2028-02-29 ', 'end')?.toISOString(), '2028-02-29T23:59:59.999Z');
  });

  it('date-times are UTC unless they carry an offset', () => {
    assert.equal(parseBound('2026-11-01T08:00', 'start')?.toISOString(), '2026-11-01T08:00:00.000Z');
    assert.equal(parseBound('2026-11-01T08:00:05Z', 'start')?.toISOString(), '2026-11-01T08:00:05.000Z');
    assert.equal(parseBound('2026-11-01T08:00:00+02:00', 'start')?.toISOString(), '2026-11-01T06:00:00.000Z');
    assert.equal(parseBound('2026-11-01T08:00:00-0530', 'start')?.toISOString(), '2026-11-01T13:30:00.000Z');
    assert.equal(parseBound('2026-11-01T08:00:00.5Z', 'start')?.toISOString(), '2026-11-01T08:00:00.500Z');
    assert.equal(parseBound('2026-11-01T08:00:00.12z', 'start')?.toISOString(), '2026-11-01T08:00:00.120Z', 'a lower-case z');
    assert.equal(parseBound(' 2026-11-01T08:00 ', 'start')?.toISOString(), '2026-11-01T08:00:00.000Z', 'spaces around a date-time');
    assert.equal(parseBound('2026-11-01 23:59:59+0100', 'end')?.toISOString(), '2026-11-01T22:59:59.000Z', 'the last second of a day, a compact offset');
  });

  it('refuses what is not a real date or time', () => {
    for (const bad of ['', 'yesterday', '2026-02-29', '2026-13-01', '2026-11-01T24:00', '2026-11-01T08:61', '2026-11-01T08:60', '2026-11-01T08:00:60', '01/11/2026', '2026-11-01T08:00+2']) {
      assert.equal(parseBound(bad, 'start'), undefined, bad);
    }
  });

  it('says why a start or an end is refused', () => {
    assert.match(startProblem('', now) ?? '', /Enter a start/);
    assert.match(startProblem('nope', now) ?? '', /Not a date/);
    assert.match(startProblem('2026-11-22', now) ?? '', /future/);
    assert.equal(startProblem('2026-11-21', now), undefined, 'today has started');
    const start = parseBound('2026-11-10', 'start')!;
    assert.match(endProblem('2026-11-09', start) ?? '', /before the start/);
    assert.equal(endProblem('2026-11-10', start), undefined, 'a one-day range');
    assert.match(startProblem('  ', now) ?? '', /Enter a start/);
    assert.match(endProblem(' ', start) ?? '', /Enter an end/);
    assert.match(endProblem('soon', start) ?? '', /Not a date/);
    assert.equal(startProblem(now.toISOString(), now), undefined, 'a start of exactly now');
    assert.equal(endProblem('2026-11-10T00:00:00Z', start), undefined, 'an end at the very start');
  });

  it('presets are whole UTC days, both bounds inclusive, leap years included', () => {
    const r = (id: Parameters<typeof presetRange>[0], at = now) => {
      const x = presetRange(id, at);
      return [x.start.toISOString(), x.end.toISOString()];
    };
    assert.deepEqual(r('today'), ['2026-11-21T00:00:00.000Z', '2026-11-21T23:59:59.999Z']);
    assert.deepEqual(r('yesterday'), ['2026-11-20T00:00:00.000Z', '2026-11-20T23:59:59.999Z']);
    assert.deepEqual(r('last7'), ['2026-11-15T00:00:00.000Z', '2026-11-21T23:59:59.999Z']);
    assert.deepEqual(r('last30'), ['2026-10-23T00:00:00.000Z', '2026-11-21T23:59:59.999Z']);
    assert.deepEqual(r('last90'), ['2026-08-24T00:00:00.000Z', '2026-11-21T23:59:59.999Z']);
    assert.deepEqual(r('thisMonth'), ['2026-11-01T00:00:00.000Z', '2026-11-30T23:59:59.999Z']);
    assert.deepEqual(r('lastMonth', new Date('2028-03-05T00:00:00Z')), ['2028-02-01T00:00:00.000Z', '2028-02-29T23:59:59.999Z']);
    assert.deepEqual(r('lastMonth', new Date('2027-01-01T00:00:00Z')), ['2026-12-01T00:00:00.000Z', '2026-12-31T23:59:59.999Z']);
  });

  it('names each preset as the range picker shows it', () => {
    const ids = ['today', 'yesterday', 'last7', 'last30', 'last90', 'thisMonth', 'lastMonth'] as const;
    assert.deepEqual(ids.map((id) => presetRange(id, now).label), [
      'Today (21 Nov 2026)', 'Yesterday (20 Nov 2026)', 'Last 7 days', 'Last 30 days', 'Last 90 days', 'This month', 'Last month',
    ]);
  });

  it('labels ranges by day, with times only when the bounds are not whole days', () => {
    assert.equal(rangeLabel(new Date('2026-11-01T00:00:00Z'), new Date('2026-11-30T23:59:59.999Z')), '1 Nov 2026 – 30 Nov 2026');
    assert.equal(rangeLabel(new Date('2026-11-01T00:00:00Z'), new Date('2026-11-01T23:59:59.999Z')), '1 Nov 2026');
    assert.equal(rangeLabel(new Date('2026-11-01T06:00:00Z'), new Date('2026-11-01T23:59:59.999Z')), '2026-11-01T06:00:00Z – 2026-11-01T23:59:59Z');
    assert.equal(rangeLabel(new Date('2026-11-01T00:00:00Z'), new Date('2026-11-02T12:30:00.250Z')), '2026-11-01T00:00:00Z – 2026-11-02T12:30:00.250Z');
  });
});
