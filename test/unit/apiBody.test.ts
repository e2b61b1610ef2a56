// src/api/body.ts word for word and by its promises: each way a body is not DMARC records, in the
// sentence the user reads; validation and parsing that yield to the event loop as often as they
// say and no more; the text of every row parsed once; what a streamed body keeps for messages.
import { strict as assert } from 'node:assert';
import { ApiError, normaliseRows, parseRecordsJson, parseRecordsJsonAsync, RecordsBodyStream } from '../../src/api';
import { RecordSchema } from '../../src/api/schema';
import { generateDay, ORGANIZATIONS } from '../server/data';

const ROWS = generateDay(ORGANIZATIONS[0]!, Date.UTC(2026, 10, 16) / 86_400_000, 1);

/** The ApiError each way of reading `text` throws: one JSON.parse, the sliced path, the stream. */
async function failures(text: string, type: string | null): Promise<string[]> {
  const out: string[] = [];
  const ways: (() => unknown)[] = [
    () => parseRecordsJson(text, type),
    () => parseRecordsJsonAsync(text, type, { oneShotMaxChars: 0 }),
    () => {
      const s = new RecordsBodyStream(type);
      for (let i = 0; i < text.length; i += 3) s.push(text.slice(i, i + 3));
      return s.finish();
    },
  ];
  for (const way of ways) {
    try {
      await way();
      out.push('no error');
    } catch (e) {
      assert.ok(e instanceof ApiError && e.kind === 'invalid-response', String(e));
      out.push(e.message);
    }
  }
  return out;
}

/** Counts setImmediate calls (yields) and, between them, the characters given to JSON.parse. */
async function watched<T>(f: () => Promise<T>): Promise<{ value: T; yields: number; mostBetween: number; parses: number[] }> {
  const parse = JSON.parse;
  const immediate = global.setImmediate;
  const w = { yields: 0, mostBetween: 0, parses: [] as number[] };
  let between = 0;
  JSON.parse = ((s: string, r?: Parameters<typeof JSON.parse>[1]) => {
    w.parses.push(s.length);
    between += s.length;
    w.mostBetween = Math.max(w.mostBetween, between);
    return parse(s, r);
  }) as typeof JSON.parse;
  global.setImmediate = ((cb: (...a: unknown[]) => void, ...a: unknown[]) => {
    w.yields++;
    between = 0;
    return immediate(cb, ...a);
  }) as typeof setImmediate;
  try {
    return { value: await f(), ...w };
  } finally {
    JSON.parse = parse;
    global.setImmediate = immediate;
  }
}

