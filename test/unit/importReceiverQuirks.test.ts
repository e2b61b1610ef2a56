// Report files as other receivers' mail servers write them (issue 43, "a reader that loses no real
// report"): shapes that are not quite the format, each read whole or said, never lost in silence.
// The fixtures are hand-written for these tests, in test/fixtures/receiver-quirks: apart from
// test/fixtures/reports, which the library, suite and ui tests and the demo read as a folder of
// clean reports.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, zipSync } from 'fflate';
import { sniff } from '../../src/import/containers';
import { buildReport, reportsNothing } from '../../src/import/reportMap';
import { ReportXmlReader, type XmlBlock, type XmlObject } from '../../src/import/xmlReader';
import { message, read, readOne, recordXml, reportXml, rowsOf, utf8 } from './importHelpers';

const QUIRKS = join(__dirname, '..', '..', 'test', 'fixtures', 'receiver-quirks');
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(join(QUIRKS, name)));
const BOM = [0xef, 0xbb, 0xbf];

const META: XmlObject = { org_name: 'Org', email: 'dmarc@org.example', report_id: 'r1', date_range: { begin: '1749513600', end: '1749599999' } };
/** The metadata block with some children replaced (`undefined` leaves one out). */
function meta(changes: Record<string, XmlObject[string] | undefined>): XmlBlock {
  const value: XmlObject = { ...META };
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) delete value[k];
    else value[k] = v;
  }
  return { name: 'report_metadata', value };
}

describe('import: blanks before the XML declaration', () => {
  it('line breaks, spaces and a tab before <?xml …?> (fixture): the report is read whole, without a word', async () => {
    const r = await readOne('blank-before-declaration.xml', fixture('blank-before-declaration.xml'));
    assert.equal(r.reportId, 'blank-before-decl-1');
    assert.deepEqual(r.records.map((x) => [x.ipAddress, x.emails, x.category]), [['203.0.113.7', 2, 'authorized'], ['198.51.100.23', 5, 'rejected']]);
  });

  it('blanks and UTF-8 byte order marks in any order before the declaration read as the plain report, in .xml, .gz and .zip', async () => {
    const xml = reportXml();
    const expected = rowsOf([await readOne('plain.xml', utf8(xml))]);
    const variants: [string, Uint8Array][] = [
      ['space', utf8(` ${xml}`)],
      ['crlf', utf8(`\r\n\r\n${xml}`)],
      ['tab', utf8(`\t${xml}`)],
      ['bom then spaces', new Uint8Array([...BOM, ...utf8(`  \n${xml}`)])],
      ['spaces then bom', new Uint8Array([...utf8(' \n'), ...BOM, ...utf8(xml)])],
      ['two boms', new Uint8Array([...BOM, ...BOM, ...utf8(xml)])],
      ['utf-16le bom then a line break', new Uint8Array(Buffer.from(`\ufeff\n${xml.replace('UTF-8', 'UTF-16')}`, 'utf16le'))],
    ];
    for (const [name, bytes] of variants) {
      for (const [file, wrapped] of [[`${name}.xml`, bytes], [`${name}.xml.gz`, gzipSync(bytes)], [`${name}.zip`, zipSync({ 'r.xml': bytes })]] as const) {
        const r = await read(file, wrapped);
        assert.deepEqual(r.errors, [], file);
        assert.deepEqual(rowsOf(r.reports), expected, file);
      }
    }
  });

  it('the XML reader drops blanks before the first < even when they come in several writes, and nothing after it', () => {
    const reader = new ReportXmlReader({ maxDepth: 8, maxTextLength: 100 });
    for (const piece of ['', ' \t', '\r\n', '\ufeff', '  <?xml version="1.0"?>', '<feedback><record><a> x </a></record></feedback>']) reader.write(piece);
    reader.end();
    assert.deepEqual(JSON.parse(JSON.stringify(reader.blocks)), [{ name: 'record', value: { a: 'x' } }]);
    const late = new ReportXmlReader({ maxDepth: 8, maxTextLength: 100 });
    late.write('<feedback>');
    assert.throws(() => late.write('<?xml version="1.0"?>'), /XML declaration/, 'a declaration after the first < is still wrong');
  });

  it('sniffing sees XML after spaces and byte order marks in any order; text before the < is not XML', () => {
    assert.equal(sniff(new Uint8Array([0x20, 0x0a, ...BOM, 0x3c])), 'xml');
    assert.equal(sniff(new Uint8Array([...BOM, 0x20, ...BOM, 0x09, 0x3c])), 'xml');
    assert.equal(sniff(new Uint8Array([0x20, 0xef, 0xbb, 0x3c])), 'unknown', 'only a whole mark is skipped');
    assert.equal(sniff(new Uint8Array([0x20, ...BOM, 0x41, 0x3c])), 'unknown');
    assert.equal(sniff(new Uint8Array([...BOM, 0x20])), 'unknown', 'blanks alone are no XML');
  });
});

