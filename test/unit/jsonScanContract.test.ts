// The whole-body scanner's contract (src/api/jsonScan.ts), measured: where the array is, pieces
// that tile it exactly (one comma between two, each jumped piece's rows its own text's), pieces as
// long as asked, envelopes without a top-level array called "other", the budget of a step kept,
// and the work bounded (rows read by hand only at the start and after wrong guesses).
import { strict as assert } from 'node:assert';
import { measure } from './parseWork';
import { RecordsArrayScanner, type RecordsArrayScan } from '../../src/api/jsonScan';

const row = (i: number, extra: Record<string, unknown> = {}) => ({
  source: `s${i}`, ip: `192.0.2.${i % 250}`, emails: i + 1, note: i % 3 ? 'a,]}[{' : '},{"source":"x"', dkims: [{ selector: 's', result: 'pass' }], ...extra,
});

/** Checks the pieces of a found scan against the text, and returns the rows they hold. */
function tiled(text: string, scan: RecordsArrayScan, pieceChars: number): unknown[] {
  assert.equal(scan.kind, 'found');
  if (scan.kind !== 'found') return [];
  const { pieces, open, close } = scan;
  assert.equal(text[open], '[');
  assert.equal(text[close], ']');
  assert.equal(pieces[0]!.from, open + 1, 'the first piece starts after the [');
  assert.equal(pieces.at(-1)!.to, close, 'the last ends at the ]');
  assert.equal(pieces.map((p) => text.slice(p.from, p.to)).join(','), text.slice(open + 1, close), 'the pieces and one comma between each are the array’s text');
  const rows: unknown[] = [];
  let byHand = 0;
  pieces.forEach((p, k) => {
    const part = JSON.parse(`[${text.slice(p.from, p.to)}]`) as unknown[];
    if (p.rows) assert.deepStrictEqual(p.rows, part, `jumped piece ${k}: its rows are its text's`);
    const next = pieces[k + 1];
    if (next) {
      assert.equal(next.from, p.to + 1, `one comma between pieces ${k} and ${k + 1}`);
      assert.equal(text[p.to], ',');
    }
    if (!p.rows) byHand++;
    rows.push(...part);
  });
  // A piece read by hand ends once it is long enough, or where a jump is tried (before or after one).
  const jumped = pieces.length - byHand;
  assert.ok(byHand <= (close - open) / pieceChars + 2 * jumped + 2, `${byHand} pieces read by hand, ${jumped} jumped, for ${close - open} characters in pieces of ${pieceChars}`);
  return rows;
}

const ROWS = Array.from({ length: 300 }, (_, i) => row(i));
const BODIES: [string, string][] = [
  ['an envelope', JSON.stringify({ status: 'success', dmarcRecords: ROWS })],
  ['nested values, an escaped key, earlier values named dmarcRecords', `\ufeff {"meta":{"a":[1,{"b":"]}[{"}],"c":{}},"x":"dmarcRecords","dmarcRecords":"no","a\\u0041":[1,2],"dmarc\\u0052ecords":${JSON.stringify(ROWS)},"next":{"p":[1]}}`],
  ['a bare array', ` \n${JSON.stringify(ROWS)}\n`],
  ['pretty', JSON.stringify({ dmarcRecords: ROWS }, null, 2)],
  ['rows that are not objects', JSON.stringify({ dmarcRecords: ROWS.map((r, i) => (i % 2 ? i : JSON.stringify(r))) })],
];

