// Rows while the body is still arriving: the client over real HTTP on loopback against the local
// API server, which pauses after its first 64 KB (bodyStallMs) or breaks off (resetMidBody).
import { strict as assert } from 'node:assert';
import { ApiError, fetchDmarcRecords, utcDayRange, type ClientOptions, type DmarcRecord, type RecordsQuery } from '../../src/api';
import { DAY_MS, ORGANIZATIONS, generateDay } from '../server/data';
import { startApiServer, type ApiServer } from '../server/server';
import { rawOf } from '../../src/api/rawRow';

const NOW = new Date('2025-06-15T12:00:00Z');
const KEY = 'demo-key-5f2c8e7a91d4b036';
const ACME = ORGANIZATIONS.find((o) => o.id === 'acme')!;
const FAST: ClientOptions = { retryBaseMs: 5, timeoutMs: 10_000 };
const FIRST = '2025-06-01';
const LAST = '2025-06-10';

/** The rows the server sends for acme over [FIRST, LAST], as JSON would give them back. */
function expectedRows(): unknown[] {
  const out: unknown[] = [];
  for (let d = Date.parse(FIRST) / DAY_MS; d <= Date.parse(LAST) / DAY_MS; d++) out.push(...generateDay(ACME, d, 1));
  return JSON.parse(JSON.stringify(out)) as unknown[];
}

