// The record store passing rows on while a fetch is under way: over real HTTP against the local
// API server, which holds the body back after its first 64 KB (bodyStallMs) or breaks it off.
import { strict as assert } from 'node:assert';
import { ApiError, fetchDmarcRecords, utcDayRange, type DmarcRecord } from '../../src/api';
import { RecordStore, type RecordScope } from '../../src/records/recordStore';
import { sortByDate } from '../../src/records/rangeEntries';
import { startApiServer, type ApiServer } from '../server/server';

const NOW = new Date('2025-06-15T12:00:00Z');
const KEY = 'demo-key-5f2c8e7a91d4b036';

describe('record store: rows while they arrive', () => {
  let server: ApiServer;
  let scope: RecordScope;
  const days = utcDayRange('2025-06-01', '2025-06-10');
  const range = { startDate: new Date(days.startDate), endDate: new Date(days.endDate) };
  const newStore = (): RecordStore =>
    new RecordStore({
      fetch: (sc, start, end, signal, onRows) =>
        fetchDmarcRecords({ baseUrl: sc.baseUrl, apiKey: sc.apiKey, organizationId: sc.organizationId, startDate: start, endDate: end }, { signal, onRows, retries: 0, timeoutMs: 10_000 }),
      now: () => NOW,
    });

  before(async () => {
    server = await startApiServer({ now: NOW });
    scope = { accountId: 'a1', baseUrl: server.url, apiKey: KEY, organizationId: 'acme' };
  });
  after(() => server.close());
  beforeEach(() => server.setFaults({}));

  it('hands the rows to every caller as they arrive, replaying what came before a late caller joined', async () => {
    server.setFaults({ bodyStallMs: 800 });
    const store = newStore();
    const early: DmarcRecord[] = [];
    const late: DmarcRecord[] = [];
    let lateJoined: Promise<unknown> | undefined;
    const first = store.get(scope, range.startDate, range.endDate, {
      onRows: (records) => {
        early.push(...records);
        // Join while the server holds the rest of the body back.
        lateJoined ??= store.get(scope, range.startDate, range.endDate, { onRows: (r) => late.push(...r) });
      },
    });
    const a = await first;
    await lateJoined;
    assert.equal(server.requests.filter((r) => r.path.endsWith('/dmarc-records')).length, 1, 'one request for both');
    assert.ok(a.records.length > 300);
    assert.equal(early.length, a.records.length, 'every row handed out');
    assert.deepStrictEqual(late, early, 'the late caller got the same rows, in the same order');
    assert.deepStrictEqual(new Set(early), new Set(a.records), 'the result is the rows handed out');
    // Served from memory now: no rows handed out, nothing fetched.
    const handed: DmarcRecord[] = [];
    const again = await store.get(scope, range.startDate, range.endDate, { onRows: (r) => handed.push(...r) });
    assert.equal(again.fromCache, 'memory');
    assert.equal(handed.length, 0);
  });

  it('tells each caller when the whole body is in, before the range is sorted and kept; a caller joining after that hears at once', async () => {
    server.setFaults({ bodyStallMs: 300 });
    const store = newStore();
    const requestsBefore = server.requests.length;
    const handed: DmarcRecord[] = [];
    const events: string[] = [];
    let whole: DmarcRecord[] | undefined;
    let joinedAfter: Promise<unknown> | undefined;
    let lateHeard: DmarcRecord[] | undefined;
    const got = store.get(scope, range.startDate, range.endDate, {
      onRows: (r) => handed.push(...r),
      onComplete: (result) => {
        events.push('complete');
        whole = result.records;
        assert.equal(store.peek(scope, range.startDate, range.endDate), undefined, 'not kept yet');
        // Joins the same flight after its body is in: told at once, with the same result.
        joinedAfter = store.get(scope, range.startDate, range.endDate, { onRows: () => undefined, onComplete: (late) => (lateHeard = late.records) });
      },
    });
    void got.then(() => events.push('resolved'));
    const data = await got;
    await joinedAfter;
    assert.deepEqual(events, ['complete', 'resolved']);
    assert.ok(whole && whole.length > 300);
    assert.deepStrictEqual(whole, handed, 'the rows handed out, in their order');
    assert.equal(lateHeard, whole);
    assert.deepStrictEqual(new Set(data.records), new Set(whole));
    assert.equal(server.requests.slice(requestsBefore).filter((r) => r.path.endsWith('/dmarc-records')).length, 1, 'one request for both');
  });

  it('sorts and keeps the range only once the callers told of its body have handed its rows on', async () => {
    const store = newStore();
    let handedOn!: () => void;
    let toldAt = 0;
    const got = store.get(scope, range.startDate, range.endDate, {
      onRows: () => undefined,
      onComplete: () => {
        toldAt = Date.now();
        return new Promise<void>((r) => (handedOn = r));
      },
    });
    let resolved = false;
    void got.then(() => (resolved = true));
    while (!toldAt) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(resolved, false, 'the caller still hands its rows on: the range waits');
    assert.equal(store.peek(scope, range.startDate, range.endDate), undefined, 'not kept yet');
    handedOn();
    const data = await got;
    assert.ok(data.records.length > 300);
    assert.equal(store.peek(scope, range.startDate, range.endDate)?.records.length, data.records.length, 'kept once handed on');
  });

  it('a caller that asks the fetch to wait holds it for every caller; the rows then all come, in order', async () => {
    server.setFaults({ bodyStallMs: 200 });
    const store = newStore();
    const holder: number[] = [];
    const other: number[] = [];
    let releasedAt = 0;
    const a = store.get(scope, range.startDate, range.endDate, {
      onRows: () => {
        holder.push(Date.now());
        if (holder.length > 1) return undefined;
        return new Promise<void>((r) => setTimeout(() => ((releasedAt = Date.now()), r()), 1000));
      },
    });
    const rowsOfB: DmarcRecord[] = [];
    const b = store.get(scope, range.startDate, range.endDate, {
      onRows: (records) => {
        other.push(Date.now());
        rowsOfB.push(...records);
      },
    });
    const [ra, rb] = await Promise.all([a, b]);
    assert.ok(other.length >= 2 && releasedAt > 0, `several hand-outs (${other.length})`);
    assert.ok(other[1]! >= releasedAt, 'the other caller got no further rows while the first held the fetch');
    assert.equal(rowsOfB.length, ra.records.length, 'every row handed out');
    assert.deepStrictEqual(new Set(rowsOfB), new Set(rb.records));
  });

  it('a body that broke off never reports complete', async () => {
    server.setFaults({ resetMidBody: true });
    let heard = 0;
    await assert.rejects(newStore().get(scope, range.startDate, range.endDate, { onRows: () => undefined, onComplete: () => heard++ }));
    assert.equal(heard, 0);
  });

  it('rows of a body that broke off are handed out but never kept as the range', async () => {
    server.setFaults({ resetMidBody: true });
    const store = newStore();
    const handed: DmarcRecord[] = [];
    await assert.rejects(store.get(scope, range.startDate, range.endDate, { onRows: (r) => handed.push(...r) }), (e: unknown) => e instanceof ApiError && e.kind === 'network');
    assert.ok(handed.length > 0, 'some rows arrived before the break');
    assert.equal(store.peek(scope, range.startDate, range.endDate), undefined, 'nothing held for the range');
    server.setFaults({});
    const ok = await store.get(scope, range.startDate, range.endDate);
    assert.equal(ok.fromCache, 'network', 'fetched again');
    assert.ok(ok.records.length > handed.length);
  });

  it('a range streaming in past the memory bound drops the older ranges while it arrives, not once it is in', async () => {
    // 100 rows a day: the first range (2 days) is 200 rows; the second (4 days) brings 400 more,
    // past the bound of 300, so the first must go before the second is complete.
    const big = await startApiServer({ now: NOW, rowsPerDay: 100, faults: { bodyStallMs: 300 } });
    try {
      const sc = { ...scope, baseUrl: big.url };
      const logs: string[] = [];
      const store = new RecordStore({
        fetch: (s, start, end, signal, onRows) =>
          fetchDmarcRecords({ baseUrl: s.baseUrl, apiKey: s.apiKey, organizationId: s.organizationId, startDate: start, endDate: end }, { signal, onRows, retries: 0, timeoutMs: 10_000 }),
        now: () => NOW,
        maxRecords: 300,
        log: (l) => logs.push(l),
      });
      const a = utcDayRange('2025-06-01', '2025-06-02');
      const b = utcDayRange('2025-06-05', '2025-06-08');
      // A panel still shows the first range: only the bound drops it (no view: see the next test).
      store.setViews(() => true);
      const first = await store.get(sc, new Date(a.startDate), new Date(a.endDate));
      assert.equal(first.records.length, 200);
      const heldWhile: boolean[] = [];
      const second = await store.get(sc, new Date(b.startDate), new Date(b.endDate), {
        onRows: () => heldWhile.push(store.peek(sc, new Date(a.startDate), new Date(a.endDate)) !== undefined),
      });
      assert.equal(second.records.length, 400);
      assert.ok(heldWhile.length >= 2, `rows came in ${heldWhile.length} pieces`);
      assert.equal(heldWhile[0], true, 'held while few rows had arrived');
      assert.equal(heldWhile.at(-1), false, 'dropped before the last rows were handed out');
      assert.deepEqual(logs.filter((l) => l.startsWith('memory cache')), ['memory cache: dropped a range of 200 rows (over 300)']);
      assert.equal(store.peek(sc, new Date(b.startDate), new Date(b.endDate))?.records.length, 400, 'the new range is kept');
    } finally {
      await big.close();
    }
  });
  it('over the cap already, a fetch\u2019s first rows drop the ranges no view shows; one a view shows goes only past the usual bound', async () => {
    const big = await startApiServer({ now: NOW, rowsPerDay: 100, faults: { bodyStallMs: 300 } });
    try {
      const sc = { ...scope, baseUrl: big.url };
      // The first range (5 days, 500 rows) alone over the cap (400); the first piece of the second
      // (4 days) is under half the cap, where the bound drops ranges while rows arrive.
      const a = utcDayRange('2025-06-01', '2025-06-05');
      const b = utcDayRange('2025-06-10', '2025-06-13');
      const heldAtFirstRows = async (shown: boolean): Promise<boolean[]> => {
        const store = new RecordStore({
          fetch: (s, start, end, signal, onRows) =>
            fetchDmarcRecords({ baseUrl: s.baseUrl, apiKey: s.apiKey, organizationId: s.organizationId, startDate: start, endDate: end }, { signal, onRows, retries: 0, timeoutMs: 10_000 }),
          now: () => NOW,
          maxRecords: 400,
        });
        const aStart = new Date(a.startDate).getTime();
        store.setViews((_acc, _org, start, end) => shown && start <= aStart && end >= aStart);
        // Alone over the cap: held (the newest range stays while a view may show it).
        assert.equal((await store.get(sc, new Date(a.startDate), new Date(a.endDate))).records.length, 500);
        const held: boolean[] = [];
        await store.get(sc, new Date(b.startDate), new Date(b.endDate), {
          onRows: () => held.push(store.peek(sc, new Date(a.startDate), new Date(a.endDate)) !== undefined),
        });
        return held;
      };
      const unshown = await heldAtFirstRows(false);
      assert.equal(unshown[0], false, 'no view shows it: gone before the first rows are handed out');
      const shown = await heldAtFirstRows(true);
      assert.ok(shown.length >= 2, `rows came in ${shown.length} pieces`);
      assert.equal(shown[0], true, 'a view shows it: still held at the first rows');
      assert.equal(shown.at(-1), false, 'and dropped past the bound, as before');
    } finally {
      await big.close();
    }
  });
  it('over the cap already, a fetch drops the ranges no view shows as it starts, before its request (and keeps one a view shows)', async () => {
    const big = await startApiServer({ now: NOW, rowsPerDay: 100 });
    try {
      const sc = { ...scope, baseUrl: big.url };
      const a = utcDayRange('2025-06-01', '2025-06-05');
      const b = utcDayRange('2025-06-10', '2025-06-11');
      const heldAtRequest = async (shown: boolean): Promise<{ held: boolean; rows: number }> => {
        let held: boolean | undefined;
        const store: RecordStore = new RecordStore({
          fetch: (s, start, end, signal, onRows) => {
            // Called once the flight has started, before anything is sent or read.
            if (start.getTime() === new Date(b.startDate).getTime()) held = store.peek(sc, new Date(a.startDate), new Date(a.endDate)) !== undefined;
            return fetchDmarcRecords({ baseUrl: s.baseUrl, apiKey: s.apiKey, organizationId: s.organizationId, startDate: start, endDate: end }, { signal, onRows, retries: 0, timeoutMs: 10_000 });
          },
          now: () => NOW,
          maxRecords: 400,
        });
        const aStart = new Date(a.startDate).getTime();
        store.setViews((_acc, _org, start, end) => shown && start <= aStart && end >= aStart);
        assert.equal((await store.get(sc, new Date(a.startDate), new Date(a.endDate))).records.length, 500, 'alone over the cap, held');
        const rows = (await store.get(sc, new Date(b.startDate), new Date(b.endDate))).records.length;
        assert.notEqual(held, undefined, 'the second range was fetched');
        return { held: held!, rows };
      };
      const unshown = await heldAtRequest(false);
      assert.equal(unshown.held, false, 'no view shows it: gone before the request');
      assert.equal(unshown.rows, 200);
      const shown = await heldAtRequest(true);
      assert.equal(shown.held, true, 'a view shows it: still held when the request goes');
      assert.equal(shown.rows, 200);
    } finally {
      await big.close();
    }
  });
});

describe('record store: sorting a large range by date', () => {
  it('sorts by date, ties in their order, exactly as one stable sort, a slice at a time without holding the event loop', async () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const rows = Array.from({ length: 200_003 }, (_, i) => ({ dateMs: rnd(5000) * 1000, i }) as unknown as DmarcRecord);
    const want = [...rows].sort((a, b) => a.dateMs - b.dateMs);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const got = await sortByDate(rows);
    clearInterval(timer);
    assert.equal(got.length, rows.length);
    assert.ok(got.every((r, k) => r === want[k]), 'the same order as a stable sort');
    assert.ok(ticks > 0, 'timers ran while it sorted');
    assert.deepStrictEqual((await sortByDate(rows.slice(0, 10))).map((r) => r.dateMs), want.filter((r) => rows.slice(0, 10).includes(r)).map((r) => r.dateMs));
  });
});