describe('import: <data_range> for <date_range>', () => {
  it('a report that spells <data_range> (fixture) is read, its rejected email shown, with a notice of that file', async () => {
    const r = await read('data-range-misspelt.xml', fixture('data-range-misspelt.xml'));
    assert.deepEqual(r.errors, [{ file: 'data-range-misspelt.xml', message: 'report_metadata has <data_range> where <date_range> belongs: read as its date range' }]);
    assert.equal(r.reports.length, 1);
    const [report] = r.reports;
    assert.deepEqual([report!.begin, report!.end], ['2025-06-11T00:00:00.000Z', '2025-06-11T23:59:59.000Z']);
    assert.deepEqual(report!.records.map((x) => [x.ipAddress, x.emails, x.category, x.date]), [['192.0.2.250', 1, 'rejected', '2025-06-11T00:00:00.000Z']]);
  });

  it('<date_range> wins when both are there (no notice); a bad begin inside <data_range> is named as it is spelt', () => {
    const both = buildReport('f.xml', [meta({ date_range: { begin: '1749513600' }, data_range: { begin: '1749600000' } })], 20);
    assert.deepEqual(both.errors, []);
    assert.equal(both.report!.begin, '2025-06-10T00:00:00.000Z');
    assert.deepEqual(buildReport('f.xml', [meta({ date_range: undefined, data_range: { begin: 'soon' } })], 20), {
      report: undefined,
      errors: [{ file: 'f.xml', message: 'data_range begin "soon" is not a time in seconds' }],
    });
    assert.deepEqual(buildReport('f.xml', [meta({ date_range: undefined })], 20).errors, [{ file: 'f.xml', message: 'date_range begin "" is not a time in seconds' }], 'neither: as before');
  });
});

describe('import: a message whose attachment is not what its name says', () => {
  it('an .eml whose report.zip is no zip (fixture) names the attachment and says what it is instead', async () => {
    assert.deepEqual(await read('zip-attachment-not-zip.eml', fixture('zip-attachment-not-zip.eml')), {
      reports: [],
      errors: [{
        file: 'zip-attachment-not-zip.eml › report.zip',
        message: 'report.zip is not a zip archive (79 bytes of text: "The attachment report.zip was removed by…")',
      }],
    });
  });

  it('by file name first, else by MIME type: a .gz, an .xml, a nameless application/zip; binary shown in hex, an empty part said', async () => {
    const r = await read('m.eml', message([
      { type: 'application/octet-stream', name: 'r.xml.gz', body: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]) },
      { type: 'application/gzip', name: 'r.xml', body: utf8('Report not generated') },
      { type: 'application/zip', body: new Uint8Array([0, 1, 2]) },
      { type: 'application/x-gzip', name: 'no-extension', body: utf8('') },
    ]));
    assert.equal(r.reports.length, 0);
    assert.deepEqual(r.errors, [
      { file: 'm.eml › r.xml.gz', message: 'r.xml.gz is not a gzip file (10 bytes starting 89 50 4e 47 0d 0a 1a 0a …)' },
      { file: 'm.eml › r.xml', message: 'r.xml is not XML (20 bytes of text: "Report not generated")' },
      { file: 'm.eml › attachment 3', message: 'attachment 3 is not a zip archive (3 bytes starting 00 01 02)' },
      { file: 'm.eml › no-extension', message: 'no-extension is not a gzip file (it is empty)' },
    ]);
  });

  it('a report beside a broken .zip is read, and the .zip still said', async () => {
    const r = await read('m.eml', message([
      { type: 'application/zip', name: 'broken.zip', body: utf8('404 Not Found') },
      { type: 'application/gzip', name: 'good.xml.gz', body: gzipSync(utf8(reportXml())) },
    ]));
    assert.deepEqual(r.reports.map((x) => x.file), ['m.eml › good.xml.gz']);
    assert.deepEqual(r.errors, [{ file: 'm.eml › broken.zip', message: 'broken.zip is not a zip archive (13 bytes of text: "404 Not Found")' }]);
  });

  it('parts that claim no report’s kind stay silent beside a report; with none, the message names what it carries', async () => {
    const logo = { type: 'image/png', name: 'logo.png', body: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) };
    const withReport = await read('m.eml', message([logo, { type: 'text/xml', name: 'r.xml', body: utf8(reportXml()) }]));
    assert.deepEqual(withReport.errors, []);
    assert.equal(withReport.reports.length, 1);
    assert.deepEqual((await read('m.eml', message([logo, { type: 'application/pdf', name: 'a.pdf', body: utf8('%PDF-1.4') }]))).errors, [
      { file: 'm.eml', message: 'the message carries no report (no XML, gzip or zip attachment; its attachments: logo.png, a.pdf)' },
    ]);
    const many = message(Array.from({ length: 7 }, (_, i) => ({ ...logo, name: `p${i}.png` })));
    assert.deepEqual((await read('m.eml', many)).errors, [
      { file: 'm.eml', message: 'the message carries no report (no XML, gzip or zip attachment; its attachments: p0.png, p1.png, p2.png, p3.png, p4.png and 2 more)' },
    ]);
  });
});

