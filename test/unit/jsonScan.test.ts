// The records-array scanner (src/api/jsonScan.ts): boundaries, envelopes, odd strings, cut-off
// bodies, and equivalence with one JSON.parse over a generated corpus.
import { strict as assert } from 'node:assert';
import { ApiError, normaliseRows, parseRecordsBody, parseRecordsJson, type FetchResult } from '../../src/api';
import { RecordsArrayScanner, type RecordsArrayScan } from '../../src/api/jsonScan';

type Outcome = { rows: unknown[]; skeleton: unknown; jumps: number } | 'other' | 'invalid';

/**
 * What parseRecordsBody does with the scan, minus validation: the rows and the skeleton, or
 * 'invalid' when the scan or any parse fails. `budget` is the scan slice (to exercise resuming),
 * `pieceChars` the piece size and jump length (to exercise pieces and jumps on small texts).
 */
function scanAndParse(text: string, budget = 1 << 30, pieceChars = 3): Outcome {
  const scanner = new RecordsArrayScanner(text, { pieceChars });
  let scan: RecordsArrayScan | undefined;
  let steps = 0;
  while (!(scan = scanner.step(budget))) assert.ok(++steps <= text.length + 1, 'the scan makes progress');
  if (scan.kind !== 'found') return scan.kind;
  const { open, close, pieces } = scan;
  // Pieces tile the array's contents, one comma apart.
  assert.equal(pieces[0]!.from, open + 1);
  assert.equal(pieces.at(-1)!.to, close);
  for (let k = 1; k < pieces.length; k++) {
    assert.equal(pieces[k]!.from, pieces[k - 1]!.to + 1);
    assert.equal(text[pieces[k - 1]!.to], ',');
  }
  try {
    const skeleton = JSON.parse(text.slice(scan.start, open + 1) + text.slice(close)) as unknown;
    const rows: unknown[] = [];
    let jumps = 0;
    for (const piece of pieces) {
      const part = JSON.parse('[' + text.slice(piece.from, piece.to) + ']') as unknown[];
      if (piece.rows) {
        // A jump: the scanner parsed the piece itself.
        jumps++;
        assert.deepStrictEqual(piece.rows, part);
      }
      if (part.length === 0 && pieces.length > 1) return 'invalid';
      rows.push(...part);
    }
    return { rows, skeleton, jumps };
  } catch (e) {
    if (e instanceof SyntaxError) return 'invalid';
    throw e;
  }
}

/** The rows one JSON.parse finds (bare array, or the envelope's dmarcRecords array), else undefined. */
function expectedRows(text: string): unknown[] | undefined {
  const json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  if (Array.isArray(json)) return json;
  const recs = json && typeof json === 'object' ? (json as { dmarcRecords?: unknown }).dmarcRecords : undefined;
  return Array.isArray(recs) ? recs : undefined;
}

/** The scanner agrees with JSON.parse on a valid document, whatever the slice and piece sizes. Returns the jumps made. */
function assertAgrees(text: string): number {
  const want = expectedRows(text);
  let jumps = 0;
  for (const [budget, pieceChars] of [[1 << 30, 1 << 20], [1, 1], [7, 2], [64, 16], [3, 40]] as const) {
    const got = scanAndParse(text, budget, pieceChars);
    if (want === undefined) {
      assert.equal(got, 'other', text);
      continue;
    }
    assert.ok(typeof got === 'object', `${JSON.stringify(got)} for ${text}`);
    assert.deepStrictEqual(got.rows, want, text);
    // The skeleton is the body with the array emptied.
    const whole = JSON.parse(text.replace(/^\ufeff/, '')) as unknown;
    assert.deepStrictEqual(got.skeleton, Array.isArray(whole) ? [] : { ...(whole as object), dmarcRecords: [] }, text);
    jumps += got.jumps;
  }
  return jumps;
}

/** parseRecordsBody and the one-shot path (JSON.parse + normaliseRows) give the same result or the same error. */
async function sameOutcome(text: string, chunkRows = 2, pieceChars = 4): Promise<void> {
  const run = async (f: () => Promise<FetchResult>): Promise<FetchResult | { kind: string; message: string }> => {
    try {
      return await f();
    } catch (e) {
      assert.ok(e instanceof ApiError, String(e));
      return { kind: e.kind, message: e.message };
    }
  };
  const oneShot = await run(async () => normaliseRows(parseRecordsJson(text, 'application/json')));
  const incremental = await run(() => parseRecordsBody(text, 'application/json', { chunkRows, pieceChars, oneShotMaxChars: 0 }));
  assert.deepStrictEqual(incremental, oneShot, JSON.stringify(text.slice(0, 200)));
}

