import { strict as assert } from 'node:assert';
import { collect, csvChunks, csvField, jsonChunks, linePieces, toCsv, toJson, CSV_COLUMNS } from '../../src/export/format';
import type { DmarcRecord } from '../../src/api/types';
import { columnLabels } from '../../src/shared/columnLabels';
import { COLUMN_LABELS } from '../../media/webview/format';

/** The documented columns' header: the records table's column names, in CSV_COLUMNS' order. */
const HEADER = 'Source,Reporter,Header From,Return-Path,To,IP Address,Country,Reverse DNS,Emails,Category,Date,Disposition,Aligned SPF,Aligned DKIM,SPF,DKIM Signatures';

function record(over: Partial<DmarcRecord> = {}): DmarcRecord {
  const raw = { source: 'Google Workspace', extra: { nested: true }, from: 'example.com' };
  return {
    source: 'Google Workspace', reporter: 'google.com', visibleFrom: 'example.com', returnPath: 'bounce.example.com',
    ipAddress: '203.0.113.7', rdns: ['mail-a.google.com', 'mail-b.google.com'], emails: 12, category: 'authorized',
    date: '2026-11-20T10:00:00.000Z', dateMs: Date.parse('2026-11-20T10:00:00.000Z'), dmarc: 'none',
    alignedSpf: 'pass', alignedDkim: 'fail', spf: 'pass',
    dkims: [{ selector: 's1', domain: 'example.com', result: 'pass' }, { selector: 's2', domain: 'esp.net', result: 'fail' }],
    raw, ...over,
  };
}