describe('api client: rows while the body arrives', () => {
  let server: ApiServer;
  const query = (): RecordsQuery => ({ baseUrl: server.url, apiKey: KEY, organizationId: 'acme', ...utcDayRange(FIRST, LAST) });

  before(async () => {
    server = await startApiServer({ now: NOW });
  });
  after(() => server.close());
  beforeEach(() => server.setFaults({}));

  it('hands out the first rows while the server still holds the rest back, then every row once, in order', async () => {
    const stallMs = 1500;
    server.setFaults({ bodyStallMs: stallMs });
    const given: DmarcRecord[] = [];
    const offsets: number[] = [];
    let firstRowsAt = 0;
    let lastByteAt = 0;
    const t0 = Date.now();
    const result = await fetchDmarcRecords(query(), {
      ...FAST,
      onRows: (records, offset) => {
        if (!firstRowsAt) firstRowsAt = Date.now();
        assert.equal(offset, given.length, 'each hand-out starts where the last one ended');
        offsets.push(offset);
        given.push(...records);
      },
      onResponse: () => (lastByteAt = Date.now()),
    });
    const want = expectedRows();
    assert.ok(want.length > 300, `enough rows for several chunks (${want.length})`);
    assert.ok(firstRowsAt > 0 && lastByteAt - firstRowsAt >= stallMs * 0.8, `first rows ${firstRowsAt - t0} ms, last byte ${lastByteAt - t0} ms`);
    assert.ok(offsets.length >= 2, 'rows came in several hand-outs');
    assert.equal(given.length, want.length);
    assert.deepStrictEqual(given.map((r) => rawOf(r)), want, 'every row as sent, in order, none lost, none twice');
    assert.equal(result.records.length, given.length);
    given.forEach((r, i) => assert.equal(result.records[i], r, 'the result holds the very rows handed out'));
  });

  it('a body that breaks off: the rows handed out are whole rows from its start, and the fetch ends in a clear error', async () => {
    server.setFaults({ resetMidBody: true });
    const given: DmarcRecord[] = [];
    await assert.rejects(
      fetchDmarcRecords(query(), { ...FAST, retries: 0, onRows: (records) => given.push(...records) }),
      (e: unknown) => e instanceof ApiError && e.kind === 'network' && /closed|lost|reset|ended/i.test(e.message) && !e.message.includes('at '),
    );
    const want = expectedRows();
    assert.ok(given.length > 0 && given.length < want.length, `some rows before the break (${given.length} of ${want.length})`);
    assert.deepStrictEqual(given.map((r) => rawOf(r)), want.slice(0, given.length), 'a prefix of the rows, in order');
  });

  it('a retry after a break starts over at offset 0, and the result holds each row once', async () => {
    server.setFaults({ resetMidBody: { first: 1 } });
    const offsets: number[] = [];
    let given: DmarcRecord[] = [];
    const result = await fetchDmarcRecords(query(), {
      ...FAST,
      retries: 1,
      onRows: (records, offset) => {
        offsets.push(offset);
        if (offset === 0) given = [];
        given.push(...records);
      },
    });
    assert.equal(offsets.filter((o) => o === 0).length, 2, `two starts: ${offsets.join(',')}`);
    assert.deepStrictEqual(given.map((r) => rawOf(r)), expectedRows());
    assert.equal(result.records.length, given.length);
  });

  it('a body that ends mid-JSON (cleanly closed): invalid-response after the whole rows it had', async () => {
    server.setFaults({ truncate: true });
    const given: DmarcRecord[] = [];
    await assert.rejects(
      fetchDmarcRecords(query(), { ...FAST, onRows: (records) => given.push(...records) }),
      (e: unknown) => e instanceof ApiError && e.kind === 'invalid-response' && /cut off or malformed/.test(e.message),
    );
    assert.deepStrictEqual(given.map((r) => rawOf(r)), expectedRows().slice(0, given.length));
  });

  it('a consumer that asks to wait holds the reading: no rows until it lets go, then every row once, in order, and the wait is not the server\'s time', async () => {
    server.setFaults({ bodyStallMs: 200 });
    const given: DmarcRecord[] = [];
    const at: number[] = [];
    const holdMs = 1500;
    let releasedAt = 0;
    const t0 = Date.now();
    const result = await fetchDmarcRecords(query(), {
      ...FAST,
      // Shorter than the hold: the attempt would time out if the hold counted.
      timeoutMs: 1000,
      onRows: (records) => {
        at.push(Date.now());
        given.push(...records);
        if (at.length > 1) return undefined;
        return new Promise<void>((r) => setTimeout(() => ((releasedAt = Date.now()), r()), holdMs));
      },
    });
    assert.ok(at.length >= 2, `several hand-outs (${at.length})`);
    assert.ok(releasedAt > 0 && at[1]! >= releasedAt, `the next rows came ${at[1]! - t0} ms in, after the hold ended at ${releasedAt - t0} ms`);
    assert.deepStrictEqual(given.map((r) => rawOf(r)), expectedRows(), 'every row as sent, in order, none lost, none twice');
    assert.equal(result.records.length, given.length);
  });

  it('cancel during a hold stops the download at once', async () => {
    server.setFaults({ bodyStallMs: 300 });
    const ac = new AbortController();
    const t0 = Date.now();
    await assert.rejects(
      fetchDmarcRecords(query(), {
        ...FAST,
        signal: ac.signal,
        onRows: () => {
          setTimeout(() => ac.abort(), 100);
          return new Promise(() => undefined); // never lets go
        },
      }),
      (e: unknown) => e instanceof ApiError && e.kind === 'cancelled',
    );
    assert.ok(Date.now() - t0 < 2000, `cancelled in ${Date.now() - t0} ms`);
  });

  it('cancel stops the download at once, mid-body', async () => {
    server.setFaults({ bodyStallMs: 5000 });
    const ac = new AbortController();
    let rows = 0;
    const t0 = Date.now();
    await assert.rejects(
      fetchDmarcRecords(query(), {
        ...FAST,
        signal: ac.signal,
        onRows: (records) => {
          rows += records.length;
          ac.abort();
        },
      }),
      (e: unknown) => e instanceof ApiError && e.kind === 'cancelled',
    );
    assert.ok(rows > 0);
    assert.ok(Date.now() - t0 < 3000, `cancelled in ${Date.now() - t0} ms, not after the 5 s stall`);
  });

  it('a network read\'s rows come in parts of about 16 KB of text; a cancel in the first part hands out none of the rest', async () => {
    // The server sends its first 64 KB, then holds the rest back: one read of several parts.
    server.setFaults({ bodyStallMs: 5000 });
    const ac = new AbortController();
    const handOuts: number[] = [];
    await assert.rejects(
      fetchDmarcRecords(query(), {
        ...FAST,
        signal: ac.signal,
        onRows: (records) => {
          handOuts.push(records.length);
          ac.abort();
        },
      }),
      (e: unknown) => e instanceof ApiError && e.kind === 'cancelled',
    );
    const rowChars = JSON.stringify(expectedRows()[0]).length;
    assert.equal(handOuts.length, 1, `one hand-out, none after the cancel (${handOuts.join(', ')})`);
    assert.ok(handOuts[0]! * rowChars < 20 * 1024, `the first part: ${handOuts[0]} rows of ~${rowChars} characters, not the whole 64 KB read`);
  });
});
