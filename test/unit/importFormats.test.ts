// Report files as receivers send them: containers (.xml, .gz, .zip, .eml) and the quirks of real reports.
import { strict as assert } from 'node:assert';
import { gzipSync, zipSync } from 'fflate';
import { decoderFor, utf8Boundary } from '../../src/import/xmlText';
import { fixture, read, readOne, recordXml, reportXml, rowsOf, utf8, zipWithDescriptor } from './importHelpers';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/.{76}/g, '$&\r\n');

function eml(parts: { type: string; name: string; encoding: string; body: string }[]): Uint8Array {
  const head = 'From: reports@receiver.example\r\nTo: dmarc@example.com\r\nSubject: Report Domain: example.com\r\nMIME-Version: 1.0\r\n';
  const body = parts
    .map((p) => `--B\r\nContent-Type: ${p.type}; name="${p.name}"\r\nContent-Disposition: attachment; filename="${p.name}"\r\nContent-Transfer-Encoding: ${p.encoding}\r\n\r\n${p.body}\r\n`)
    .join('');
  return utf8(`${head}Content-Type: multipart/mixed; boundary="B"\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\nAn aggregate report.\r\n${body}--B--\r\n`);
}

describe('import: containers', () => {
  const xml = fixture('google-style.xml');

  it('the same report as .xml, .xml.gz, .zip and .eml (zip, gzip, xml attached) gives identical rows', async () => {
    const zip = zipSync({ 'google.com!example.com!1749513600!1749599999.xml': xml });
    const inputs: [string, Uint8Array][] = [
      ['r.xml', xml],
      ['r.xml.gz', gzipSync(xml)],
      ['r.zip', zip],
      ['zip.eml', eml([{ type: 'application/zip', name: 'r.zip', encoding: 'base64', body: b64(zip) }])],
      ['gz.eml', eml([{ type: 'application/gzip', name: 'r.xml.gz', encoding: 'base64', body: b64(gzipSync(xml)) }])],
      ['xml.eml', eml([{ type: 'text/xml', name: 'r.xml', encoding: 'base64', body: b64(xml) }])],
    ];
    const expected = rowsOf([await readOne('r.xml', xml)]);
    assert.equal(expected.length, 3);
    for (const [name, bytes] of inputs) {
      const r = await read(name, bytes);
      assert.deepEqual(r.errors, [], name);
      assert.deepEqual(rowsOf(r.reports), expected, name);
    }
  });

  it('reads zip entries whose sizes come after the data (data descriptor), deflated or stored', async () => {
    const expected = rowsOf([await readOne('r.xml', xml)]);
    for (const method of [8, 0] as const) {
      const r = await read(`dd${method}.zip`, zipWithDescriptor('report.xml', xml, method));
      assert.deepEqual(r.errors, [], `method ${method}`);
      assert.deepEqual(rowsOf(r.reports), expected, `method ${method}`);
    }
  });

  it('names a report inside an archive or a message by its container and entry', async () => {
    const zip = zipSync({ 'a.xml': xml, 'b.xml.gz': gzipSync(xml) });
    const r = await read('reports.zip', zip);
    assert.deepEqual(r.reports.map((x) => x.file), ['reports.zip › a.xml', 'reports.zip › b.xml.gz']);
    const m = await read('m.eml', eml([{ type: 'application/gzip', name: 'x.xml.gz', encoding: 'base64', body: b64(gzipSync(xml)) }]));
    assert.deepEqual(m.reports.map((x) => x.file), ['m.eml › x.xml.gz']);
  });

  it('reads every report in a zip, and one nested archive level (a .gz inside a .zip)', async () => {
    const other = utf8(reportXml({ reportId: 'second', records: [recordXml({ count: '4' })] }));
    const r = await read('all.zip', zipSync({ 'one.xml': xml, 'inner/two.xml.gz': gzipSync(other), '__MACOSX/._one.xml': new Uint8Array([0, 5, 22, 7]) }));
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.reports.map((x) => x.reportId).sort(), ['4821739465012378451', 'second']);
  });

  it('reads an .eml whose XML attachment is quoted-printable (fixture), and skips parts that are no report', async () => {
    const r = await readOne('qp-attachment.eml', fixture('qp-attachment.eml'));
    assert.equal(r.reportId, 'qp-42');
    assert.equal(r.records[0]!.emails, 11);
    assert.equal(r.records[0]!.dkims[0]!.selector, 'k1');
    const withLogo = eml([
      { type: 'image/png', name: 'logo.png', encoding: 'base64', body: b64(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])) },
      { type: 'application/gzip', name: 'r.xml.gz', encoding: 'base64', body: b64(gzipSync(xml)) },
    ]);
    const m = await read('logo.eml', withLogo);
    assert.deepEqual(m.errors, []);
    assert.equal(m.reports.length, 1);
  });

  it('reads a report that is the whole body of a message, or an inline part without a file name', async () => {
    const head = 'From: reports@receiver.example\r\nSubject: Report\r\nMIME-Version: 1.0\r\n';
    const gzBody = `${head}Content-Type: application/gzip\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(gzipSync(xml))}\r\n`;
    const xmlBody = `${head}Content-Type: text/xml; charset=utf-8\r\n\r\n${new TextDecoder().decode(xml)}\r\n`;
    const inline = `${head}Content-Type: multipart/mixed; boundary=B\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\nhi\r\n--B\r\nContent-Type: text/xml\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${new TextDecoder().decode(xml)}\r\n--B--\r\n`;
    const expected = rowsOf([await readOne('r.xml', xml)]);
    for (const [name, text] of [['gz-body.eml', gzBody], ['xml-body.eml', xmlBody], ['inline.eml', inline]] as const) {
      const r = await read(name, utf8(text));
      assert.deepEqual(r.errors, [], name);
      assert.deepEqual(rowsOf(r.reports), expected, name);
    }
  });

  it('a message without a report is an error of that file', async () => {
    const r = await read('empty.eml', eml([{ type: 'application/pdf', name: 'x.pdf', encoding: 'base64', body: b64(utf8('%PDF-1.4')) }]));
    assert.equal(r.reports.length, 0);
    assert.match(r.errors[0]!.message, /carries no report/);
  });

  it('one file’s broken entry never stops the others', async () => {
    const broken = utf8('<feedback><report_metadata><org_name>x</org_name');
    const r = await read('mixed.zip', zipSync({ 'good.xml': xml, 'bad.xml': broken, 'notes.txt': utf8('just text') }));
    assert.equal(r.reports.length, 1);
    assert.equal(r.reports[0]!.file, 'mixed.zip › good.xml');
    assert.deepEqual(r.errors.map((e) => e.file).sort(), ['mixed.zip › bad.xml', 'mixed.zip › notes.txt']);
  });
});

