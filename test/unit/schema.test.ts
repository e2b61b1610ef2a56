// The pure body → records step: zod schemas, tolerance rules, warnings, rejects, bad bodies.
import { strict as assert } from 'node:assert';
import { ApiError, CategorySchema, DispositionSchema, RESULT_VALUES, ResultSchema, normaliseRows, parseRecordsBody, parseRecordsJson, type FetchResult } from '../../src/api';
import { normaliseRow } from '../../src/api/schema';
import { ORGANIZATIONS, generateDay } from '../server/data';
import { invalidResponse, parse, parseBody, row, withTicks, without } from './schemaHelpers';
import { rawOf } from '../../src/api/rawRow';

describe('api schema: enums', () => {
  it('Result accepts exactly the twelve values of §2.4, the empty string included', () => {
    assert.equal(RESULT_VALUES.length, 12);
    for (const v of RESULT_VALUES) assert.ok(ResultSchema.safeParse(v).success, JSON.stringify(v));
    assert.ok(ResultSchema.safeParse('').success);
    for (const v of ['PASS', 'Pass', 'hardfail', 'error', ' pass', null, undefined, 1]) assert.ok(!ResultSchema.safeParse(v).success, String(v));
  });

  it('category and dmarc enums', () => {
    assert.deepEqual([...CategorySchema.options].sort(), ['authorized', 'partially-authorized', 'quarantined', 'rejected']);
    assert.deepEqual([...DispositionSchema.options].sort(), ['none', 'quarantine', 'reject']);
    assert.ok(!CategorySchema.safeParse('spoofed').success);
    assert.ok(!DispositionSchema.safeParse('discard').success);
  });

  it('every Result value in every Result position is accepted without a warning', async () => {
    const rows = RESULT_VALUES.map((v) => row({ alignedSpf: v, alignedDkim: v, spf: v, dkims: [{ selector: 's', domain: 'd', result: v }] }));
    const res = await parse(rows);
    assert.equal(res.records.length, 12);
    assert.deepEqual(res.warnings, []);
    assert.deepEqual(res.records.map((r) => r.spf), [...RESULT_VALUES]);
  });
});

describe('api schema: envelope and bodies', () => {
  it('accepts the envelope and a bare array alike', async () => {
    const rows = [row(), row({ emails: 3 })];
    const a = await parseBody(JSON.stringify({ status: 'success', dmarcRecords: rows }), 'application/json');
    const b = await parseBody(JSON.stringify(rows), 'application/json');
    assert.equal(a.records.length, 2);
    assert.deepEqual(a, b);
    const noStatus = await parseBody(JSON.stringify({ dmarcRecords: rows, page: 1 }), 'application/json');
    assert.equal(noStatus.records.length, 2);
    const empty = await parseBody('{"status":"success","dmarcRecords":[]}', 'application/json');
    assert.deepEqual(empty, { records: [], warnings: [], rejected: { count: 0, samples: [] } });
    const bom = await parseBody('\ufeff[]', 'application/json');
    assert.equal(bom.records.length, 0);
  });

  it('a non-success status is an invalid response that quotes the server', async () => {
    const e = await invalidResponse(JSON.stringify({ status: 'error', message: 'organization is suspended' }), 'application/json');
    assert.match(e.message, /"error".*organization is suspended/);
  });

  // A corpus of bodies that are not DMARC records. Each must give a short message that names the
  // content type and shows how the body starts — never a JSON.parse message or a stack trace.
  const corpus: [string, string | null, RegExp][] = [
    ['', 'application/json', /empty/],
    ['   \n ', 'application/json', /empty/],
    ['<!DOCTYPE html><html><body>Bad gateway</body></html>', 'text/html; charset=utf-8', /not JSON.*text\/html.*starts with "<!DOCTYPE html>/],
    ['[{"source":"Google Workspace","reporter":"goo', 'application/json', /cut off/],
    ['{"status":"success","dmarcRecords":[{"source":', 'application/json', /cut off/],
    ['{"status":"success","dmarcRecords":[]', 'application/json', /cut off/],
    ['null', 'application/json', /expected/],
    ['42', 'application/json', /expected/],
    ['"records"', 'application/json', /expected/],
    ['true', 'application/json', /expected/],
    ['{}', 'application/json', /expected/],
    ['{"status":"success"}', 'application/json', /expected/],
    ['{"status":"success","dmarcRecords":{}}', 'application/json', /expected/],
    ['{"status":"success","dmarcRecords":"none"}', 'application/json', /expected/],
    ['{"data":[]}', 'application/json', /expected/],
    ['undefined', null, /not JSON.*no content type/],
    ['NaN', 'text/plain', /not JSON.*text\/plain/],
    ["{'single': 'quotes'}", 'application/json', /malformed/],
    ['[1,2,3,]', 'application/json', /malformed/],
    ['\u0000\u0001binary\u0002', 'application/octet-stream', /not JSON.*application\/octet-stream/],
    ['x'.repeat(100_000), 'text/plain', /not JSON/],
  ];
  for (const [text, type, re] of corpus) {
    it(`rejects ${JSON.stringify(text.slice(0, 40))} (${type ?? 'no type'})`, async () => {
      const e = await invalidResponse(text, type);
      assert.match(e.message, re);
      assert.doesNotMatch(e.message, /JSON\.parse|Unexpected token|Unexpected end|SyntaxError|position \d|\n\s+at /);
      assert.ok(e.message.length < 300, `short: ${e.message.length}`);
      // The quoted start is at most ~80 characters.
      const quoted = /starts with "(.*)"\)/.exec(e.message)?.[1] ?? '';
      assert.ok(quoted.length <= 81, quoted);
    });
  }
});