describe('jsonScan: the whole-body contract', () => {
  it('finds the top-level array and tiles it with pieces, every row once, for any piece size', () => {
    for (const [name, text] of BODIES) {
      const want = (JSON.parse(text.replace(/^\ufeff/, '')) as { dmarcRecords?: unknown[] }).dmarcRecords ?? JSON.parse(text);
      for (const pieceChars of [1, 50, 1000, 60_000]) {
        const scan = new RecordsArrayScanner(text, { pieceChars }).scanAll();
        assert.deepStrictEqual(tiled(text, scan, pieceChars), want, `${name}, pieces of ${pieceChars}`);
        if (scan.kind === 'found') assert.equal(scan.start, text.search(/[[{]/), name);
      }
    }
  });

  it('empty elements: pieces still tile the array, and one of them is refused (empty, or not JSON)', () => {
    for (const text of ['[1,,2]', '[{"a":1},,{"a":2}]', '[1,2,]', '{"dmarcRecords":[,1]}']) {
      for (const pieceChars of [1, 1000]) {
        const scan = new RecordsArrayScanner(text, { pieceChars }).scanAll();
        assert.equal(scan.kind, 'found', text);
        if (scan.kind !== 'found') continue;
        assert.equal(scan.pieces.map((p) => text.slice(p.from, p.to)).join(','), text.slice(scan.open + 1, scan.close), text);
        const refused = scan.pieces.some((p) => {
          try {
            return (JSON.parse(`[${text.slice(p.from, p.to)}]`) as unknown[]).length === 0;
          } catch {
            return true;
          }
        });
        assert.ok(refused, `${text} in pieces of ${pieceChars}: a piece the caller refuses`);
      }
    }
  });

  it('what is not a body with a top-level records array is "other"; what cannot be JSON is "invalid"', () => {
    const other = [
      '42', 'null', '"x"', 'true', '<html>', '{}', '{"a":[1]}', '{"a":{"dmarcRecords":[1,2]}}', '{"dmarcRecords":null}', '{"dmarcRecords":[1],"dmarcRecords":5}',
      '{[1,2]}', '{:[1,2]}', '{"a" "dmarcRecords":[1,2]}', '{"a":"dmarcRecords":[1,2]}', '{"dmarcRecords":"x"[1,2]}', '{"dmarcRecords":5[1,2]}',
      '{"dmarcRecords"::[1,2]}', '{"x":1 "dmarcRecords":[1,2]}', '{"a\\u0041":[1,2]}',
    ];
    for (const text of other) assert.deepStrictEqual(new RecordsArrayScanner(text).scanAll(), { kind: 'other' }, text);
    for (const text of ['[1}', '{"dmarcRecords":[1}}', '[1,2', '{"dmarcRecords":["a', '{', '   [', '["\\"]']) {
      assert.deepStrictEqual(new RecordsArrayScanner(text).scanAll(), { kind: 'invalid' }, text);
    }
  });

  it('keys are decoded only when escaped', () => {
    const keys = Array.from({ length: 500 }, (_, i) => `"k${i}":${i}`).join(',');
    const w = measure(() => new RecordsArrayScanner(`{${keys},"dmarc\\u0052ecords":[1,2]}`).scanAll());
    assert.equal(w.value.kind, 'found');
    assert.ok(w.parsed < 100, `${w.parsed} characters parsed for 500 plain keys and one escaped`);
  });

  it('a step scans about its budget: a body without jumps takes its length over the budget in steps', () => {
    const text = JSON.stringify(Array.from({ length: 150_000 }, (_, i) => i));
    for (const budget of [1 << 16, 1 << 18]) {
      const scanner = new RecordsArrayScanner(text);
      let steps = 1;
      while (!scanner.step(budget)) steps++;
      const want = Math.ceil(text.length / budget);
      assert.ok(steps >= want && steps <= want + 1, `${steps} steps of ${budget} for ${text.length} characters`);
    }
  });

  it('rows are jumped over, not read by hand; after wrong guesses it reads by hand for longer each time, not forever', () => {
    const uniform = JSON.stringify({ dmarcRecords: Array.from({ length: 3000 }, (_, i) => row(i)) });
    const nested = JSON.stringify({ dmarcRecords: Array.from({ length: 3000 }, (_, i) => row(i, { dkims: [{ a: 1 }, { source: 'nested' }] })) });
    for (const [name, text, chars, parsed] of [['uniform', uniform, 0.02, 1.1], ['nested', nested, 0.5, 4]] as const) {
      for (const pieceChars of [1000, 60_000]) {
        const w = measure(() => new RecordsArrayScanner(text, { pieceChars }).scanAll());
        assert.equal(w.value.kind, 'found');
        const at = `${name}, pieces of ${pieceChars}: ${w.chars} characters read by hand, ${w.parsed} parsed, of ${text.length}`;
        assert.ok(w.chars <= chars * text.length + 2 * pieceChars + 1000, at);
        assert.ok(w.parsed <= parsed * text.length, at);
      }
    }
  });
});
