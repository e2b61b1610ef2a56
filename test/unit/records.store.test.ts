import { strict as assert } from 'node:assert';
import { RecordStore } from '../../src/records/recordStore';
import { DAY_MS } from '../../src/records/buckets';
import { API_KEY, scope, otherOrg, now, last7, last30, nov, oct, sep, octDay, FakeApi, deferred, expectRecords } from './recordStoreHelpers';

describe('records: RecordStore (memory)', () => {
  let api: FakeApi;
  let store: RecordStore;
  beforeEach(() => {
    api = new FakeApi();
    store = new RecordStore({ fetch: api.fetch, now: () => now });
  });

  it('holds ranges while their rows are at most maxRecords, then drops the oldest first, only as many as needed', async () => {
    const day = (n: number) => ({ s: new Date(oct.start.getTime() + n * DAY_MS), e: new Date(oct.start.getTime() + (n + 1) * DAY_MS - 1) });
    const sizes: number[] = [];
    for (let i = 0; i < 4; i++) sizes.push((await store.get(scope, day(i).s, day(i).e)).records.length);
    const max = sizes[0]! + sizes[1]! + sizes[2]!;
    const logs: string[] = [];
    const capped = new RecordStore({ fetch: api.fetch, now: () => now, maxRecords: max, log: (l) => logs.push(l) });
    for (let i = 0; i < 3; i++) await capped.get(scope, day(i).s, day(i).e);
    assert.deepEqual(logs, [], 'exactly at the cap: nothing dropped');
    await capped.get(scope, day(3).s, day(3).e);
    // The expected outcome, oldest first, never the newest.
    const held = [true, true, true, true];
    let total = max + sizes[3]!;
    const dropped: string[] = [];
    for (let i = 0; i < 3 && total > max; i++) {
      held[i] = false;
      total -= sizes[i]!;
      dropped.push(`memory cache: dropped a range of ${sizes[i]} rows (over ${max})`);
    }
    assert.ok(dropped.length > 0);
    assert.deepEqual(logs, dropped);
    assert.deepEqual([0, 1, 2, 3].map((i) => capped.peek(scope, day(i).s, day(i).e) !== undefined), held);
  });

  it('peekRecords gives the held rows of any range inside a held one: all of it, a prefix, a suffix, one instant', async () => {
    const day = (n: number) => new Date(oct.start.getTime() + n * DAY_MS);
    const end = new Date(day(3).getTime() - 1);
    await store.get(scope, day(0), end);
    const rowsOf = (a: Date, b: Date) => store.peekRecords(scope, a, b)?.map((r) => r.dateMs);
    const want = (a: Date, b: Date) => expectRecords(a, b).map((r) => r.dateMs);
    assert.deepEqual(rowsOf(day(0), end), want(day(0), end));
    assert.deepEqual(rowsOf(day(1), end), want(day(1), end), 'a suffix');
    assert.deepEqual(rowsOf(day(0), new Date(day(2).getTime() - 1)), want(day(0), new Date(day(2).getTime() - 1)), 'a prefix');
    assert.deepEqual(rowsOf(day(1), day(1)), want(day(1), day(1)), 'one instant');
    assert.ok(want(day(1), end).length > 0 && want(day(1), end).length < want(day(0), end).length);
    assert.equal(store.peekRecords(scope, day(1), day(0)), undefined, 'an inverted range');
    assert.equal(store.peekRecords(scope, day(0), day(4)), undefined, 'not held');
  });

  it('a range is a start not after its end: one instant is a range, an inverted one is refused', async () => {
    const t = new Date(oct.start.getTime() + 5 * DAY_MS);
    const one = await store.get(scope, t, t);
    assert.deepEqual(one.records, expectRecords(t, t));
    assert.deepEqual(store.peek(scope, t, t)?.records, one.records);
    const before = new Date(t.getTime() - 1);
    await assert.rejects(store.get(scope, t, before), (e: Error) => e instanceof RangeError && e.message === `Invalid range ${String(t)} – ${String(before)}`);
    assert.equal(store.peek(scope, t, before), undefined);
  });

  it('drops the oldest ranges from memory past maxRecords, never the newest', async () => {
    const logs: string[] = [];
    const small = new RecordStore({ fetch: api.fetch, now: () => now, maxRecords: 1, log: (l) => logs.push(l) });
    const day = (n: number) => ({ s: new Date(oct.start.getTime() + n * DAY_MS), e: new Date(oct.start.getTime() + (n + 1) * DAY_MS - 1) });
    const a = day(0);
    const b = day(2);
    assert.ok((await small.get(scope, a.s, a.e)).records.length > 1);
    await small.get(scope, b.s, b.e);
    assert.equal(small.peek(scope, a.s, a.e), undefined, 'the older range was dropped');
    assert.ok(small.peek(scope, b.s, b.e), 'the newest range stays, even alone over the cap');
    assert.match(logs.join('\n'), /dropped a range/);
    await small.get(scope, a.s, a.e);
    assert.equal(api.calls.length, 3, 'a dropped range is fetched again when asked for');
  });

  it('one fetch for a range, none for a repeat', async () => {
    const a = await store.get(scope, oct.start, oct.end);
    assert.equal(api.calls.length, 1);
    assert.equal(api.calls[0]!.start.getTime(), oct.start.getTime());
    assert.equal(api.calls[0]!.end.getTime(), oct.end.getTime());
    assert.equal(api.calls[0]!.scope.apiKey, API_KEY);
    assert.equal(a.fromCache, 'network');
    assert.deepEqual(a.records, expectRecords(oct.start, oct.end));
    assert.equal(a.warnings[0]!.message, 'v0');
    assert.equal(a.fetchedAt, now.getTime());

    const b = await store.get(scope, oct.start, oct.end);
    assert.equal(api.calls.length, 1);
    assert.equal(b.fromCache, 'memory');
    assert.deepEqual(b.records, a.records);
    // A fresh array each time: a caller sorting it cannot disturb the cache.
    b.records.reverse();
    assert.deepEqual((await store.get(scope, oct.start, oct.end)).records, a.records);
  });

  it('the boundaries are inclusive: a row at 23:59:59.999 on the last day is in, the next ms is not', async () => {
    api.leaky = true;
    const got = await store.get(scope, oct.start, oct.end);
    assert.equal(got.records.at(-1)!.date, '2026-10-31T23:59:59.999Z');
    assert.equal(got.records[0]!.date, '2026-10-01T00:00:00.000Z');
    assert.ok(got.records.every((r) => r.dateMs >= oct.start.getTime() && r.dateMs <= oct.end.getTime()));
    const day = await store.get(scope, octDay(31).start, octDay(31).end);
    assert.equal(day.records.at(-1)!.date, '2026-10-31T23:59:59.999Z');
    assert.ok(!day.records.some((r) => r.date.startsWith('2026-10-30')));
  });

  it('a fetched range serves its sub-ranges without a request', async () => {
    await store.get(scope, oct.start, oct.end);
    for (const d of oct.children!) {
      const got = await store.get(scope, d.start, d.end);
      assert.equal(got.fromCache, 'memory');
      assert.deepEqual(got.records, expectRecords(d.start, d.end));
    }
    await store.get(scope, nov.start, nov.end);
    const l7 = await store.get(scope, last7.start, last7.end);
    assert.deepEqual(l7.records, expectRecords(last7.start, last7.end));
    assert.equal(api.calls.length, 2);
  });

  it('adjacent held ranges together cover a range across their boundary', async () => {
    await store.get(scope, oct.start, oct.end);
    await store.get(scope, nov.start, nov.end);
    const l30 = await store.get(scope, last30.start, last30.end);
    assert.equal(api.calls.length, 2);
    assert.equal(l30.fromCache, 'memory');
    assert.deepEqual(l30.records, expectRecords(last30.start, last30.end));
    assert.equal(l30.warnings.length, 1);
    assert.equal(l30.warnings[0]!.count, 2);
  });

  it('a range not fully covered is fetched', async () => {
    await store.get(scope, oct.start, oct.end);
    await store.get(scope, last30.start, last30.end); // reaches into November
    assert.equal(api.calls.length, 2);
    await store.get(scope, sep.end, oct.end); // one ms of September
    assert.equal(api.calls.length, 3);
  });

  it('scopes are separate: another organization is fetched on its own', async () => {
    await store.get(scope, oct.start, oct.end);
    await store.get(otherOrg, oct.start, oct.end);
    await store.get({ ...scope, accountId: 'acct-2' }, oct.start, oct.end);
    assert.equal(api.calls.length, 3);
    // The key is not part of the cache key: a changed key alone does not re-fetch (invalidate does).
    await store.get({ ...scope, apiKey: 'another' }, oct.start, oct.end);
    assert.equal(api.calls.length, 3);
  });

  it('concurrent gets of a range share one request; a sub-range waits for it', async () => {
    const gate = deferred();
    api.gate = gate.promise;
    const p1 = store.get(scope, oct.start, oct.end);
    const p2 = store.get(scope, oct.start, oct.end);
    const p3 = store.get(scope, octDay(15).start, octDay(15).end);
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(api.calls.length, 1);
    gate.resolve();
    const [a, b, c] = await Promise.all([p1, p2, p3]);
    assert.equal(api.calls.length, 1);
    assert.deepEqual(a.records, b.records);
    assert.equal(a.fromCache, 'network');
    assert.deepEqual(c.records, expectRecords(octDay(15).start, octDay(15).end));
  });

  it('a wider range does not wait for a narrower in-flight one', async () => {
    const gate = deferred();
    api.gate = gate.promise;
    const p1 = store.get(scope, octDay(15).start, octDay(15).end);
    const p2 = store.get(scope, oct.start, oct.end);
    gate.resolve();
    await Promise.all([p1, p2]);
    assert.equal(api.calls.length, 2);
  });

  it('refresh re-fetches and replaces the data', async () => {
    await store.get(scope, oct.start, oct.end);
    api.version = 1;
    const r = await store.get(scope, oct.start, oct.end, { refresh: true });
    assert.equal(api.calls.length, 2);
    assert.equal(r.fromCache, 'network');
    assert.deepEqual(r.records, expectRecords(oct.start, oct.end, 1));
    const again = await store.get(scope, octDay(3).start, octDay(3).end);
    assert.equal(api.calls.length, 2);
    assert.deepEqual(again.records, expectRecords(octDay(3).start, octDay(3).end, 1));
  });

  it('refreshing a wider range supersedes narrower held ones', async () => {
    await store.get(scope, octDay(3).start, octDay(3).end);
    api.version = 1;
    await store.get(scope, oct.start, oct.end, { refresh: true });
    const day = await store.get(scope, octDay(3).start, octDay(3).end);
    assert.deepEqual(day.records, expectRecords(octDay(3).start, octDay(3).end, 1));
  });

  it('a failed refresh rejects and keeps the old data', async () => {
    const first = await store.get(scope, oct.start, oct.end);
    api.fail = new Error('server down');
    api.version = 1;
    await assert.rejects(store.get(scope, oct.start, oct.end, { refresh: true }), /server down/);
    const after = await store.get(scope, oct.start, oct.end);
    assert.equal(after.fromCache, 'memory');
    assert.deepEqual(after.records, first.records);
    assert.deepEqual(store.peek(scope, oct.start, oct.end)!.records, first.records);
    assert.equal(api.calls.length, 2);
  });

  it('a failed first fetch rejects, caches nothing, and the next get tries again', async () => {
    api.fail = new Error('boom');
    await assert.rejects(store.get(scope, oct.start, oct.end), /boom/);
    api.fail = undefined;
    const ok = await store.get(scope, oct.start, oct.end);
    assert.equal(ok.fromCache, 'network');
    assert.equal(api.calls.length, 2);
  });

  it('peek reads memory synchronously and never fetches', async () => {
    assert.equal(store.peek(scope, oct.start, oct.end), undefined);
    await store.get(scope, oct.start, oct.end);
    const p = store.peek(scope, octDay(9).start, octDay(9).end)!;
    assert.equal(p.fromCache, 'memory');
    assert.deepEqual(p.records, expectRecords(octDay(9).start, octDay(9).end));
    assert.equal(store.peek(scope, nov.start, nov.end), undefined);
    assert.equal(store.peek(otherOrg, oct.start, oct.end), undefined);
    assert.equal(api.calls.length, 1);
  });

  it('peekRecords gives the same array while the held data is unchanged, a new one after a refresh', async () => {
    assert.equal(store.peekRecords(scope, oct.start, oct.end), undefined);
    await store.get(scope, oct.start, oct.end);
    const month = store.peekRecords(scope, oct.start, oct.end)!;
    const day = store.peekRecords(scope, octDay(9).start, octDay(9).end)!;
    assert.deepEqual(month, expectRecords(oct.start, oct.end));
    assert.deepEqual(day, expectRecords(octDay(9).start, octDay(9).end));
    assert.equal(store.peekRecords(scope, oct.start, oct.end), month, 'same object on a second call');
    assert.equal(store.peekRecords(scope, octDay(9).start, octDay(9).end), day);
    // Two held months together cover Last 30 days: still one stable array.
    await store.get(scope, nov.start, nov.end);
    const l30 = store.peekRecords(scope, last30.start, last30.end)!;
    assert.deepEqual(l30, expectRecords(last30.start, last30.end));
    assert.equal(store.peekRecords(scope, last30.start, last30.end), l30);
    assert.equal(api.calls.length, 2, 'peekRecords never fetches');
    api.version = 1;
    await store.get(scope, oct.start, oct.end, { refresh: true });
    const refreshed = store.peekRecords(scope, octDay(9).start, octDay(9).end)!;
    assert.notEqual(refreshed, day);
    assert.deepEqual(refreshed, expectRecords(octDay(9).start, octDay(9).end, 1));
    assert.deepEqual(day, expectRecords(octDay(9).start, octDay(9).end), 'an array handed out is never changed');
  });

  it('invalidate forgets an organization or a whole account', async () => {
    await store.get(scope, oct.start, oct.end);
    await store.get(otherOrg, oct.start, oct.end);
    await store.invalidate(scope.accountId, scope.organizationId);
    assert.equal(store.peek(scope, oct.start, oct.end), undefined);
    assert.ok(store.peek(otherOrg, oct.start, oct.end));
    await store.invalidate(scope.accountId);
    assert.equal(store.peek(otherOrg, oct.start, oct.end), undefined);
    await store.get(scope, oct.start, oct.end);
    assert.equal(api.calls.length, 3);
  });

  it('a request in flight during invalidate answers its caller but is not kept', async () => {
    const gate = deferred();
    api.gate = gate.promise;
    const p = store.get(scope, oct.start, oct.end);
    await store.invalidate(scope.accountId);
    gate.resolve();
    assert.equal((await p).records.length > 0, true);
    assert.equal(store.peek(scope, oct.start, oct.end), undefined);
  });

  it('one caller aborting does not cancel a shared request; the last one does', async () => {
    const gate = deferred();
    api.gate = gate.promise;
    const c1 = new AbortController();
    const c2 = new AbortController();
    const p1 = store.get(scope, oct.start, oct.end, { signal: c1.signal });
    const p2 = store.get(scope, oct.start, oct.end, { signal: c2.signal });
    c1.abort();
    await assert.rejects(p1, { name: 'AbortError' });
    assert.equal(api.calls[0]!.signal!.aborted, false);
    gate.resolve();
    assert.ok((await p2).records.length > 0);

    const gate2 = deferred();
    api.gate = gate2.promise;
    const c3 = new AbortController();
    const c4 = new AbortController();
    const p3 = store.get(scope, nov.start, nov.end, { signal: c3.signal });
    const p4 = store.get(scope, nov.start, nov.end, { signal: c4.signal });
    c3.abort();
    c4.abort();
    await assert.rejects(p3, { name: 'AbortError' });
    await assert.rejects(p4, { name: 'AbortError' });
    assert.equal(api.calls[1]!.signal!.aborted, true);
    // A new caller starts a new request rather than joining the abandoned one.
    api.gate = undefined;
    const p5 = await store.get(scope, nov.start, nov.end);
    assert.equal(p5.fromCache, 'network');
    assert.equal(api.calls.length, 3);
  });

  it('rejects an inverted range', async () => {
    await assert.rejects(store.get(scope, oct.end, oct.start), RangeError);
  });
});
