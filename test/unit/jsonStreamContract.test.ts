// The streaming parser's contract (src/api/jsonStream.ts), measured rather than assumed: each row
// goes out as soon as the text after it shows it is whole and never before its separator; the
// skeleton is the body with the array replaced by the marker, exactly; envelopes whose array is
// not the top-level dmarcRecords give out nothing; a failed parser drops its text and reads no
// more; and the work stays what the design promises (every row's text parsed about once, a row
// read character by character only at the start and after a wrong guess).
import { strict as assert } from 'node:assert';
import { measure } from './parseWork';
import { RecordsStreamParser } from '../../src/api/jsonStream';

function pieces(text: string, sizes: readonly number[]): string[] {
  const out: string[] = [];
  for (let i = 0, k = 0; i < text.length; k++) {
    const n = sizes[k % sizes.length]!;
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

const row = (i: number, extra: Record<string, unknown> = {}) => ({
  source: `s${i}`, reporter: 'google.com', visibleFrom: 'a.example', ipAddress: `192.0.2.${i % 250}`, emails: i + 1,
  note: i % 3 === 0 ? '},{"source":"x"' : 'a,]}[{', dkims: [{ selector: 's', domain: 'a.example', result: 'pass' }], ...extra,
});

/** A body and where things are in it: each row's separator (the `,` after it, or the array's `]`) and its first key's colon. */
interface Body { text: string; rows: unknown[]; sepAt: number[]; colonAt: number[]; open: number; close: number }

function body(head: string, rows: unknown[], tail: string, pretty = false): Body {
  let text = head + '[';
  const open = head.length;
  const sepAt: number[] = [];
  const colonAt: number[] = [];
  rows.forEach((r, k) => {
    if (k > 0) {
      sepAt.push(text.length);
      text += ',';
    }
    if (pretty) text += '\n  ';
    const t = pretty ? JSON.stringify(r, null, 2) : JSON.stringify(r);
    colonAt.push(text.length + t.indexOf(':'));
    text += t;
  });
  if (pretty) text += '\n';
  const close = text.length;
  sepAt.push(close);
  return { text: text + ']' + tail, rows, sepAt, colonAt, open, close };
}

/** Rows out after `at` characters: at most the rows whose separator is in (`[1` may go on as `[12`); at least row 0 once its comma is in (read by hand), and row k ≥ 1 once the text between rows recurs after it (the next row's first key). The last row may wait for the end. */
function bounds(b: Body, at: number): { whole: number; due: number } {
  const n = b.rows.length;
  const whole = b.sepAt.filter((s) => s < at).length;
  const due = b.rows.filter((_, k) => (k === 0 ? b.sepAt[0]! : k < n - 1 ? b.colonAt[k + 1]! : Infinity) < at).length;
  return { whole, due };
}

/** Pushes the pieces; per push, the text length so far and the rows out so far. */
function run(parser: RecordsStreamParser, parts: readonly string[]): { got: unknown[]; steps: { at: number; out: number }[] } {
  const got: unknown[] = [];
  const steps: { at: number; out: number }[] = [];
  let at = 0;
  for (const p of parts) {
    at += p.length;
    got.push(...parser.push(p));
    steps.push({ at, out: got.length });
  }
  return { got, steps };
}

const ROWS = Array.from({ length: 40 }, (_, i) => row(i));
const BODIES: readonly [string, Body][] = [
  ['an envelope', body('{"status":"success","dmarcRecords":', ROWS, '}')],
  [
    'an envelope with nested values, bracket characters in strings, an escaped key and an earlier non-array dmarcRecords',
    body('\ufeff {"meta":{"a":[1,{"b":"]}[{"}],"c":{}},"x":"dmarcRecords","dmarcRecords":"no","a\\u0041":[1,2],"n":5,"dmarc\\u0052ecords":', ROWS, ',"next":{"page":[1,2]}}\n'),
  ],
  ['a bare array with a byte order mark and spaces', body('\ufeff\n ', ROWS, ' \n')],
  ['a pretty-printed envelope', body('{ "dmarcRecords" : ', ROWS, '\n}', true)],
];
const SPLITS: readonly (readonly number[])[] = [[1], [2, 3], [7], [64, 5, 300], [4096], [1 << 30]];

describe('jsonStream: the streaming contract', () => {
  it('each row goes out once the next row’s first key is in, never before its separator', () => {
    for (const [name, b] of BODIES) {
      for (const sizes of SPLITS) {
        const parser = new RecordsStreamParser();
        const { got, steps } = run(parser, pieces(b.text, sizes));
        const n = b.rows.length;
        for (const { at, out } of steps) {
          const { whole, due } = bounds(b, at);
          assert.ok(out <= whole, `${name} in ${sizes}: ${out} rows out with ${whole} whole at ${at}`);
          assert.ok(out >= due, `${name} in ${sizes}: ${out} rows out, ${due} due at ${at}`);
        }
        const { rows, end } = parser.end();
        assert.ok(rows.length <= 1, `${name} in ${sizes}: at most the last row waits for the end`);
        got.push(...rows);
        assert.deepStrictEqual(got, JSON.parse(JSON.stringify(b.rows)), `${name} in ${sizes}: the rows, in order, once each`);
        assert.equal(parser.rows, n);
        assert.equal(end.kind, 'found', name);
        if (end.kind !== 'found') continue;
        const head = b.text.slice(0, b.open).replace(/^\ufeff/, '');
        assert.equal(end.skeleton, head + JSON.stringify(end.marker) + b.text.slice(b.close + 1), `${name}: the skeleton`);
      }
    }
  });

  it('a body cut in two anywhere gives the same rows, each as soon as the first piece shows it whole', () => {
    const b = body('{"dmarcRecords":', [row(1), row(2), row(3)], ',"status":"success"}');
    for (let p = 0; p <= b.text.length; p++) {
      const parser = new RecordsStreamParser();
      const first = parser.push(b.text.slice(0, p));
      const second = parser.push(b.text.slice(p));
      const { rows, end } = parser.end();
      const { whole, due } = bounds(b, p);
      assert.ok(first.length >= due && first.length <= whole, `cut at ${p}: ${first.length} rows out, ${due}–${whole} expected`);
      assert.deepStrictEqual([...first, ...second, ...rows], JSON.parse(JSON.stringify(b.rows)), `cut at ${p}`);
      assert.equal(end.kind, 'found');
    }
  });

  it('rows that are not objects go out at their commas while the body arrives', () => {
    const rows = Array.from({ length: 3000 }, (_, i) => (i % 2 ? i * 7 : `r${i},]`));
    const b = body('', rows, '');
    const parser = new RecordsStreamParser();
    const w = measure(() => run(parser, pieces(b.text, [512])));
    assert.deepStrictEqual(w.value.got, rows, 'every row out before end()');
    assert.deepStrictEqual(parser.end().rows, []);
    const last = w.value.steps.at(-2)!;
    assert.equal(last.out, b.sepAt.filter((s) => s < last.at).length, 'out at the last comma before the last piece');
    assert.ok(w.parses <= w.value.steps.length + 2, `${w.parses} parses for ${w.value.steps.length} pieces`);
  });

  it('envelopes whose top level holds no dmarcRecords array give out no rows and their text whole', () => {
    const bodies = [
      '{"a":{"dmarcRecords":[1,2]}}', '{"x":"dmarcRecords"}', '{"dmarcRecords":null}', '"dmarcRecords"', '42', '<html>[1,2]</html>',
      // Not JSON, with the array where a value-as-key, a second colon or a missing comma would put it:
      '{"a" "dmarcRecords":[1,2]}', '{"a":"dmarcRecords":[1,2]}', '{"dmarcRecords":"x"[1,2]}', '{"dmarcRecords":5[1,2]}',
      '{"dmarcRecords"::[1,2]}', '{"x":1 "dmarcRecords":[1,2]}', '7,"dmarcRecords":[1,2]', '{"a":1},"dmarcRecords":[1,2]', '{[1,2]}',
    ];
    for (const text of bodies) {
      for (const sizes of [[1], [3], [1 << 30]]) {
        const parser = new RecordsStreamParser();
        const { got } = run(parser, pieces(text, sizes));
        const { rows, end } = parser.end();
        assert.deepStrictEqual([...got, ...rows], [], `${text} in ${sizes}`);
        assert.deepStrictEqual(end, { kind: 'other', text }, `${text} in ${sizes}`);
      }
    }
  });

  it('a body that cannot be JSON: rows up to the defect only, then its text dropped and nothing more read', () => {
    const cases: [string, unknown[]][] = [
      ['[1,2,,3,4]', [1]], ['[1,]', [1]], ['{"dmarcRecords":[{"a":1},]}', [{ a: 1 }]], ['[,1]', []], ['[{"a":1}x,{"b":2}]', []],
      ['{"dmarcRecords":[{"a":1},{"b":2}}', [{ a: 1 }]], ['[1,2', [1]], ['{"dmarcRecords":["a', []],
    ];
    for (const [text, before] of cases) {
      for (const sizes of [[1], [1 << 30]]) {
        const parser = new RecordsStreamParser();
        const { got } = run(parser, pieces(text, sizes));
        const { rows, end } = parser.end();
        assert.deepStrictEqual(end, { kind: 'invalid' }, text);
        assert.deepStrictEqual(rows, [], `${text}: no rows at the end`);
        assert.ok(got.length <= before.length, `${text} in ${sizes}: ${JSON.stringify(got)}`);
        assert.deepStrictEqual(got, before.slice(0, got.length), text);
        const held = parser as unknown as { buf: string; head: string };
        assert.deepStrictEqual([held.buf, held.head], ['', ''], `${text}: a failed parser holds no text`);
        const more = measure(() => parser.push('[5,6,7],{"dmarcRecords":[8]}'));
        assert.deepStrictEqual([more.value, more.chars, more.parses, held.buf], [[], 0, 0, ''], `${text}: text after the failure is not read or kept`);
      }
    }
  });

  it('keys are decoded only when escaped, and nothing after an envelope that closed without the array is read', () => {
    const keys = Array.from({ length: 500 }, (_, i) => `"k${i}":${i}`).join(',');
    const parser = new RecordsStreamParser();
    const w = measure(() => [...parser.push(`{${keys},"dmarcRecords":[{"a":1},{"a":2}]}`), ...parser.end().rows]);
    assert.deepStrictEqual(w.value, [{ a: 1 }, { a: 2 }]);
    assert.ok(w.parses <= 3, `${w.parses} parses for 501 plain keys`);
    const closed = new RecordsStreamParser();
    closed.push('{"a":1}');
    const after = measure(() => closed.push(`${' x'.repeat(5000)}"dmarcRecords":[1]`));
    assert.deepStrictEqual([after.value, after.chars], [[], 0]);
  });

  it('empty pieces read nothing, and a body that is not records is read one character', () => {
    const parser = new RecordsStreamParser();
    for (const text of ['', '{"dmarcRecords":[', '', '{"a":1},', '', '{"a":2}', '', ']}', '']) {
      const w = measure(() => parser.push(text));
      if (text === '') assert.deepStrictEqual([w.value, w.chars, w.parses], [[], 0, 0], 'an empty piece');
    }
    assert.equal(parser.end().end.kind, 'found');
    const html = new RecordsStreamParser();
    const w = measure(() => pieces('<html><body>[1,2]</body></html>', [1]).flatMap((p) => html.push(p)));
    assert.deepStrictEqual(w.value, []);
    assert.ok(w.chars <= 3, `${w.chars} characters read`);
  });

  it('every row’s text is parsed about once: one JSON.parse per piece, a row read by hand only at the start', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => row(i));
    const cases = [
      { name: 'compact', b: body('{"dmarcRecords":', rows, '}') },
      { name: 'pretty', b: body('{"dmarcRecords":', rows, '}', true) },
    ];
    for (const { name, b } of cases) {
      const firstRow = b.sepAt[0]! - b.open;
      for (const size of [512, 4096, 65536, 1 << 30]) {
        const parser = new RecordsStreamParser();
        const parts = pieces(b.text, [size]);
        const w = measure(() => [...run(parser, parts).got, ...parser.end().rows]);
        assert.equal(w.value.length, rows.length);
        const at = `${name} in pieces of ${size}: ${JSON.stringify({ ...w, value: undefined })}`;
        assert.ok(w.parses <= parts.length + 3, at);
        assert.ok(w.parsed <= b.text.length + 3 * parts.length, at);
        assert.ok(w.chars <= 2 * (b.open + firstRow) + 100, at);
        assert.ok(w.longest <= (1 << 20) + 2 * firstRow, at);
      }
    }
  });

  it('after wrong guesses (the text between rows recurring inside a row) it reads by hand for longer each time, not forever', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => row(i, { dkims: [{ a: 1 }, { source: 'nested' }] }));
    const b = body('{"dmarcRecords":', rows, '}');
    for (const size of [4096, 65536, 1 << 30]) {
      const parser = new RecordsStreamParser();
      const w = measure(() => [...run(parser, pieces(b.text, [size])).got, ...parser.end().rows]);
      assert.deepStrictEqual(w.value, JSON.parse(JSON.stringify(rows)));
      const at = `pieces of ${size}: ${JSON.stringify({ ...w, value: undefined })}`;
      assert.ok(w.chars <= b.text.length / 2, at);
      assert.ok(w.parsed <= 4 * b.text.length, at);
    }
  });

  it('the marker standing for the array is fresh for every body', () => {
    const ends = [0, 1].map(() => {
      const p = new RecordsStreamParser();
      p.push('{"dmarcRecords":[]}');
      return p.end().end;
    });
    const markers = ends.map((e) => (e.kind === 'found' ? e.marker : ''));
    for (const m of markers) assert.match(m, /^\u0000records-[0-9a-f]{32}$/);
    assert.notEqual(markers[0], markers[1]);
  });
});
