// Bodies parsed while they arrive (src/api/jsonStream.ts, RecordsBodyStream in body.ts): for any
// way the text is cut into pieces, the same rows or the same error as one JSON.parse of the whole
// body, rows handed out in order as soon as their text is in, none lost or given twice.
import { strict as assert } from 'node:assert';
import { ApiError, normaliseRows, parseRecordsJson, rawOf, RecordsBodyStream, type DmarcRecord, type FetchResult } from '../../src/api';
import { RecordsStreamParser } from '../../src/api/jsonStream';
import { generateDay, ORGANIZATIONS } from '../server/data';

type Outcome = FetchResult | { kind: string; message: string };

/** Splits `text` into pieces of the given sizes (cycled). */
function pieces(text: string, sizes: readonly number[]): string[] {
  const out: string[] = [];
  for (let i = 0, k = 0; i < text.length; k++) {
    const n = Math.max(1, sizes[k % sizes.length]!);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

const SPLITS: readonly (readonly number[])[] = [[1 << 30], [1], [2, 3], [7], [64, 5, 300], [1000, 1]];

async function oneShot(text: string): Promise<Outcome> {
  try {
    return await normaliseRows(parseRecordsJson(text, 'application/json'));
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return { kind: e.kind, message: e.message };
  }
}

/** Streams `text` in pieces (each push's rows `maxChars` of text at a time); checks the rows handed out are the result's, in order, each once. */
function streamed(text: string, sizes: readonly number[], maxChars?: number): Outcome {
  const given: DmarcRecord[] = [];
  const body = new RecordsBodyStream('application/json', {
    onRows: (records, offset) => {
      assert.equal(offset, given.length, 'offsets follow on');
      assert.ok(records.length > 0, 'no empty hand-outs');
      given.push(...records);
    },
  });
  try {
    for (const p of pieces(text, sizes)) {
      body.push(p, maxChars);
      while (body.pending) body.more(maxChars);
    }
    const result = body.finish();
    assert.equal(given.length, result.records.length, 'every row handed out once');
    given.forEach((r, i) => assert.equal(r, result.records[i], `row ${i} handed out in order`));
    return result;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return { kind: e.kind, message: e.message };
  }
}

async function assertSame(text: string): Promise<void> {
  const want = await oneShot(text);
  for (const sizes of SPLITS) {
    // Each push's rows at once, and a few characters' worth at a time (less than a row: one row a step).
    for (const maxChars of [undefined, 40, 700]) assert.deepStrictEqual(streamed(text, sizes, maxChars), want, `${JSON.stringify(text.slice(0, 120))} in pieces of ${sizes.join(',')}, parts of ${maxChars}`);
  }
}

const row = (i: number, extra: Record<string, unknown> = {}) => ({
  source: `s${i}`, reporter: 'google.com', visibleFrom: 'a.example', returnPath: 'a.example', ipAddress: `192.0.2.${i % 250}`,
  rdns: ['x'], emails: i + 1, category: 'authorized', date: '2026-11-16T00:00:00.000Z', dmarc: 'none', alignedSpf: 'pass',
  alignedDkim: 'fail', spf: 'pass', dkims: [{ selector: 's', domain: 'a.example', result: 'pass' }], ...extra,
});

describe('jsonStream: a body parsed while it arrives', () => {
  it('same records as one JSON.parse, however the text is cut, for envelopes and bare arrays', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => row(i, i % 7 === 0 ? { note: '},{"source":"x"', tags: ['[', ']', '\\', '"'] } : {}));
    await assertSame(JSON.stringify({ status: 'success', dmarcRecords: rows }));
    await assertSame(JSON.stringify({ dmarcRecords: rows, status: 'success', next: { page: [1, 2] } }));
    await assertSame(JSON.stringify(rows));
    await assertSame(JSON.stringify({ status: 'success', dmarcRecords: rows }, null, 2));
    await assertSame(`\ufeff ${JSON.stringify({ meta: { dmarcRecords: [1] }, x: 'dmarcRecords', dmarcRecords: rows })} \n`);
    // Invalid rows are counted, with their index among all rows; unknown values warned about.
    await assertSame(JSON.stringify({ dmarcRecords: [row(1), 5, { a: 1 }, row(2, { category: 'odd' }), null, row(3)] }));
    await assertSame('{"dmarc\\u0052ecords": [' + JSON.stringify(row(1)) + ']}');
    // Strings of the envelope with escaped quotes and backslashes, cut anywhere (one character a piece among the splits).
    const envelope = { note: 'a"b\\', 'x"y': ['\\"]]', '{"dmarcRecords":['], dmarcRecords: [row(1), row(2)], z: '\\' };
    assert.match(JSON.stringify(envelope), /"a\\"b\\\\","x\\"y":\["\\\\\\"\]\]"/);
    assert.equal(((await oneShot(JSON.stringify(envelope))) as FetchResult).records.length, 2);
    await assertSame(JSON.stringify(envelope));
    for (const t of ['[]', '[ ]', '{"dmarcRecords":[]}', '{"status":"success","dmarcRecords":[ ]}']) await assertSame(t);
  });

  it('hands out the first rows before the body ends, and every row exactly once', () => {
    const rows = [0, 1, 2, 3].flatMap((d) => generateDay(ORGANIZATIONS[0]!, d, 7, 500));
    const text = JSON.stringify({ status: 'success', dmarcRecords: rows });
    const chunks = pieces(text, [16 * 1024]);
    const given: DmarcRecord[] = [];
    let pushed = 0;
    let firstAt = -1;
    const body = new RecordsBodyStream('application/json', {
      onRows: (records) => {
        if (firstAt < 0) firstAt = pushed;
        given.push(...records);
      },
    });
    for (const c of chunks) {
      pushed++;
      body.push(c);
    }
    assert.ok(firstAt >= 1 && firstAt <= 2, `first rows after the first pieces (piece ${firstAt} of ${chunks.length})`);
    const result = body.finish();
    assert.equal(result.records.length, rows.length);
    assert.deepStrictEqual(given.map((r) => rawOf(r)), JSON.parse(JSON.stringify(rows)), 'the rows as sent, in order, none lost or twice');
  });

  it('a body cut off anywhere is an error, and the rows handed out before are whole rows of it', async () => {
    const doc = JSON.stringify({ status: 'success', dmarcRecords: [row(1), row(2, { s: 'a,"]}b' }), row(3)], next: null });
    for (let p = 0; p < doc.length; p++) {
      const cut = doc.slice(0, p);
      const want = await oneShot(cut);
      assert.ok('kind' in want, `one JSON.parse rejects ${cut}`);
      for (const sizes of [[1], [9], [1 << 30]]) {
        assert.deepStrictEqual(streamed(cut, sizes), want, cut);
      }
    }
  });

  it('malformed bodies and bodies that are not DMARC records give the error one JSON.parse gives', async () => {
    const bad = [
      '', '   ', 'null', '42', '<html>[]</html>', '[1}', '{"dmarcRecords":[1}}', '{"dmarcRecords":[1,2]]', '[1,,2]', '[1,2,]', '[,1]', '[ , ]',
      '[1 2]', '[1,2] x', '[] []', '{"dmarcRecords":[1],}', '{"dmarcRecords":[1]', '["a\\"]', '[01]', '[{"a":1}{"b":2}]', '[1]]',
      '{}', '{"status":"error","message":"suspended","dmarcRecords":[1,2]}', '{"dmarcRecords":[1,2],"status":"pending"}',
      '{"dmarcRecords":null}', '{"dmarcRecords":"[]"}', '{"dmarcRecords": "none", "dmarcRecords": [{"a":1}]}',
    ];
    for (const t of bad) await assertSame(t);
  });

  it('a later duplicate dmarcRecords: refused, since its rows went out (JSON.parse would keep the last)', () => {
    const text = `{"dmarcRecords": ${JSON.stringify([row(1), row(2)])}, "dmarcRecords": []}`;
    for (const sizes of SPLITS) {
      const got = streamed(text, sizes);
      assert.ok('kind' in got && got.kind === 'invalid-response' && /one dmarcRecords/.test(got.message), JSON.stringify(got));
    }
    // The marker standing for the array cannot be forged by the body.
    const forged = `{"dmarcRecords": [${JSON.stringify(row(1))}], "dmarcRecords": "\\u0000records-abc"}`;
    const got = streamed(forged, [1 << 30]);
    assert.ok('kind' in got, JSON.stringify(got).slice(0, 200));
  });

  it('the parser jumps over rows in one JSON.parse per piece of text, and scans one row per piece by hand', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => row(i));
    const text = JSON.stringify({ dmarcRecords: rows });
    const parser = new RecordsStreamParser();
    const origParse = JSON.parse;
    let parses = 0;
    JSON.parse = ((s: string, r?: Parameters<typeof JSON.parse>[1]) => {
      parses++;
      return origParse(s, r);
    }) as typeof JSON.parse;
    let got: unknown[] = [];
    const chunks = pieces(text, [64 * 1024]);
    try {
      for (const c of chunks) got = got.concat(parser.push(c));
      got = got.concat(parser.end().rows);
    } finally {
      JSON.parse = origParse;
    }
    assert.deepStrictEqual(got, rows);
    assert.ok(parses <= chunks.length * 3 + 4, `${parses} parses for ${chunks.length} pieces`);
  });

  it('a push with a limit gives out rows of about that much text, the next at more(), and waits for no part when only an incomplete row is left', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => row(i, i === 777 ? { note: 'n'.repeat(40_000) } : {}));
    const text = JSON.stringify({ dmarcRecords: rows });
    const parser = new RecordsStreamParser();
    const longest = JSON.stringify(rows[777]).length;
    let got: unknown[] = [];
    let steps = 0;
    const step = (batch: unknown[]): void => {
      steps++;
      const chars = JSON.stringify(batch).length;
      // A part ends at the first row that reaches the limit: less than the limit and one row more.
      assert.ok(chars <= 16 * 1024 + longest + 2, `a part of ${chars} characters`);
      got = got.concat(batch);
    };
    for (const c of pieces(text, [64 * 1024])) {
      step(parser.push(c, 16 * 1024));
      while (parser.pending) step(parser.more(16 * 1024));
      assert.equal(parser.more(16 * 1024).length, 0, 'nothing once not pending');
    }
    got = got.concat(parser.end().rows);
    assert.deepStrictEqual(got, rows);
    assert.ok(steps >= text.length / (16 * 1024) - 4, `${steps} parts for ${text.length} characters`);
    // Only part of a row in: nothing to give out, nothing pending.
    const partial = new RecordsStreamParser();
    assert.equal(partial.push(text.slice(0, 200), 10).length, 0);
    assert.equal(partial.pending, false);
  });

  it('a large body without the records array is read once, not again with every piece (its clear error in well under a second)', async function () {
    this.timeout(60_000);
    // 100 MB of rows under another key, in the 64 KB pieces of a download. Each piece was appended
    // to everything before it and the whole read again: 35 MB took 7 s, 100 MB about a minute.
    const rowText = JSON.stringify(row(1));
    const text = `{"status":"success","records":[${Array.from({ length: Math.ceil(100e6 / (rowText.length + 1)) }, () => rowText).join(',')}]}`;
    const parser = new RecordsStreamParser();
    const t0 = performance.now();
    for (let i = 0; i < text.length; i += 64 * 1024) assert.deepStrictEqual(parser.push(text.slice(i, i + 64 * 1024)), []);
    const { rows, end } = parser.end();
    const ms = performance.now() - t0;
    assert.deepStrictEqual(rows, []);
    assert.equal(end.kind, 'other');
    assert.equal((end as { text: string }).text, text, 'the whole text, for the one JSON.parse that says what it is');
    assert.ok(ms < 10_000, `${Math.round(ms)} ms for ${Math.round(text.length / 1e6)} MB`);
    // And the same body through RecordsBodyStream ends in the clear error.
    const body = new RecordsBodyStream('application/json');
    for (let i = 0; i < text.length; i += 64 * 1024) body.push(text.slice(i, i + 64 * 1024));
    assert.throws(() => body.finish(), (e: unknown) => e instanceof ApiError && e.kind === 'invalid-response' && /not DMARC records/.test(e.message));
  });
});