describe('jsonScan: finding the records array', () => {
  it('bare arrays: elements split at the top-level commas only', () => {
    const text = '[1, [2, 3], {"a": [4, {"b": 5}]}, "x,y", null]';
    const scan = new RecordsArrayScanner(text, { pieceChars: 1 }).scanAll();
    assert.equal(scan.kind, 'found');
    if (scan.kind !== 'found') return;
    assert.equal(scan.open, 0);
    assert.equal(scan.close, text.length - 1);
    assert.deepEqual(scan.pieces.map((p) => text.slice(p.from, p.to).trim()), ['1', '[2, 3]', '{"a": [4, {"b": 5}]}', '"x,y"', 'null']);
    assertAgrees(text);
  });

  it('strings with brackets, braces, commas, colons, escaped quotes and backslashes, unicode escapes', () => {
    const tricky = ['[', ']', '{', '}', ',', ':', '"', '\\', '\\"', '"\\', '\\\\', '\\\\\\"', '],[', '},{', '"dmarcRecords":[', 'é', '😀', '\u2028', '\u0000', '\n\t'];
    assertAgrees(JSON.stringify(tricky));
    assertAgrees(JSON.stringify(tricky.map((s) => ({ [s]: s, s, n: [s, { s }] }))));
    assertAgrees(JSON.stringify({ note: tricky, dmarcRecords: tricky, after: tricky }));
    // Escapes JSON.stringify never writes, but a server may.
    assertAgrees('["\\u005b\\u005d", "\\u0022,\\u0022", "\\/", "a\\\\", "\\\\\\"", "\\ud83d\\ude00", "\\"]\\""]');
    assertAgrees('{"dmarc\\u0052ecords": [1, 2], "x": "\\"dmarcRecords\\": [3]"}');
  });

  it('nested arrays and objects inside elements', () => {
    assertAgrees('[[[[]]], {"a": {"b": {"c": [[1], [2, [3, {}]]]}}}, [], {}, [{}, []]]');
    assertAgrees(JSON.stringify({ dmarcRecords: [{ dkims: [{ s: 'a' }, { s: 'b' }], rdns: ['x', 'y'] }, [[1, 2], [3]]] }));
  });

  it('envelopes: members before and after dmarcRecords, in any order', () => {
    const rows = [{ a: 1 }, { b: [2] }];
    assertAgrees(JSON.stringify({ status: 'success', dmarcRecords: rows }));
    assertAgrees(JSON.stringify({ dmarcRecords: rows, status: 'success' }));
    assertAgrees(JSON.stringify({ status: 'success', page: { n: 1, of: [1, 2] }, list: [[1], [2]], dmarcRecords: rows, next: null, tags: ['a,b', '[c]'] }));
    // Decoys: the key nested deeper, inside strings, or as a value.
    assertAgrees(JSON.stringify({ meta: { dmarcRecords: [9, 9] }, dmarcRecords: rows, other: [{ dmarcRecords: [8] }], s: 'dmarcRecords' }));
    assertAgrees(JSON.stringify({ x: 'dmarcRecords', dmarcRecords: rows }));
    // Repeated keys: JSON.parse keeps the last, and so must we.
    assertAgrees('{"dmarcRecords": [1, 2], "dmarcRecords": [3]}');
    assertAgrees('{"dmarcRecords": [1, 2], "dmarcRecords": null}');
    assertAgrees('{"dmarcRecords": "none", "dmarcRecords": [4, 5]}');
    // No records array: nothing to split.
    for (const t of ['{}', '{"status":"success"}', '{"dmarcRecords":{}}', '{"dmarcRecords":"[]"}', '{"data":[1]}']) assertAgrees(t);
  });

  it('empty arrays, whitespace everywhere, a byte order mark', () => {
    for (const t of ['[]', '[ ]', ' \n\t\r[ \n ] \n', '{"dmarcRecords":[]}', '{ "dmarcRecords" : [ ] , "status" : "success" }', '[ 1 ]', '\ufeff[1, 2]', '\ufeff {"dmarcRecords":[3]}']) {
      assertAgrees(t);
    }
    assertAgrees('\r\n{\r\n  "status" : "success" ,\r\n\t"dmarcRecords" :\n [\n  {\n "a" : [ 1 , 2 ] } ,\n\n  { } ,  [ ] \n ]\n}\r\n');
    assert.deepEqual(new RecordsArrayScanner('[   ]').scanAll(), { kind: 'found', start: 0, open: 0, close: 4, pieces: [{ from: 1, to: 4 }] });
  });

  it('does not look inside bodies that are not an array or an object', () => {
    for (const t of ['null', '42', '"[1,2]"', 'true', '<html>[]</html>', '', '   ', '\u00a0[]']) {
      assert.equal(new RecordsArrayScanner(t).scanAll().kind, 'other', t);
    }
  });

  it('pieces hold whole elements and end once they reach pieceChars', () => {
    const text = JSON.stringify(Array.from({ length: 10 }, (_, i) => 'x'.repeat(i * 10)));
    const sizes = (pieceChars: number) => {
      const scan = new RecordsArrayScanner(text, { pieceChars }).scanAll();
      assert.equal(scan.kind, 'found');
      return scan.kind === 'found' ? scan.pieces.map((p) => (JSON.parse('[' + text.slice(p.from, p.to) + ']') as unknown[]).length) : [];
    };
    // Elements of 2, 12, 22 … 92 characters: a piece ends with the element that takes it to 100
    // characters or more (2+12+22+32+42 and the commas: 114).
    assert.deepEqual(sizes(100), [5, 2, 2, 1]);
    assert.deepEqual(sizes(1), Array(10).fill(1));
    assert.deepEqual(sizes(1 << 20), [10]);
  });

  it('jumps over rows that look alike, and only lands on real separators', () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ source: `s${i}`, n: i, tags: ['},{"source":', '"'], sub: { x: '}' } }));
    const compact = JSON.stringify({ status: 'success', dmarcRecords: rows });
    assert.ok(assertAgrees(compact) > 0, 'jumped');
    assert.ok(assertAgrees(JSON.stringify(rows, null, 2)) > 0, 'jumped, pretty printed');
    // The first jump lands a few rows on, and parses them in one go.
    const got = scanAndParse(compact, 1 << 30, 100);
    assert.ok(typeof got === 'object' && got.jumps > 3, JSON.stringify(got).slice(0, 80));
    // Rows whose nested objects start with the same key: a guess can land inside a row. Its
    // stretch then does not parse, and the scanner carries on character by character.
    const nested = rows.map((r, i) => ({ source: r.source, more: [{ source: i }, { source: -i }] }));
    assertAgrees(JSON.stringify(nested));
    assertAgrees(JSON.stringify({ dmarcRecords: nested, after: nested }));
    // Rows parsed in jumps are dropped when a later dmarcRecords replaces the array.
    assertAgrees(`{"dmarcRecords": ${JSON.stringify(rows)}, "dmarcRecords": []}`);
    assertAgrees(`{"dmarcRecords": ${JSON.stringify(rows)}, "x": ${JSON.stringify(rows)}, "dmarcRecords": [{"source": 1}]}`);
    // Rows that are not objects, or whose first key has escapes: no jumps, same rows.
    assert.equal(assertAgrees(JSON.stringify(rows.map((r) => [r]))), 0);
    assert.equal(assertAgrees(JSON.stringify(rows).replace(/"source"/g, '"sour\\u0063e"')), 0);
  });
});

