// The API client over real HTTP against the local API server's wire variants (issue 15, item 3):
// other ISO 8601 spellings of dates, `from` beside or instead of `visibleFrom`, null optionals,
// `emails` as a numeric string, and compressed bodies. Every field of every normalised row is
// compared with an independent mapping of the row as it was sent (read raw, uncompressed).
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import * as zlib from 'node:zlib';
import { fetchDmarcRecords, utcDayRange, type ClientOptions, type FetchResult } from '../../src/api';
import { DAY_MS, ORGANIZATIONS, generateDay, type WireRow } from '../server/data';
import { API_PATH, parseFaults, startApiServer, type ApiServer, type Faults } from '../server/server';
import { CONTENT_ENCODINGS, DATE_SPELLINGS, type DateSpelling } from '../server/wireVariants';
import { assertRecordsMatch } from './recordMapping';

const NOW = new Date('2025-06-15T12:00:00Z');
const KEY = 'demo-key-5f2c8e7a91d4b036';
const ACME = ORGANIZATIONS.find((o) => o.id === 'acme')!;
const FAST: ClientOptions = { retryBaseMs: 5, timeoutMs: 10_000, retries: 0 };
const FIRST_DAY = '2025-06-01';
const LAST_DAY = '2025-06-10';
const dayIndex = (d: string) => Date.parse(d) / DAY_MS;

/** The generated rows of the range, in the order the server sends them (by day). */
function generated(first = FIRST_DAY, last = first): WireRow[] {
  const out: WireRow[] = [];
  for (let d = dayIndex(first); d <= dayIndex(last); d++) out.push(...generateDay(ACME, d, 1));
  return out;
}

/** Each spelling as a test-side pattern, so the server is seen to send what the mode says. */
const SPELLED: Record<DateSpelling, RegExp> = {
  offset: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+02:00$/,
  negativeOffset: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-05:30$/,
  plusZero: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/,
  hourOffset: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+03$/,
  basicOffset: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0100$/,
  noMillis: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
  micros: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/,
  comma: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,\d{3}Z$/,
  lowercase: /^\d{4}-\d\d-\d\dt\d\d:\d\d:\d\d\.\d{3}z$/,
  space: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/,
  dateOnly: /^\d{4}-\d\d-\d\d$/,
};
const spellingOf = (date: string) => DATE_SPELLINGS.find((s) => SPELLED[s].test(date));

/**
 * The instant a spelled date must stand for, from the generated `toISOString()` date: the same
 * one, less the milliseconds when they are not sent, or the day's start for a date alone.
 */
function instant(canonical: string, spelling: DateSpelling): number {
  const ms = Date.parse(canonical);
  if (spelling === 'noMillis') return Math.floor(ms / 1000) * 1000;
  if (spelling === 'dateOnly') return Math.floor(ms / DAY_MS) * DAY_MS;
  return ms;
}

