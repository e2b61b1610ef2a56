// Hostile report files: each safety rule of issue 13 as a test. Part of the hostile suite
// (issue 14): each test counts as files tried in its figures.
import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import * as zlib from 'node:zlib';
import { gzipSync, zipSync } from 'fflate';
import { rawZip, read, readOne, recordXml, reportXml, utf8 } from './importHelpers';
import { tried } from '../hostile/figures';

const MB = 1024 * 1024;

/**
 * A raw deflate stream of `mb` MB of spaces (or `fill` bytes) after `prefix`, built from one compressed megabyte
 * repeated (each piece ends on a sync flush, so the pieces concatenate into one valid stream):
 * a few hundred KB that inflate to hundreds of MB, without compressing hundreds of MB here.
 */
function spacesDeflate(prefix: string, mb: number, fill = 0x20): Uint8Array {
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const head = zlib.deflateRawSync(Buffer.from(prefix), flush);
  const piece = zlib.deflateRawSync(Buffer.alloc(MB, fill), flush);
  const end = zlib.deflateRawSync(Buffer.alloc(0));
  return Buffer.concat([head, ...Array<Buffer>(mb).fill(piece), end]);
}

function gzipOf(deflated: Uint8Array): Uint8Array {
  // Header (no name, no mtime) + stream + a trailer the read never reaches (it stops first).
  return Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), deflated, Buffer.alloc(8)]);
}

/** A zip whose one entry claims `size` bytes (no CRC: the read stops at the budget first). */
function zipOf(name: string, deflated: Uint8Array, size: number): Uint8Array {
  return rawZip({ name, body: deflated, method: 8, crc: 0, size, descriptor: false });
}