describe('import: an empty placeholder record', () => {
  it('a report whose one record is a blank count-0 placeholder (fixture) is a report with no row and no error', async () => {
    const r = await readOne('empty-placeholder-record.xml', fixture('empty-placeholder-record.xml'));
    assert.equal(r.reportId, 'quiet-empty-12');
    assert.deepEqual(r.policy, { domain: 'example.com', p: 'quarantine' });
    assert.deepEqual(r.records, []);
  });

  it('no source_ip with count 0 (however written, other fields filled or not), or no value at all, is nothing to report', () => {
    const placeholders: XmlObject[] = [
      { row: { source_ip: '', count: '0' } },
      { row: { source_ip: ' ', count: ' 00 ', policy_evaluated: { disposition: 'none', dkim: 'fail', spf: 'fail' } }, identifiers: { header_from: 'example.com' } },
      { row: { count: '0' } },
      {},
      { row: { source_ip: '', count: '', policy_evaluated: { disposition: '' } }, identifiers: { header_from: '' }, auth_results: { spf: [{ result: '' }, { domain: ' ' }] } },
    ];
    for (const value of placeholders) {
      assert.ok(reportsNothing(value), JSON.stringify(value));
      const built = buildReport('f.xml', [meta({}), { name: 'record', value }], 20);
      assert.deepEqual(built.errors, [], JSON.stringify(value));
      assert.deepEqual(built.report!.records, [], JSON.stringify(value));
    }
  });

  it('a count-0 record with a source_ip is still a row; without a source_ip and with mail, or a value and no count, still an error', () => {
    const withIp = buildReport('f.xml', [meta({}), { name: 'record', value: { row: { source_ip: '192.0.2.9', count: '0' } } }], 20);
    assert.deepEqual(withIp.errors, []);
    assert.deepEqual(withIp.report!.records.map((x) => [x.ipAddress, x.emails]), [['192.0.2.9', 0]]);
    const still: XmlObject[] = [
      { row: { source_ip: '', count: '5' } },
      { row: { source_ip: '', count: 'zero' } },
      { row: { source_ip: '' }, identifiers: { header_from: 'example.com' } },
      { row: { source_ip: '', count: '' }, auth_results: { dkim: { domain: 'example.com' } } },
    ];
    for (const value of still) assert.equal(reportsNothing(value), false, JSON.stringify(value));
    const built = buildReport('f.xml', [meta({}), ...still.map((value) => ({ name: 'record', value })), { name: 'record', value: { row: { count: '0' } } }, { name: 'record', value: undefined, error: 'too deep' }], 20);
    assert.deepEqual(built.errors.map((e) => e.message), [
      'record 1 left out: no source_ip',
      'record 2 left out: no source_ip',
      'record 3 left out: no source_ip',
      'record 4 left out: no source_ip',
      'record 6 left out: too deep',
    ], 'a placeholder keeps its place in the numbering; a refused record is never taken for one');
  });

  it('a placeholder among real records: the real ones are rows, nothing else said', async () => {
    const placeholder = '<record><row><source_ip/><count>0</count><policy_evaluated><disposition/><dkim/><spf/></policy_evaluated></row><identifiers><header_from/></identifiers><auth_results/></record>';
    const r = await readOne('mixed.xml', utf8(reportXml({ records: [recordXml({ ip: '192.0.2.1', count: '3' }), placeholder, recordXml({ ip: '192.0.2.2', count: '4' })] })));
    assert.deepEqual(r.records.map((x) => [x.ipAddress, x.emails]), [['192.0.2.1', 3], ['192.0.2.2', 4]]);
  });
});
