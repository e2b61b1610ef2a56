import { strict as assert } from 'node:assert';
import { csvField, toCsv, toJson, CSV_COLUMNS } from '../../src/export/format';
import type { DmarcRecord } from '../../src/api/types';

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
  it('JSON is the records exactly as received, unknown fields included', () => {
    const a = record();
    const b = record({ raw: { weird: [1, 'two'], source: 'x' } });
    assert.deepEqual(JSON.parse(toJson([a, b])), [a.raw, b.raw]);
    assert.ok(toJson([a]).includes('\n  {'), 'pretty-printed');
  });

  it('CSV has a header and one CRLF line per record', () => {
    const lines = toCsv([record(), record({ to: 'rcpt.example', ipCountryCode: 'US' })]).split('\r\n');
    assert.equal(lines[0], `${CSV_COLUMNS.join(',')},extra,from`);
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
    assert.equal(lines[0], `${CSV_COLUMNS.join(',')},reportId,from,policy,'=cmd,n`);
    const tail = (line: string) => line.split(',').slice(CSV_COLUMNS.length).join(',');
    assert.equal(tail(lines[1]!), '1234,example.com,,,');
    assert.equal(tail(lines[2]!), ',,"{""p"":""reject""}",\'=1+1,3');
    assert.equal(tail(lines[3]!), ',,,,');
    // Without extra fields the header is the documented columns alone.
    assert.equal(toCsv([c]).split('\r\n')[0], CSV_COLUMNS.join(','));
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
  });
});
