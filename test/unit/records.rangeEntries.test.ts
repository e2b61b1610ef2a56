// The ranges a record store holds and how a range is read from them (src/records/rangeEntries.ts),
// on hand-made rows whose dates say where each belongs.
import { strict as assert } from 'node:assert';
import type { DmarcRecord, FetchResult, RecordWarning } from '../../src/api/types';
import { covering, fromMemory, insert, makeEntry, slice, type HeldRanges } from '../../src/records/rangeEntries';

/** A row known by its id and its instant (the only fields these functions read). */
const row = (id: string, dateMs: number) => ({ id, dateMs }) as unknown as DmarcRecord;
const ids = (rows: readonly DmarcRecord[]) => rows.map((r) => (r as unknown as { id: string }).id);
const result = (records: DmarcRecord[], warnings: RecordWarning[] = [], rejected = 0): FetchResult => ({
  records,
  warnings,
  rejected: { count: rejected, samples: Array.from({ length: rejected }, (_, i) => ({ index: i, reason: `r${i}` })) },
});
const warning = (value: string, count: number): RecordWarning => ({ field: 'category', value, count, firstIndex: 0, message: value });

describe('record store: held ranges', () => {
  it('an entry keeps only the rows inside its bounds (both inclusive), sorted by date, ties in their order', async () => {
    const rows = [row('a', 15), row('out-before', 9), row('b', 10), row('c', 20), row('out-after', 21), row('d', 15)];
    const e = await makeEntry(10, 20, result(rows), 1);
    assert.deepEqual(ids(e.records), ['b', 'a', 'd', 'c']);
    // Inside but out of order, or in order but with a row outside: each alone is mended.
    assert.deepEqual(ids((await makeEntry(0, 100, result([row('x', 5), row('y', 3), row('z', 3)]), 1)).records), ['y', 'z', 'x']);
    assert.deepEqual(ids((await makeEntry(0, 100, result([row('x', 1), row('y', 101), row('z', 2)]), 1)).records), ['x', 'z']);
    assert.deepEqual(ids((await makeEntry(0, 100, result([row('x', -1), row('y', 1)]), 1)).records), ['y']);
    // Already inside and sorted: the very array is kept, equal dates included.
    const ok = [row('p', 0), row('q', 0), row('r', 100)];
    assert.equal((await makeEntry(0, 100, result(ok), 1)).records, ok);
    const later = await makeEntry(0, 100, result([]), 2);
    assert.ok(later.storedSeq > e.storedSeq, 'entries are numbered in the order they were made');
  });

  it('a slice takes the rows of a sub-range (bounds inclusive), or a copy of them all', async () => {
    const e = await makeEntry(0, 100, result([row('a', 0), row('b', 10), row('c', 10), row('d', 50), row('e', 100)]), 1);
    assert.deepEqual(ids(slice(e, 10, 50)), ['b', 'c', 'd']);
    assert.deepEqual(ids(slice(e, 11, 99)), ['d']);
    assert.deepEqual(ids(slice(e, 0, 0)), ['a']);
    const all = slice(e, -5, 200);
    assert.deepEqual(ids(all), ['a', 'b', 'c', 'd', 'e']);
    assert.notEqual(all, e.records, 'a copy: the caller may keep it');
    assert.deepEqual(ids(slice(e, 0, 100)), ['a', 'b', 'c', 'd', 'e']);
  });

  it('inserting drops the held entries inside the new one that are not newer; the covering entry is the latest fetched', async () => {
    const state: HeldRanges = { entries: [], views: new Map([['k', []]]) };
    const old = await makeEntry(10, 20, result([row('old', 15)]), 1);
    const newer = await makeEntry(30, 40, result([row('newer', 35)]), 9);
    const outside = await makeEntry(90, 95, result([]), 1);
    insert(state, old);
    insert(state, newer);
    insert(state, outside);
    const wide = await makeEntry(0, 50, result([row('wide', 15)]), 5);
    insert(state, wide);
    assert.deepEqual(state.entries, [newer, outside, wide]);
    assert.equal(state.views.size, 0, 'views handed out before are forgotten');
    assert.equal(covering(state, 30, 40), newer, 'two entries cover 30..40: the one fetched last');
    assert.equal(covering(state, 10, 20), wide);
    assert.equal(covering(state, 0, 50), wide, 'exactly its bounds');
    assert.equal(covering(state, 0, 51), undefined);
    const same = await makeEntry(0, 50, result([]), 5);
    insert(state, same);
    assert.ok(!state.entries.includes(wide), 'an entry fetched at the same time is replaced');
  });

  it('a range held in consecutive pieces is joined: rows in order, warnings and rejected rows summed, the oldest fetch time', async () => {
    const state: HeldRanges = { entries: [], views: new Map() };
    insert(state, await makeEntry(0, 9, result([row('a', 0), row('b', 9)], [warning('x', 2)], 3), 100));
    insert(state, await makeEntry(10, 19, result([row('c', 10), row('d', 19)], [warning('x', 1), warning('y', 1)], 4), 50));
    insert(state, await makeEntry(5, 14, result([row('mid', 7)]), 10));
    insert(state, await makeEntry(20, 29, result([row('e', 25)], [], 9), 70));
    const got = fromMemory(state, 2, 25)!;
    assert.deepEqual(ids(got.records), ['b', 'c', 'd', 'e'], 'from each cursor, the piece reaching furthest');
    assert.deepEqual(got.warnings.map((w) => [w.value, w.count]), [['x', 3], ['y', 1]]);
    assert.equal(got.rejected.count, 3 + 4 + 9);
    assert.deepEqual(got.rejected.samples.map((s) => s.reason), ['r0', 'r1', 'r2', 'r0', 'r1', 'r2', 'r3', 'r0', 'r1', 'r2'], 'the first ten samples, in range order');
    assert.equal(got.fetchedAt, 50);
    assert.equal(got.fromCache, 'memory');
    assert.equal(fromMemory(state, 25, 35), undefined, 'a gap (30..35) is not held');
    const one = fromMemory(state, 10, 12)!;
    assert.deepEqual(ids(one.records), ['c']);
    assert.equal(one.fetchedAt, 50, 'one covering entry');
  });
});
