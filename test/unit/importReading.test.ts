// One file's read (src/import/reading.ts) with exact results: the errors each kind of trouble gives
// and where it is filed, what is kept of a stream that breaks off, and how messages are read.
import { strict as assert } from 'node:assert';
import { gzipSync, zipSync } from 'fflate';
import { message, read, rawZip, recordXml, reportXml, utf8 } from './importHelpers';

const noisy = (n: number) => new Uint8Array(n).map((_, i) => (i * 7919 + ((i * i) >> 3)) % 251);


describe('import: what one file’s read gives back', () => {
  it('an archive with nothing in it: "no DMARC aggregate report found in it"', async () => {
    const emptyZip = new Uint8Array([0x50, 0x4b, 5, 6, ...new Array<number>(18).fill(0)]);
    assert.deepEqual(await read('e.zip', emptyZip), { reports: [], errors: [{ file: 'e.zip', message: 'no DMARC aggregate report found in it' }] });
  });

  it('inflated bytes that are no report, no archive: one error of that entry', async () => {
    for (const text of ['just some text', 'From: x@example.com\r\n\r\nhello']) {
      assert.deepEqual((await read('t.gz', gzipSync(utf8(text)))).errors, [{ file: 't.gz', message: 'not a DMARC aggregate report (neither XML, gzip nor zip)' }], text);
      assert.deepEqual((await read('t.zip', zipSync({ 'n.txt': utf8(text) }))).errors, [{ file: 't.zip › n.txt', message: 'not a DMARC aggregate report (neither XML, gzip nor zip)' }], text);
    }
  });

  it('a zip entry compressed some other way is an error of that entry', async () => {
    const zip = rawZip({ name: 'r.xml', body: utf8('<feedback/>'), method: 12 as 8, crc: 0, size: 11, descriptor: false });
    assert.deepEqual(await read('m.zip', zip), { reports: [], errors: [{ file: 'm.zip › r.xml', message: 'compression method 12 is not supported (only stored and deflate)' }] });
  });

  it('a nested archive whose entry breaks off is an error of that entry, nothing else', async () => {
    const inner = gzipSync(noisy(5000), { level: 0 });
    const zip = zipSync({ 'inner.gz': inner }, { level: 0 });
    assert.deepEqual(await read('o.zip', zip.subarray(0, 2000)), { reports: [], errors: [{ file: 'o.zip › inner.gz', message: 'zip: invalid zip data' }] });
  });

  it('a gzip cut off inside a report keeps the records read before the break, listed once', async () => {
    const records = Array.from({ length: 2000 }, (_, i) => recordXml({ ip: `10.0.${i >> 8}.${i & 255}` }));
    const gz = gzipSync(utf8(reportXml({ records })), { level: 0 });
    const r = await read('c.xml.gz', gz.subarray(0, 70_000));
    assert.equal(r.reports.length, 1);
    const kept = r.reports[0]!.records.length;
    assert.ok(kept > 0 && kept < 2000, `${kept} records`);
    assert.deepEqual(r.reports[0]!.records.map((x) => x.ipAddress), records.slice(0, kept).map((_, i) => `10.0.${i >> 8}.${i & 255}`));
    assert.deepEqual(r.errors, [{ file: 'c.xml.gz', message: `gzip: unexpected EOF; the ${kept} records read before it are kept` }]);
  });

  it('a report that breaks off before its first record is an error only, with no empty report', async () => {
    const xml = reportXml();
    const cut = xml.slice(0, xml.indexOf('<record>') + 20);
    const r = await read('c2.xml.gz', gzipSync(utf8(cut)));
    assert.equal(r.reports.length, 0);
    assert.equal(r.errors.length, 1);
    assert.equal(r.errors[0]!.file, 'c2.xml.gz');
    assert.match(r.errors[0]!.message, /^XML: \d+:\d+: /);
  });

  it('a report inflated a few bytes at a time (one gzip member per piece) is sniffed on its first 256 bytes, not its first piece', async () => {
    const xml = utf8(reportXml().replace(/^<\?xml[^>]*\?>/, ''));
    const cuts = [0, 2, 5, 40, 300, xml.length];
    const gz = new Uint8Array(cuts.slice(1).flatMap((end, i) => [...gzipSync(xml.subarray(cuts[i]!, end))]));
    const r = await read('m.xml.gz', gz);
    assert.deepEqual(r.errors, []);
    assert.equal(r.reports.length, 1);
    assert.equal(r.reports[0]!.records.length, 1);
  });
});

describe('import: a long read shares the event loop', () => {
  it('reading a few megabytes of reports gives other work a turn before it ends', async () => {
    const records = Array.from({ length: 12_000 }, (_, i) => recordXml({ ip: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}` }));
    const xml = utf8(reportXml({ records }));
    assert.ok(xml.length > 4_000_000, `${xml.length} bytes`);
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    try {
      const r = await read('big.xml', xml);
      assert.equal(r.reports[0]!.records.length, 12_000);
    } finally {
      clearInterval(timer);
    }
    assert.ok(turns > 0, 'a timer ran while the file was read');
  });
});

describe('import: reports in a message', () => {
  const xml = utf8(reportXml());

  it('parts that are no report are passed over in silence', async () => {
    const r = await read('m.eml', message([
      { type: 'text/plain', name: 'notes.txt', body: utf8('From: someone\r\nhello') },
      { type: 'application/octet-stream', name: 'blob.bin', body: noisy(300) },
      { type: 'text/xml', name: 'r.xml', body: xml },
    ]));
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.reports.map((x) => x.file), ['m.eml › r.xml']);
  });

  it('a part without a file name is named by its place in the message', async () => {
    const r = await read('m.eml', message([
      { type: 'application/pdf', name: 'a.pdf', body: utf8('%PDF-1.4') },
      { type: 'application/gzip', body: gzipSync(xml) },
    ]));
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.reports.map((x) => x.file), ['m.eml › attachment 2']);
  });

  it('a report with a bad record is a report and an error: the message does carry a report', async () => {
    const bad = utf8(reportXml({ records: [recordXml(), recordXml({ count: 'many' })] }));
    const r = await read('m.eml', message([{ type: 'text/xml', name: 'r.xml', body: bad }]));
    assert.equal(r.reports.length, 1);
    assert.deepEqual(r.errors, [{ file: 'm.eml › r.xml', message: 'record 2 left out: count "many" is not a whole number from 0 to 2^53 − 1' }]);
  });
});