describe('hostile: import safety (report files)', function () {
  this.timeout(60_000);
  beforeEach(() => tried('files'));

  describe('entities', () => {
    it('entity declarations are refused (no expansion: billion laughs)', async () => {
      const lol = '<!DOCTYPE feedback [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>\n';
      const r = await read('lol.xml', utf8(reportXml({ prolog: lol, orgName: '&lol2;' })));
      assert.equal(r.reports.length, 0);
      assert.match(r.errors[0]!.message, /declares entities or an external DTD/);
    });

    it('external entities are refused and never read', async () => {
      const xxe = '<!DOCTYPE feedback [<!ENTITY xxe SYSTEM "file:///etc/hostname">]>\n';
      const r = await read('xxe.xml', utf8(reportXml({ prolog: xxe, orgName: '&xxe;' })));
      assert.equal(r.reports.length, 0);
      assert.match(r.errors[0]!.message, /refused/);
      const external = await read('dtd.xml', utf8(reportXml({ prolog: '<!DOCTYPE feedback SYSTEM "http://127.0.0.1:9/x.dtd">\n' })));
      assert.equal(external.reports.length, 0);
      assert.match(external.errors[0]!.message, /refused/);
    });

    it('an undeclared entity is an XML error, not an expansion; the five predefined ones read', async () => {
      const r = await read('u.xml', utf8(reportXml({ orgName: '&xxe;' })));
      assert.equal(r.reports.length, 0);
      assert.match(r.errors[0]!.message, /XML: .*undefined entity/);
      const ok = await readOne('p.xml', utf8(reportXml({ orgName: 'A &amp; B &lt;&gt; &#233;' })));
      assert.equal(ok.orgName, 'A & B <> é');
    });

    it('a plain DOCTYPE without declarations is tolerated', async () => {
      const r = await readOne('d.xml', utf8(reportXml({ prolog: '<!DOCTYPE feedback>\n' })));
      assert.equal(r.records.length, 1);
    });
  });

  describe('compression bombs', () => {
    it('a gzip that inflates past 256 MB stops with a clear error', async () => {
      const bomb = gzipOf(spacesDeflate('<?xml version="1.0"?><feedback>', 257));
      assert.ok(bomb.length < 2 * MB);
      const r = await read('bomb.xml.gz', bomb);
      assert.equal(r.reports.length, 0);
      assert.equal(r.errors.length, 1);
      assert.match(r.errors[0]!.message, /inflates to more than 256 MB; reading stopped/);
    });

    it('a zip that inflates past 256 MB stops with a clear error (binary content: counted all the same)', async () => {
      const r = await read('bomb.zip', zipOf('report.xml', spacesDeflate('', 300, 0), 300 * MB));
      assert.equal(r.reports.length, 0);
      assert.equal(r.errors.length, 1);
      assert.equal(r.errors[0]!.file, 'bomb.zip › report.xml');
      assert.match(r.errors[0]!.message, /inflates to more than 256 MB/);
    });

    it('the budget is for the whole file: many entries together cannot pass it', async () => {
      const entry = gzipSync(utf8(reportXml({ records: Array(200).fill(recordXml()) })));
      const files: Record<string, Uint8Array> = {};
      for (let i = 0; i < 40; i++) files[`r${i}.xml.gz`] = entry;
      const whole = await read('many.zip', zipSync(files));
      assert.deepEqual(whole.errors, []);
      assert.equal(whole.reports.length, 40);
      const inflatedPerEntry = utf8(reportXml({ records: Array(200).fill(recordXml()) })).length;
      const r = await read('many.zip', zipSync(files), { limits: { maxInflatedBytes: inflatedPerEntry * 10 } });
      assert.ok(r.reports.length < 40 && r.reports.length >= 9, `${r.reports.length} reports before the budget ran out`);
      assert.ok(r.errors.some((e) => /inflates to more than/.test(e.message)));
    });

    it('no ratio limit: a repetitive real-shaped report compressed over 100× reads whole', async () => {
      const records = Array.from({ length: 6000 }, () => recordXml({ ip: '192.0.2.7', count: '3' }));
      const xml = utf8(reportXml({ records }));
      const gz = gzipSync(xml, { level: 9 });
      assert.ok(xml.length / gz.length > 100, `ratio ${(xml.length / gz.length).toFixed(0)}×`);
      const r = await readOne('big.xml.gz', gz);
      assert.equal(r.records.length, 6000);
      assert.equal(r.records.reduce((s, x) => s + x.emails, 0), 18000);
    });
  });

  describe('archives', () => {
    it('zip entries named with .. or an absolute path are only read, never written', async () => {
      const xml = utf8(reportXml());
      const names = ['../../import-slip-test.xml', '/tmp/import-slip-abs.xml', '..\\..\\import-slip-win.xml'];
      const r = await read('slip.zip', zipSync(Object.fromEntries(names.map((n) => [n, xml]))));
      assert.deepEqual(r.errors, []);
      assert.deepEqual(r.reports.map((x) => x.file).sort(), names.map((n) => `slip.zip › ${n}`).sort());
      for (const p of [resolve('../../import-slip-test.xml'), '/tmp/import-slip-abs.xml', resolve('import-slip-test.xml')]) assert.equal(existsSync(p), false, p);
    });

    it('nested archives: one level is read, deeper is refused with the rest kept', async () => {
      const xml = utf8(reportXml());
      const inner = zipSync({ 'inner.xml': xml });
      const twice = zipSync({ 'inner.zip': inner, 'plain.xml': xml });
      const ok = await read('outer.zip', twice);
      assert.deepEqual(ok.errors, []);
      assert.equal(ok.reports.length, 2);
      const thrice = zipSync({ 'middle.zip': zipSync({ 'inner.zip': inner, 'x.xml.gz': gzipSync(xml) }), 'plain.xml': xml });
      const r = await read('deep.zip', thrice);
      assert.deepEqual(r.reports.map((x) => x.file), ['deep.zip › plain.xml']);
      assert.deepEqual(r.errors.map((e) => e.file).sort(), ['deep.zip › middle.zip › inner.zip', 'deep.zip › middle.zip › x.xml.gz']);
      for (const e of r.errors) assert.match(e.message, /only one level of nesting/);
      const gz3 = await read('x.gz', gzipSync(gzipSync(gzipSync(xml))));
      assert.equal(gz3.reports.length, 0);
      assert.match(gz3.errors[0]!.message, /only one level of nesting/);
    });

    it('a corrupt gzip or zip is an error of that file', async () => {
      const gz = gzipSync(utf8(reportXml()));
      const r = await read('broken.gz', gz.subarray(0, 20));
      assert.equal(r.reports.length, 0);
      assert.equal(r.errors.length, 1);
      const z = await read('broken.zip', new Uint8Array([0x50, 0x4b, 3, 4, 1, 2, 3]));
      assert.equal(z.reports.length, 0);
      assert.ok(z.errors.length >= 1);
    });
  });

  describe('one record’s trouble stays with that record', () => {
    const wrap = (bad: string) => reportXml({ records: [recordXml({ ip: '192.0.2.1' }), bad, recordXml({ ip: '192.0.2.3', count: '5' })] });

    it('10,000-deep nesting in a record: that record is an error, the rest kept', async () => {
      const deep = `<record>${'<a>'.repeat(10_000)}x${'</a>'.repeat(10_000)}</record>`;
      const r = await read('deep.xml', utf8(wrap(deep)));
      assert.deepEqual(r.reports[0]!.records.map((x) => x.ipAddress), ['192.0.2.1', '192.0.2.3']);
      assert.equal(r.errors.length, 1);
      assert.match(r.errors[0]!.message, /record 2 left out: elements nested more than 64 deep/);
    });

    it('10,000-deep nesting around the report refuses that file only', async () => {
      const xml = `<feedback>${'<w>'.repeat(10_000)}${'</w>'.repeat(10_000)}</feedback>`;
      const r = await read('wrapped.zip', zipSync({ 'a.xml': utf8(xml), 'b.xml': utf8(reportXml()) }));
      assert.deepEqual(r.reports.map((x) => x.file), ['wrapped.zip › b.xml']);
      assert.match(r.errors[0]!.message, /nested more than 256 deep/);
    });

    it('a 10 MB text node: that record is an error, the rest kept', async () => {
      const huge = recordXml({ ip: 'x'.repeat(10 * MB) });
      const r = await read('text.xml', utf8(wrap(huge)));
      assert.deepEqual(r.reports[0]!.records.map((x) => x.ipAddress), ['192.0.2.1', '192.0.2.3']);
      assert.match(r.errors[0]!.message, /record 2 left out: a text node longer than 1048576 characters/);
    });

    for (const count of ['-3', '1.5', '9007199254740992', '1e3', 'many', '', '+4']) {
      it(`count "${count}" is an error for that record, the rest kept`, async () => {
        const r = await read('count.xml', utf8(wrap(recordXml({ ip: '192.0.2.2', count }))));
        assert.deepEqual(r.reports[0]!.records.map((x) => x.ipAddress), ['192.0.2.1', '192.0.2.3']);
        assert.equal(r.errors.length, 1);
        assert.match(r.errors[0]!.message, /record 2 left out: count .* is not a whole number from 0 to 2\^53 − 1/);
      });
    }

    it('count 2^53 − 1 and 0 are accepted', async () => {
      const r = await readOne('max.xml', utf8(reportXml({ records: [recordXml({ count: '9007199254740991' }), recordXml({ count: '0' })] })));
      assert.deepEqual(r.records.map((x) => x.emails), [Number.MAX_SAFE_INTEGER, 0]);
    });

    it('a record without source_ip is an error; many bad records are listed up to a cap', async () => {
      const bad = Array.from({ length: 30 }, () => recordXml({ ip: '' }));
      const r = await read('bad.xml', utf8(reportXml({ records: [recordXml(), ...bad] })));
      assert.equal(r.reports[0]!.records.length, 1);
      assert.equal(r.errors.length, 21);
      assert.match(r.errors[0]!.message, /record 2 left out: no source_ip/);
      assert.equal(r.errors[20]!.message, '10 more records left out');
    });

    it('element names like __proto__ and constructor stay plain data', async () => {
      const rec = recordXml({ extra: '<__proto__><polluted>yes</polluted></__proto__><constructor>c</constructor><constructor>d</constructor>' });
      const r = await readOne('proto.xml', utf8(reportXml({ records: [rec] })));
      const raw = r.records[0]!.raw as Record<string, unknown>;
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal(Object.getPrototypeOf(raw), Object.prototype);
      assert.deepEqual(Object.getOwnPropertyDescriptor(raw, '__proto__')?.value, { polluted: 'yes' });
      assert.deepEqual(raw.constructor, ['c', 'd']);
    });
  });
});