describe('import: quirks of real reports', () => {
  it('RFC 9990: namespace prefix, np, testing, discovery_method, generator, disposition pass, human_result, extensions', async () => {
    const r = await readOne('rfc9990.xml', fixture('rfc9990.xml'));
    assert.deepEqual(r.policy, { domain: 'example.com', p: 'reject', sp: 'quarantine', np: 'reject', adkim: 's', aspf: 'r', testing: 'n', discovery_method: 'treewalk' });
    assert.equal(r.orgName, 'Example Receiver');
    const [pass, rejected] = r.records;
    assert.equal(pass!.dmarc, 'none');
    assert.equal(pass!.category, 'authorized');
    assert.equal(pass!.to, 'receiver.example');
    assert.equal(pass!.returnPath, 'bounces.example.com');
    assert.deepEqual(pass!.dkims, [{ selector: 's2025', domain: 'example.com', result: 'pass' }]);
    assert.deepEqual((pass!.raw as { extension: unknown }).extension, { arc: 'pass' });
    assert.equal(rejected!.category, 'rejected');
    assert.equal(rejected!.returnPath, 'mail.example.org', 'the only SPF result, though its scope is helo');
  });

  it('the default namespace (xmlns="urn:ietf:params:xml:ns:dmarc-2.0") reads the same as none', async () => {
    const plain = reportXml();
    const ns = plain.replace('<feedback>', '<feedback xmlns="urn:ietf:params:xml:ns:dmarc-2.0">');
    assert.deepEqual(rowsOf([await readOne('a.xml', utf8(ns))]), rowsOf([await readOne('b.xml', utf8(plain))]));
  });

  it('values trimmed and lower-cased: Pass, FAIL, None, trailing tabs, mixed-case domains; HardFail is fail', async () => {
    const r = await readOne('quirks-casing-tabs.xml', fixture('quirks-casing-tabs.xml'));
    assert.deepEqual(r.policy, { domain: 'example.com', adkim: 'r', aspf: 'r', p: 'reject', sp: 'reject', pct: 100, fo: '1' });
    const [a, b] = r.records;
    assert.equal(a!.ipAddress, '192.0.2.44');
    assert.equal(a!.emails, 7);
    assert.equal(a!.dmarc, 'none');
    assert.equal(a!.alignedDkim, 'pass');
    assert.equal(a!.alignedSpf, 'fail');
    assert.equal(a!.visibleFrom, 'example.com');
    assert.equal(a!.returnPath, 'mail.example.com');
    assert.equal(a!.to, 'contoso.example');
    assert.equal(a!.spf, 'none', 'without scopes, the first SPF result');
    assert.deepEqual(a!.dkims, [{ selector: 'Selector1', domain: 'example.com', result: 'pass' }]);
    assert.equal(a!.reporter, 'Enterprise Outlook');
    assert.equal(b!.spf, 'fail');
    assert.deepEqual(b!.dkims, [{ selector: '', domain: '', result: 'fail' }]);
    assert.equal(b!.category, 'rejected');
  });

  it('a report wrapped in a stray xs:schema element is still read', async () => {
    const r = await readOne('xs-schema-wrapped.xml', fixture('xs-schema-wrapped.xml'));
    assert.equal(r.reportId, 'wrapped-7');
    assert.equal(r.records.length, 1);
    assert.equal(r.records[0]!.category, 'partially-authorized');
  });

  it('a one-line report without envelope_from or DKIM (Mail.ru style)', async () => {
    const r = await readOne('mailru-style.xml', fixture('mailru-style.xml'));
    assert.equal(r.records[0]!.reporter, 'Mail.Ru');
    assert.equal(r.records[0]!.returnPath, 'example.com');
    assert.equal(r.records[0]!.spf, 'softfail');
    assert.deepEqual(r.records[0]!.dkims, []);
  });

  it('invalid UTF-8 is decoded with replacement characters, the report kept', async () => {
    const [head, tail] = reportXml({ orgName: 'Bad@@Bytes' }).split('@@') as [string, string];
    const bytes = new Uint8Array([...utf8(head), 0xc3, 0x28, 0xff, ...utf8(tail)]);
    const r = await readOne('bad-utf8.xml', bytes);
    assert.equal(r.orgName, 'Bad\ufffd(\ufffdBytes');
    assert.equal(r.records.length, 1);
  });

  it('an encoding declared in the XML declaration (ISO-8859-1) is honoured', async () => {
    const xml = reportXml({ orgName: 'Caf~~' }).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
    const [head, tail] = xml.split('~~') as [string, string];
    const r = await readOne('latin1.xml', new Uint8Array([...utf8(head), 0xe9, ...utf8(tail)]));
    assert.equal(r.orgName, 'Café');
  });

  it('a UTF-8 byte order mark and CDATA values are read', async () => {
    const xml = reportXml({ orgName: '<![CDATA[Receiver & Co]]>' });
    const r = await readOne('bom.xml', new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(xml)]));
    assert.equal(r.orgName, 'Receiver & Co');
  });

  it('a report cut off mid-way keeps the records read before the break, and says so', async () => {
    const full = reportXml({ records: [recordXml({ ip: '192.0.2.1' }), recordXml({ ip: '192.0.2.2' }), recordXml({ ip: '192.0.2.3' })] });
    const cut = full.slice(0, full.lastIndexOf('<record>') + 20);
    const r = await read('cut.xml', utf8(cut));
    assert.equal(r.reports.length, 1);
    assert.deepEqual(r.reports[0]!.records.map((x) => x.ipAddress), ['192.0.2.1', '192.0.2.2']);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0]!.message, /XML: .*the 2 records read before it are kept/);
  });

  it('a file that is no report says so', async () => {
    const r = await read('notes.xml', utf8('<?xml version="1.0"?><html><body>hello</body></html>'));
    assert.equal(r.reports.length, 0);
    assert.match(r.errors[0]!.message, /no report_metadata/);
    const bin = await read('x.bin', new Uint8Array([0, 1, 2, 3]));
    assert.match(bin.errors[0]!.message, /not a DMARC aggregate report/);
    const empty = await read('e.xml', new Uint8Array(0));
    assert.match(empty.errors[0]!.message, /empty/);
  });
});