describe('api schema: parseRecordsBody parses in slices, with the one-shot semantics', () => {
  /** The reference: one JSON.parse of the body, then normaliseRows. */
  const oneShot = (text: string): Promise<FetchResult> => normaliseRows(parseRecordsJson(text, 'application/json'));

  /** Generated rows with the odd ones the tolerance rules are about mixed in. */
  function mixedRows(n: number): unknown[] {
    const rows: unknown[] = JSON.parse(JSON.stringify(generateDay(ORGANIZATIONS[1]!, 20_100, 3, n))) as unknown[];
    const odd: unknown[] = [
      null, 7, 'row', [row()], without('source'), row({ emails: '12' }), row({ category: 'spoofed' }), row({ rdns: 'mx.example' }),
      without('visibleFrom'), row({ source: '"],[{"}, "\\\\", "\u2028é😀' }), row({ dkims: [{ selector: 'a,b', domain: '[d]', result: 'expired' }] }),
      row({ extra: { nested: [[1], { k: '}' }] } }),
    ];
    for (let i = 0; i < odd.length; i++) rows.splice((i * 37) % rows.length, 0, odd[i]);
    return rows;
  }

  it('same records (raw included), warnings and rejects as one JSON.parse, whatever the layout, piece and chunk sizes', async () => {
    const rows = mixedRows(300);
    const bodies = [
      JSON.stringify({ status: 'success', dmarcRecords: rows }),
      JSON.stringify(rows),
      JSON.stringify({ page: { n: 1, cursors: ['a', 'b'] }, dmarcRecords: rows, status: 'success', note: 'dmarcRecords: []' }, null, 2),
      '\ufeff' + JSON.stringify(rows, null, '\t'),
    ];
    for (const text of bodies) {
      const want = await oneShot(text);
      const parsed = expectedRows(text);
      for (const [chunkRows, pieceChars] of [[1, 300], [7, 5000], [5000, undefined]] as const) {
        const got = await parseRecordsBody(text, 'application/json', { chunkRows, pieceChars, oneShotMaxChars: 0 });
        assert.deepStrictEqual(got, want, `chunkRows ${chunkRows}, pieceChars ${pieceChars}`); // a message: no slow diff of 300 records
        // `raw` is what JSON.parse makes of the row, unknown fields included.
        const kept = parsed.filter((r) => 'record' in normaliseRow(r));
        assert.equal(got.records.length, kept.length);
        got.records.forEach((r, i) => assert.deepStrictEqual(rawOf(r), kept[i]));
      }
    }
    assert.ok((await oneShot(bodies[0]!)).rejected.count >= 5, 'the corpus has rejects');
  });

  it('a non-success status still wins over the rows, and a malformed row still wins over the status', async () => {
    const rows = JSON.stringify(mixedRows(20));
    const status = await invalidResponse(`{"status":"error","message":"suspended","dmarcRecords":${rows}}`, 'application/json');
    assert.match(status.message, /status "error": suspended/);
    const malformed = await invalidResponse(`{"status":"error","dmarcRecords":${rows.slice(0, -1)},]}`, 'application/json');
    assert.match(malformed.message, /cut off or malformed/);
  });

  it('yields to the event loop while it scans and parses', async () => {
    const text = JSON.stringify({ status: 'success', dmarcRecords: generateDay(ORGANIZATIONS[0]!, 20_000, 1, 12_000) });
    assert.ok(text.length > 4 << 20, 'large enough to need several scan slices');
    const { result: res, ticks } = await withTicks(() => parseRecordsBody(text, 'application/json', { chunkRows: 1000, oneShotMaxChars: 0 }));
    assert.equal(res.records.length, 12_000);
    assert.ok(ticks >= 12, `other work ran ${ticks} times meanwhile`);
  });

  it('an aborted signal stops the scan', async () => {
    const text = JSON.stringify(generateDay(ORGANIZATIONS[0]!, 20_000, 1, 12_000));
    const ac = new AbortController();
    setImmediate(() => ac.abort());
    await assert.rejects(parseRecordsBody(text, 'application/json', { signal: ac.signal, oneShotMaxChars: 0 }), (e: unknown) => e instanceof ApiError && e.kind === 'cancelled');
  });
});

/** The rows one JSON.parse of the body finds. */
function expectedRows(text: string): unknown[] {
  const json = JSON.parse(text.replace(/^\ufeff/, '')) as unknown;
  return Array.isArray(json) ? json : (json as { dmarcRecords: unknown[] }).dmarcRecords;
}