describe('api: bodies, exactly', () => {
  it('each way a body is not DMARC records, in the same sentence however it is read', async () => {
    const cases: [string, string | null, string][] = [
      ['<html>hi</html>', 'text/html; charset=utf-8', 'it is not JSON (text/html, 15 B, starts with "<html>hi</html>"). Check the base URL.'],
      ['abc [1]', null, 'it is not JSON (no content type, 7 B, starts with "abc [1]"). Check the base URL.'],
      ['  {"a":', 'application/json', 'the JSON is cut off or malformed (application/json, 7 B, starts with "{"a":"). Try again, or a shorter date range.'],
      ['\n[1,', 'application/json', 'the JSON is cut off or malformed (application/json, 4 B, starts with "[1,"). Try again, or a shorter date range.'],
      [' \n\t ', 'application/json', 'the body is empty (application/json, 4 B). Check the base URL.'],
      // More whitespace than a streamed body keeps for messages, then a cut-off array: still "cut off".
      [`${' '.repeat(12_000)}[1,`, 'application/json', 'the JSON is cut off or malformed (application/json, 11.7 KB). Try again, or a shorter date range.'],
      ['{"data":[]}', 'application/json', 'expected {"status": "success", "dmarcRecords": [...]} or a list of records (application/json, 11 B, starts with "{"data":[]}"). Check the base URL.'],
    ];
    for (const [text, type, what] of cases) {
      const want = `The server's answer is not DMARC records: ${what}`;
      assert.deepEqual(await failures(text, type), [want, want, want], text);
    }
    const status: [string, string][] = [
      ['{"status":"error","message":"suspended"}', 'The server answered with status "error": suspended.'],
      ['{"status":"error","error":"over quota"}', 'The server answered with status "error": over quota.'],
      ['{"status":"pending"}', 'The server answered with status "pending".'],
      ['{"status":"pending","dmarcRecords":[]}', 'The server answered with status "pending".'],
    ];
    for (const [text, want] of status) assert.deepEqual(await failures(text, 'application/json'), [want, want, want], text);
  });

  it('validation yields between chunks of rows, never before the first or after the last; an aborted signal says "Cancelled."', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ROWS[i % ROWS.length]);
    const cases: [unknown[], number | undefined, number][] = [[rows, 1000, 2], [rows, 999, 3], [rows, 3000, 0], [rows.slice(0, 3), 0, 2], [[], 10, 0], [rows, undefined, 0]];
    for (const [list, chunkRows, yields] of cases) {
      const w = await watched(() => normaliseRows(list, { chunkRows }));
      assert.equal(w.value.records.length, list.length);
      assert.equal(w.yields, yields, `${list.length} rows in chunks of ${chunkRows}`);
    }
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(normaliseRows(rows, { signal: ac.signal }), (e: unknown) => e instanceof ApiError && e.kind === 'cancelled' && e.message === 'Cancelled.');
  });

  it('a body up to the one-shot size is one JSON.parse; a larger one never parses its whole text, and parses each row once', async () => {
    const text = JSON.stringify({ status: 'success', dmarcRecords: ROWS });
    const at = await watched(() => parseRecordsJsonAsync(text, 'application/json', { oneShotMaxChars: text.length }));
    assert.deepEqual(at.parses, [text.length]);
    const big = JSON.stringify({ status: 'success', dmarcRecords: Array.from({ length: 10_000 }, (_, i) => ROWS[i % ROWS.length]) });
    const over = await watched(() => parseRecordsJsonAsync(big, 'application/json', { oneShotMaxChars: big.length - 1 }));
    assert.deepStrictEqual(over.value, JSON.parse(big).dmarcRecords);
    assert.ok(Math.max(...over.parses) < big.length / 2, `longest parse ${Math.max(...over.parses)} of ${big.length}`);
    const total = over.parses.reduce((a, b) => a + b, 0);
    assert.ok(total <= big.length + 4 * over.parses.length, `${total} characters parsed for a ${big.length}-character body`);
  });

  it('a large body of rows the scanner cannot jump over: about 1 Mi characters parsed between yields, and a yield per Mi', async () => {
    const numbers = Array.from({ length: 450_000 }, (_, i) => i * 7);
    const text = JSON.stringify({ dmarcRecords: numbers });
    const w = await watched(() => parseRecordsJsonAsync(text, 'application/json', { oneShotMaxChars: 0 }));
    assert.deepStrictEqual(w.value, numbers);
    assert.ok(w.mostBetween <= (1 << 20) + 70_000, `${w.mostBetween} characters parsed without a yield`);
    assert.ok(w.yields >= Math.floor(text.length / (1 << 20)) && w.yields <= (2 * text.length) / (1 << 20) + 2, `${w.yields} yields for ${text.length} characters`);
    // An empty element there is still a malformed body.
    const holed = `[${numbers.slice(0, 200_000).join(',')},,${numbers.slice(200_000).join(',')}]`;
    await assert.rejects(parseRecordsJsonAsync(holed, null, { oneShotMaxChars: 0 }), /the JSON is cut off or malformed/);
    // A trailing comma there: the last piece is empty.
    await assert.rejects(parseRecordsJsonAsync('[1,2,]', null, { oneShotMaxChars: 0, pieceChars: 1 }), /the JSON is cut off or malformed/);
    const isCancel = (e: unknown) => e instanceof ApiError && e.kind === 'cancelled';
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(parseRecordsJsonAsync(text, null, { oneShotMaxChars: 0, signal: ac.signal }), isCancel);
    // Rows the scanner jumps over need no parsing after the scan: an abort is seen while scanning.
    const objects = JSON.stringify(Array.from({ length: 12_000 }, (_, i) => ROWS[i % ROWS.length]));
    await assert.rejects(parseRecordsJsonAsync(objects, null, { oneShotMaxChars: 0, signal: ac.signal }), isCancel);
    // Aborted once the pieces are being parsed (the scan is over): seen at the next yield.
    const late = new AbortController();
    const parse = JSON.parse;
    JSON.parse = ((s: string, r?: Parameters<typeof JSON.parse>[1]) => (s.length > 50_000 && late.abort(), parse(s, r))) as typeof JSON.parse;
    try {
      await assert.rejects(parseRecordsJsonAsync(text, null, { oneShotMaxChars: 0, signal: late.signal }), isCancel);
    } finally {
      JSON.parse = parse;
    }
  });

  it('a streamed body keeps its first 10,000 characters for messages, and counts them all', async () => {
    const s = new RecordsBodyStream('text/plain');
    const text = 'x'.repeat(25_000);
    for (let i = 0; i < text.length; i += 3000) s.push(text.slice(i, i + 3000));
    assert.equal((s as unknown as { start: string }).start, text.slice(0, 10_000));
    assert.throws(() => s.finish(), (e: unknown) => e instanceof ApiError && e.message === `The server's answer is not DMARC records: it is not JSON (text/plain, 24.4 KB, starts with "${'x'.repeat(80)}…"). Check the base URL.`);
  });

  it('rows already in normal form never go through the zod schema', async () => {
    const safeParse = RecordSchema.safeParse.bind(RecordSchema);
    let calls = 0;
    RecordSchema.safeParse = ((v: unknown) => (calls++, safeParse(v))) as typeof RecordSchema.safeParse;
    try {
      const res = await normaliseRows([...ROWS, { ...ROWS[0], emails: 0 }]);
      assert.equal(res.records.length, ROWS.length + 1);
      assert.equal(calls, 0);
      await normaliseRows([{ ...ROWS[0], emails: '3' }]);
      assert.equal(calls, 1, 'a row out of normal form does');
    } finally {
      RecordSchema.safeParse = safeParse;
    }
  });
});