describe('jsonScan: bodies that are not JSON', () => {
  const doc = '{"status":"success","dmarcRecords":[{"a":"x,\\"]}y","b":[1,{"c":null}],"d":"\\\\"},{"e":"\\u00e9[{"},[],7],"next":{"k":[1,2]}}';

  it('a document cut at any position is never accepted, and fails as with one JSON.parse', async () => {
    assert.ok(expectedRows(doc));
    for (let p = 0; p < doc.length; p++) {
      const cut = doc.slice(0, p);
      for (const pieceChars of [1, 5, 30]) assert.ok(typeof scanAndParse(cut, 5, pieceChars) !== 'object', `accepted ${cut}`);
      await sameOutcome(cut, 1);
    }
    // The same for a bare array.
    const bare = JSON.stringify(expectedRows(doc));
    for (let p = 0; p < bare.length; p++) {
      assert.ok(typeof scanAndParse(bare.slice(0, p), 3, 1) !== 'object', `accepted ${bare.slice(0, p)}`);
      await sameOutcome(bare.slice(0, p), 1);
    }
  });

  it('malformed bodies give the same error as one JSON.parse', async () => {
    const bad = [
      '[1}', '{"dmarcRecords":[1}}', '{"dmarcRecords":[1,2]]', '{"dmarcRecords":[1,2]}}', '[1,,2]', '[1,2,]', '[,1]', '[ , ]', '[1 2]',
      '[1,2] x', '[] []', '{"dmarcRecords":[]} {}', '{"a":1 "dmarcRecords":[]}', '{"dmarcRecords" []}', '{"dmarcRecords":[1],}',
      '{,"dmarcRecords":[1]}', '{"dmarcRecords":[1]', '["a\\"]', '["\\x"]', '["a\u0001b"]', '[01]', '[NaN]', '[undefined]', "['a']",
      '{"status":"error","dmarcRecords":[1,}]}', '{"status":"error","dmarcRecords":[1]', '{"dmarc\\qRecords":[1]}', '[{"a":1}{"b":2}]',
      '[{"a":1},{"b":2]', '[{"a":[1,2}]', '[1]]', '{"x":[1]]}', '\ufeff\ufeff[]', ' \ufeff[]', '[1, 2] \u00a0',
    ];
    for (const t of bad) {
      assert.throws(() => JSON.parse(t.replace(/^\ufeff/, '')), SyntaxError, `really malformed: ${t}`);
      assert.ok(typeof scanAndParse(t, 4, 1) !== 'object', `accepted ${t}`);
      await sameOutcome(t, 1);
    }
  });

  it('valid bodies that are not DMARC records give the same error as one JSON.parse', async () => {
    for (const t of ['{}', '{"status":"error","message":"suspended","dmarcRecords":[1,2]}', '{"dmarcRecords":[1,2],"status":"pending"}', '{"status":5,"dmarcRecords":[]}', '{"dmarcRecords":null}', '[]', '[1, null, {}]']) {
      await sameOutcome(t, 1);
    }
  });
});