describe('api client over HTTP: wire variants', () => {
  let server: ApiServer;
  before(async () => {
    server = await startApiServer({ now: NOW });
  });
  after(() => server.close());
  beforeEach(() => {
    server.setFaults({});
    server.resetRequests();
  });

  const range = (first = FIRST_DAY, last = first) => utcDayRange(first, last);
  const fetchRange = (first = FIRST_DAY, last = first): Promise<FetchResult> =>
    fetchDmarcRecords({ baseUrl: server.url, apiKey: KEY, organizationId: 'acme', ...range(first, last) }, FAST);

  /** The body exactly as sent, read without the client: raw bytes and the response headers. */
  function rawBody(first: string, last: string, acceptEncoding?: string): Promise<{ headers: http.IncomingHttpHeaders; bytes: Buffer }> {
    const u = new URL(server.url + API_PATH);
    const { startDate, endDate } = range(first, last);
    u.search = new URLSearchParams({ organizationId: 'acme', startDate, endDate }).toString();
    const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${KEY}` };
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
    return new Promise((resolve, reject) => {
      http
        .get(u, { headers }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (b: Buffer) => parts.push(b));
          res.on('end', () => (res.statusCode === 200 ? resolve({ headers: res.headers, bytes: Buffer.concat(parts) }) : reject(new Error(`status ${res.statusCode}`))));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  }
  async function wireRows(first = FIRST_DAY, last = first): Promise<Record<string, unknown>[]> {
    const { headers, bytes } = await rawBody(first, last);
    assert.equal(headers['content-encoding'], undefined, 'no Accept-Encoding, no compression');
    return (JSON.parse(bytes.toString('utf8')) as { dmarcRecords: Record<string, unknown>[] }).dmarcRecords;
  }
  const clean = (r: FetchResult) => {
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.rejected, { count: 0, samples: [] });
  };

  describe('dates in other ISO 8601 spellings', () => {
    for (const spelling of DATE_SPELLINGS) {
      it(`reads dates spelled "${spelling}" as the instant they name`, async () => {
        server.setFaults({ dateSpelling: spelling });
        const gen = generated();
        const wire = await wireRows();
        assert.equal(wire.length, gen.length);
        wire.forEach((w, i) => assert.match(String(w.date), SPELLED[spelling], `row ${i}`));
        const res = await fetchRange();
        clean(res);
        assertRecordsMatch(res.records, wire, gen.map((g) => instant(g.date, spelling)));
      });
    }

    it('reads a response mixing every spelling, over ten days', async () => {
      server.setFaults({ dateSpelling: 'mixed' });
      const gen = generated(FIRST_DAY, LAST_DAY);
      const wire = await wireRows(FIRST_DAY, LAST_DAY);
      assert.equal(wire.length, gen.length);
      const spellings = wire.map((w) => spellingOf(String(w.date)));
      assert.deepEqual(new Set(spellings), new Set(DATE_SPELLINGS), 'every spelling is sent');
      const res = await fetchRange(FIRST_DAY, LAST_DAY);
      clean(res);
      assertRecordsMatch(res.records, wire, gen.map((g, i) => instant(g.date, spellings[i]!)));
    });
  });

  it('takes visibleFrom when `from` differs from it, and `from` only when visibleFrom is absent', async () => {
    server.setFaults({ fromOnly: 0.3, fromDiffers: 0.5 });
    const gen = generated();
    const wire = await wireRows();
    assert.equal(wire.length, gen.length);
    const differs = wire.filter((w) => typeof w.visibleFrom === 'string' && w.from !== w.visibleFrom);
    const fromOnly = wire.filter((w) => w.visibleFrom === undefined);
    assert.ok(differs.length > 0 && fromOnly.length > 0 && differs.length + fromOnly.length < wire.length, 'all three kinds of row are sent');
    const res = await fetchRange();
    clean(res);
    assertRecordsMatch(res.records, wire);
    res.records.forEach((r, i) => assert.equal(r.visibleFrom, wire[i]!.visibleFrom ?? gen[i]!.visibleFrom, `row ${i}`));
  });

  it('reads null optional fields as absent', async () => {
    server.setFaults({ nullOptionals: 1 });
    const wire = await wireRows();
    assert.equal(wire.length, generated().length);
    for (const k of ['to', 'ipCountryCode', 'reportId']) {
      assert.ok(wire.some((w) => w[k] === null), `some ${k} is null`);
      assert.ok(wire.every((w) => w[k] !== undefined), `${k} is always sent`);
    }
    const res = await fetchRange();
    clean(res);
    assertRecordsMatch(res.records, wire);
  });

  it('leaves out rows whose emails is a numeric string (the contract says number), keeping every other row', async () => {
    server.setFaults({ emailsString: 0.4 });
    const wire = await wireRows(FIRST_DAY, LAST_DAY);
    const stringRows = wire.map((w, index) => ({ w, index })).filter(({ w }) => typeof w.emails === 'string');
    assert.ok(stringRows.length > 5 && stringRows.length < wire.length);
    stringRows.forEach(({ w }) => assert.match(String(w.emails), /^\d+$/));
    const res = await fetchRange(FIRST_DAY, LAST_DAY);
    assert.deepEqual(res.warnings, []);
    assert.deepEqual(res.rejected, {
      count: stringRows.length,
      samples: stringRows.slice(0, 5).map(({ w, index }) => ({ index, reason: `emails should be a number, got "${String(w.emails)}"` })),
    });
    assertRecordsMatch(res.records, wire.filter((w) => typeof w.emails === 'number'));
  });

  describe('compressed bodies', () => {
    for (const encoding of CONTENT_ENCODINGS) {
      it(`reads a ${encoding} body over several chunks: every row, every field`, async () => {
        server.setFaults({ contentEncoding: encoding });
        const gen = generated(FIRST_DAY, LAST_DAY);
        const wire = await wireRows(FIRST_DAY, LAST_DAY);
        assert.equal(wire.length, gen.length);
        const res = await fetchRange(FIRST_DAY, LAST_DAY);
        const [req] = server.requests.filter((r) => r.path === API_PATH && r.headers['user-agent']?.startsWith('dmarc-explorer'));
        assert.equal(req?.contentEncoding, encoding, 'the client asked for it and the server sent it');
        clean(res);
        assertRecordsMatch(res.records, wire);
      });

      it(`the server's ${encoding} body decodes to the identity body`, async () => {
        server.setFaults({ contentEncoding: encoding });
        const plain = await rawBody(FIRST_DAY, LAST_DAY);
        const packed = await rawBody(FIRST_DAY, LAST_DAY, encoding);
        assert.equal(packed.headers['content-encoding'], encoding);
        assert.ok(plain.bytes.length > 3 * 65_536 && packed.bytes.length < plain.bytes.length / 3, `${packed.bytes.length} of ${plain.bytes.length} bytes`);
        const decode = encoding === 'gzip' ? zlib.gunzipSync : encoding === 'deflate' ? zlib.inflateSync : zlib.brotliDecompressSync;
        assert.ok(decode(packed.bytes).equals(plain.bytes));
      });
    }

    it('the server honours Accept-Encoding: a refused or unlisted coding gets identity, * gets it', async () => {
      server.setFaults({ contentEncoding: 'gzip' });
      const cases: [string, string | undefined][] = [
        ['gzip;q=0, br', undefined],
        ['deflate, br', undefined],
        ['identity', undefined],
        ['*', 'gzip'],
        ['*, gzip;q=0', undefined],
        ['br;q=1.0, GZIP;q=0.5', 'gzip'],
      ];
      for (const [accept, want] of cases) {
        const { headers, bytes } = await rawBody(FIRST_DAY, FIRST_DAY, accept);
        assert.equal(headers['content-encoding'], want, accept);
        if (!want) assert.equal(bytes[0], '{'.charCodeAt(0), accept);
      }
    });
  });

  it('the variants are named in a faults spec too (CLI --fault, ?faults=, a /_faults/ base URL)', async () => {
    assert.deepEqual(parseFaults('dateSpelling=lowercase,contentEncoding=br,fromDiffers=0.5,nullOptionals,emailsString=0.1'), {
      dateSpelling: 'lowercase', contentEncoding: 'br', fromDiffers: 0.5, nullOptionals: true, emailsString: 0.1,
    });
    assert.throws(() => parseFaults('dateSpelling=sideways'), /dateSpelling.*mixed, offset/);
    assert.throws(() => parseFaults('contentEncoding=zstd'), /contentEncoding.*gzip, deflate, br/);
    // The extension pointed at a misbehaving server: only the base URL says so.
    const res = await fetchDmarcRecords({ baseUrl: `${server.url}/_faults/dateSpelling=offset,contentEncoding=deflate`, apiKey: KEY, organizationId: 'acme', ...range() }, FAST);
    clean(res);
    const gen = generated();
    assert.equal(res.records.length, gen.length);
    res.records.forEach((r, i) => {
      assert.match(r.date, SPELLED.offset);
      assert.equal(r.dateMs, Date.parse(gen[i]!.date));
    });
    assert.equal(server.requests.at(-1)?.contentEncoding, 'deflate');
  });

  it('reads every variant at once: mixed dates, from, nulls, a lone rDNS string, Brotli', async () => {
    const faults: Faults = { dateSpelling: 'mixed', fromOnly: 0.2, fromDiffers: 0.5, nullOptionals: 0.5, rdnsString: 0.5, contentEncoding: 'br', bareArray: true };
    server.setFaults(faults);
    const gen = generated(FIRST_DAY, LAST_DAY);
    const { bytes } = await rawBody(FIRST_DAY, LAST_DAY);
    const wire = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>[];
    assert.equal(wire.length, gen.length);
    const res = await fetchRange(FIRST_DAY, LAST_DAY);
    clean(res);
    assertRecordsMatch(res.records, wire, gen.map((g, i) => instant(g.date, spellingOf(String(wire[i]!.date))!)));
  });
});