describe('import: decoding text piece by piece', () => {
  const text = '<?xml version="1.0"?><a>é € 𝄞 ok</a>';
  const bytes = utf8(text);

  it('a UTF-8 document cut anywhere decodes to the same text', () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (let cut2 = cut; cut2 <= bytes.length; cut2 += 3) {
        const d = decoderFor(bytes);
        const out = d.write(bytes.subarray(0, cut)) + d.write(bytes.subarray(cut, cut2)) + d.write(bytes.subarray(cut2)) + d.end();
        assert.equal(out, text, `cut at ${cut}, ${cut2}`);
      }
    }
  });

  it('a byte order mark is dropped once, even when it arrives a byte at a time', () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]);
    const d = decoderFor(withBom);
    let out = '';
    for (const b of withBom) out += d.write(new Uint8Array([b]));
    assert.equal(out + d.end(), text);
  });

  it('utf8Boundary never splits a character; a truncated one at the very end becomes U+FFFD', () => {
    const euro = utf8('€'); // 3 bytes
    assert.equal(utf8Boundary(new Uint8Array([0x61, ...euro])), 4);
    assert.equal(utf8Boundary(new Uint8Array([0x61, euro[0]!, euro[1]!])), 1);
    assert.equal(utf8Boundary(new Uint8Array([0x61, 0x62])), 2);
    const d = decoderFor(utf8('<a>'));
    assert.equal(d.write(new Uint8Array([0x3c, 0x61, 0x3e, euro[0]!, euro[1]!])) + d.end(), '<a>\ufffd');
  });

  it('a gzip whose inflated pieces cut multi-byte characters reads the same as the plain file', async () => {
    // Varied enough not to compress to one piece: it inflates in several pieces of output.
    // Only 3- and 4-byte characters, so a cut between pieces almost surely falls inside one.
    const org = Array.from({ length: 60_000 }, (_, i) => String.fromCodePoint(i % 2 ? 0x4e00 + ((i * 7919) % 20000) : 0x1f300 + ((i * 31) % 700))).join('');
    const xml = utf8(reportXml({ orgName: org }));
    const gz = gzipSync(xml);
    assert.ok(gz.length > 3 * 16 * 1024, 'several 16 KB pushes');
    const r = await readOne('u.xml.gz', gz);
    assert.equal(r.orgName, org);
  });
});
