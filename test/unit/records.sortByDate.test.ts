// sortByDate (src/records/rangeEntries.ts): runs of positions sorted by date, merged in pairs a
// slice at a time; whatever the dates (ties, negative, huge, fractional, one bit apart), exactly the
// order of one stable sort.
import { strict as assert } from 'node:assert';
import type { DmarcRecord } from '../../src/api/types';
import { rowsWithin, sortByDate } from '../../src/records/rangeEntries';

function rows(n: number, date: (i: number) => number): DmarcRecord[] {
  return Array.from({ length: n }, (_, i) => ({ dateMs: date(i), i }) as unknown as DmarcRecord);
}

async function sameAsStableSort(list: DmarcRecord[]): Promise<void> {
  const want = [...list].sort((a, b) => a.dateMs - b.dateMs);
  const got = await sortByDate(list);
  assert.equal(got.length, list.length);
  const at = got.findIndex((r, k) => r !== want[k]);
  assert.equal(at, -1, `first difference at ${at}: ${JSON.stringify(got[at])} vs ${JSON.stringify(want[at])}`);
}

describe('record store: sortByDate over every kind of date', () => {
  let seed = 99;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const N = 70_001; // above one run of comparisons: the large-range paths

  it('a year of report times to the second, many ties', () => sameAsStableSort(rows(N, () => Date.UTC(2026, 0, 1) + rnd(365 * 86_400) * 1000)));
  it('dates before 1970 and after 2100 (negative and large integers)', () => sameAsStableSort(rows(N, (i) => (i % 2 ? -1 : 1) * rnd(4_000_000) * 1_000_000)));
  it('every row on the same instant: positions kept', () => sameAsStableSort(rows(N, () => 1_700_000_000_000)));
  it('dates already in order, and in reverse order', async () => {
    await sameAsStableSort(rows(N, (i) => i * 1000));
    await sameAsStableSort(rows(N, (i) => (N - i) * 1000));
  });
  it('spans over 2^42 ms and fractional dates (the 64-bit passes) give the same order', async () => {
    await sameAsStableSort(rows(N, (i) => (i % 3 === 0 ? 2 ** 43 : rnd(1000) * 1000)));
    await sameAsStableSort(rows(N, () => rnd(100_000) / 7));
  });
  it('every digit matters: dates differing only in one bit range, each position of it', async () => {
    for (const shift of [0, 14, 28, 40]) await sameAsStableSort(rows(N, () => rnd(3) * 2 ** shift + (shift ? rnd(2) : 0)));
    // Spans of exactly 2^14 and 2^28: their top bit still orders the rows.
    for (const shift of [14, 28]) await sameAsStableSort(rows(N, () => rnd(2) * 2 ** shift));
  });
});

describe('record store: rowsWithin (a period\'s rows out of a sorted view)', () => {
  const day = 86_400_000;
  const list = (n: number, from: number): DmarcRecord[] => Array.from({ length: n }, (_, i) => ({ dateMs: from + Math.floor((i * 10) / n) * day, source: i % 3 ? 'google.com' : 'outlook.com', i }) as unknown as DmarcRecord);

  it('a view inside the period, no source asked for: the same array, not a copy', async () => {
    const rows = list(200_000, 0);
    assert.equal(await rowsWithin(rows, 0, 9 * day, undefined), rows);
    assert.equal((await rowsWithin([], 0, day)).length, 0);
  });

  it('rows outside the period or of another source are left out, in order, over many slices', async () => {
    const rows = list(200_000, 0);
    const want = rows.filter((r) => r.dateMs >= 2 * day && r.dateMs <= 5 * day && r.source === 'outlook.com');
    const got = await rowsWithin(rows, 2 * day, 5 * day, 'outlook.com');
    assert.ok(want.length > 20_000);
    assert.deepStrictEqual(got, want);
    assert.deepStrictEqual(await rowsWithin(rows, 2 * day, 5 * day), rows.filter((r) => r.dateMs >= 2 * day && r.dateMs <= 5 * day));
  });

  it('lets the event loop run while it filters a million rows', async () => {
    const rows = list(1_000_000, 0);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const got = await rowsWithin(rows, 0, 9 * day, 'google.com');
    clearInterval(timer);
    assert.equal(got.length, rows.filter((r) => r.source === 'google.com').length);
    assert.ok(ticks >= 3, `the event loop ran ${ticks} times meanwhile`);
  });
});