describe('jsonScan: equivalence with JSON.parse over a generated corpus', () => {
  // A seeded generator of JSON values full of the characters that matter to the scanner, and a
  // serialiser that adds random whitespace and escapes characters JSON.stringify would not.
  let seed = 42;
  const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const ALPHABET = ['a', 'Z', ' ', '"', '\\', '/', '[', ']', '{', '}', ',', ':', '\n', '\u0001', 'é', '😀', '\u2028', '\ud800', 'dmarcRecords'];
  const randomString = (): string => Array.from({ length: rnd(6) }, () => ALPHABET[rnd(ALPHABET.length)]).join('');
  function value(depth: number): unknown {
    const k = rnd(depth > 3 ? 5 : 8);
    if (k === 0) return null;
    if (k === 1) return rnd(2) === 0;
    if (k === 2) return [0, -1, 1.5, 1e21, -0.25e-3, 123456789][rnd(6)];
    if (k <= 4) return randomString();
    if (k === 5) return Array.from({ length: rnd(4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: rnd(4) }, () => [randomString(), value(depth + 1)]));
  }
  const ws = (): string => ['', '', ' ', '\n', '\t', '\r\n  '][rnd(6)]!;
  function str(s: string): string {
    let out = '"';
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (rnd(5) === 0) out += '\\u' + c.toString(16).padStart(4, '0');
      else if (c === 0x22) out += '\\"';
      else if (c === 0x5c) out += '\\\\';
      else if (c === 0x2f && rnd(2) === 0) out += '\\/';
      else if (c < 0x20) out += JSON.stringify(s[i]).slice(1, -1);
      else out += s[i];
    }
    return out + '"';
  }
  function ser(v: unknown): string {
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) return '[' + ws() + v.map(ser).join(ws() + ',' + ws()) + ws() + ']';
    if (v && typeof v === 'object') {
      return '{' + ws() + Object.entries(v).map(([k, x]) => str(k) + ws() + ':' + ws() + ser(x)).join(ws() + ',' + ws()) + ws() + '}';
    }
    return JSON.stringify(v);
  }

  /** Rows the scanner can jump over: objects with the same first key (and sometimes nested ones with it too). */
  const row = (): unknown => ({ id: value(2), ...(value(1) as object), ...(rnd(4) === 0 ? { nested: [{ id: 1 }, { id: value(3) }] } : {}) });

  it('same rows as JSON.parse, for bare arrays and envelopes', () => {
    let jumps = 0;
    for (let n = 0; n < 400; n++) {
      const rows = Array.from({ length: rnd(12) }, () => (n % 2 ? row() : value(0)));
      let body: unknown = rows;
      if (rnd(3) > 0) {
        // An envelope, with other members on either side of dmarcRecords.
        const before = Object.fromEntries(Array.from({ length: rnd(3) }, () => [randomString(), value(1)]));
        const after = Object.fromEntries(Array.from({ length: rnd(3) }, () => [randomString(), value(1)]));
        delete before.dmarcRecords;
        delete after.dmarcRecords;
        body = { ...before, dmarcRecords: rows, ...after };
      }
      // Compact now and then, so that rows look alike and the scanner jumps.
      const text = n % 4 === 1 ? JSON.stringify(body) : ws() + ser(body) + ws();
      assert.deepStrictEqual(expectedRows(text), rows, 'the serialiser is faithful');
      jumps += assertAgrees(text);
    }
    assert.ok(jumps > 100, `the scanner jumped (${jumps})`);
  });

  it('every cut of a generated body is rejected', () => {
    for (let n = 0; n < 20; n++) {
      const text = ser({ status: 'success', dmarcRecords: Array.from({ length: 6 }, () => (n % 2 ? row() : value(1))), tail: value(1) });
      for (let p = 0; p < text.length; p++) {
        for (const pieceChars of [1, 20]) assert.ok(typeof scanAndParse(text.slice(0, p), 11, pieceChars) !== 'object', text.slice(0, p));
      }
    }
  });
});