describe('export formats', () => {
  it('JSON is the records exactly as received, unknown fields included, one record per line', () => {
    const a = record();
    const b = record({ raw: { weird: [1, 'two'], source: 'x' } });
    const text = toJson([a, b]);
    assert.deepEqual(JSON.parse(text), [a.raw, b.raw]);
    assert.deepEqual(text.split('\n'), ['[', `${JSON.stringify(a.raw)},`, JSON.stringify(b.raw), ']', '']);
    assert.deepEqual(JSON.parse(toJson([])), []);
  });

  it('CSV has a header and one CRLF line per record', () => {
    const lines = toCsv([record(), record({ to: 'rcpt.example', ipCountryCode: 'US' })]).split('\r\n');
    assert.equal(lines[0], `${HEADER},extra,from`);
    assert.equal(lines.length, 4);
    assert.equal(lines[3], '');
    const cells = lines[2].split(',');
    assert.equal(cells[4], 'rcpt.example');
    assert.equal(cells[7], 'mail-a.google.com mail-b.google.com');
    assert.equal(cells[8], '12');
    assert.equal(cells[15], 's1._domainkey.example.com=pass s2._domainkey.esp.net=fail');
  });

  it('CSV carries every field the JSON does: extra fields as columns after the documented ones', () => {
    const a = record({ raw: { source: 'x', reportId: '1234', from: 'example.com' } });
    const b = record({ raw: { source: 'y', policy: { p: 'reject' }, reportId: null, '=cmd': '=1+1', n: 3 } });
    const c = record({ raw: { source: 'z' } });
    const lines = toCsv([a, b, c]).split('\r\n');
    assert.equal(lines[0], `${HEADER},reportId,from,policy,'=cmd,n`);
    const tail = (line: string) => line.split(',').slice(CSV_COLUMNS.length).join(',');
    assert.equal(tail(lines[1]!), '1234,example.com,,,');
    assert.equal(tail(lines[2]!), ',,"{""p"":""reject""}",\'=1+1,3');
    assert.equal(tail(lines[3]!), ',,,,');
    // Without extra fields the header is the documented columns alone.
    assert.equal(toCsv([c]).split('\r\n')[0], HEADER);
  });

  it('CSV names the documented columns as the records table does ("Header From", not visibleFrom); JSON keeps the server\u2019s keys', () => {
    const header = toCsv([record()]).split('\r\n')[0]!.split(',');
    assert.deepEqual(header.slice(0, CSV_COLUMNS.length), HEADER.split(','));
    for (const id of ['visibleFrom', 'alignedSpf', 'ipCountryCode', 'dkims']) assert.ok(!header.includes(id), id);
    assert.ok(Object.keys(JSON.parse(toJson([record()]))[0]).includes('from'), 'JSON: the raw keys');
    // One table of names for the table's headers and the export: the webview's are the same.
    assert.deepEqual(columnLabels(), COLUMN_LABELS);
  });

  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
  });

  it('defuses spreadsheet formulas from report data', () => {
    assert.equal(csvField('=1+1'), "'=1+1");
    assert.equal(csvField('+cmd'), "'+cmd");
    assert.equal(csvField('-2'), "'-2");
    assert.equal(csvField('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvField('=HYPERLINK("http://x","y")'), '"\'=HYPERLINK(""http://x"",""y"")"');
    // A leading tab or carriage return (OWASP's list): also read as the start of a formula by some spreadsheets.
    assert.equal(csvField('\t=1+1'), "'\t=1+1");
    assert.equal(csvField('\r=1+1'), '"\'\r=1+1"', 'guarded, and quoted for its line break');
    // Only at the start: the same characters elsewhere are data.
    assert.equal(csvField('a=b+c-d@e'), 'a=b+c-d@e');
    assert.equal(csvField(''), '');
  });

  describe('built in slices (jsonChunks, csvChunks)', () => {
    const hostile = [
      'line\u2028separator\u2029paragraph', 'lone \ud800 high', 'lone \udfff low', '</script><script>alert(1)</script>',
      'say "hi" \\ back\\slash', 'tab\tnew\nline\r\n', '\u0000\u001f\u007f', '😀 pair', '__proto__', '',
    ];
    const rows = (n: number) => Array.from({ length: n }, (_, i) => record({
      source: hostile[i % hostile.length]!,
      raw: { source: hostile[i % hostile.length], i, nested: { s: hostile[(i + 3) % hostile.length], list: [i, null, true] }, ...(i % 7 === 0 ? { reportId: `r${i}` } : {}) },
    }));

    it('JSON: valid, equal to the raw rows, exactly one record per line, hostile strings intact', async () => {
      const records = rows(5_000);
      const text = await collect(jsonChunks(records, { sliceMs: 0 }));
      assert.deepEqual(JSON.parse(text), records.map((r) => r.raw));
      const lines = text.split('\n');
      assert.equal(lines.length, records.length + 3, '[, one line per record, ], and the end after the final line break');
      assert.equal(lines[0], '[');
      assert.equal(lines.at(-2), ']');
      for (let i = 0; i < records.length; i++) {
        const line = lines[i + 1]!;
        assert.deepEqual(JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line), records[i]!.raw, `line ${i + 1}`);
      }
      // No character any tool takes for a line end inside a record; lone surrogates escaped.
      assert.ok(!/[\r\u2028\u2029]/.test(text));
      assert.ok(text.includes('\\u2028') && text.includes('\\ud800') && text.includes('\\udfff'));
      assert.ok(text.includes('</script><script>alert(1)</script>'), 'text as is: this is a JSON file, not HTML');
      assert.equal(text, toJson(records), 'the same text as the one-piece build');
    });

    it('CSV: the same text as the one-piece build, extra columns from every row', async () => {
      const records = rows(3_000);
      const text = await collect(csvChunks(records, { sliceMs: 0 }));
      assert.equal(text, toCsv(records));
      assert.ok(text.split('\r\n')[0]!.endsWith(',i,nested,reportId'));
    });

    it('yields the event loop between slices and reports progress', async () => {
      const records = rows(2_000);
      let ticks = 0;
      const timer = setInterval(() => ticks++, 0);
      const progress: number[] = [];
      const pieces: string[] = [];
      try {
        for await (const piece of jsonChunks(records, { sliceMs: 0, onProgress: (done, total) => { assert.equal(total, records.length); progress.push(done); } })) {
          pieces.push(piece);
          await new Promise((r) => setTimeout(r, 1));
        }
      } finally {
        clearInterval(timer);
      }
      assert.ok(pieces.length > 10, `${pieces.length} pieces`);
      assert.ok(ticks > 5, `timers ran ${ticks} times during the build`);
      assert.equal(progress.at(-1), records.length);
      assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
    });

    it('stops between slices when aborted', async () => {
      const abort = new AbortController();
      const pieces: string[] = [];
      await assert.rejects(async () => {
        for await (const piece of jsonChunks(rows(2_000), { sliceMs: 0, signal: abort.signal })) {
          pieces.push(piece);
          if (pieces.length === 3) abort.abort(new Error('cancelled by the test'));
        }
      }, /cancelled by the test/);
      assert.equal(pieces.length, 3);
    });

    it('a slice is bounded by time: a 20k-row build never holds the loop for long', async () => {
      const records = rows(20_000);
      let worst = 0;
      let last = performance.now();
      for await (const _piece of jsonChunks(records)) {
        const now = performance.now();
        worst = Math.max(worst, now - last);
        await new Promise((r) => setImmediate(r));
        last = performance.now();
      }
      // The budget is SLICE_MS (12 ms); the margin is for a garbage collection on a busy machine.
      assert.ok(worst < 100, `longest slice ${worst.toFixed(1)} ms`);
    });
  });

  it('linePieces cuts text into pieces that end at line ends and join back to it exactly', () => {
    const text = 'a\r\nbb\r\n' + 'x'.repeat(50) + '\nlast line without end';
    for (const size of [1, 2, 3, 7, 20, 1000]) {
      const pieces = [...linePieces(text, size)];
      assert.equal(pieces.join(''), text, `size ${size}`);
      for (const p of pieces.slice(0, -1)) assert.ok(p.endsWith('\n') && p.length >= size, `piece ${JSON.stringify(p)} ends at a line end`);
      assert.ok(pieces.every((p) => p.length > 0));
    }
    assert.deepEqual([...linePieces('a\nb\nc\n', 2)], ['a\n', 'b\n', 'c\n']);
    assert.deepEqual([...linePieces('abc', 1)], ['abc'], 'a line is never split');
    assert.deepEqual([...linePieces('', 10)], []);
  });
});
