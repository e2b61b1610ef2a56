// buildReport on hand-made blocks (src/import/reportMap.ts): the report-level rules — which block
// is the metadata, the date range, the reporter, the policy, and the errors it lists — exactly.
import { strict as assert } from 'node:assert';
import { buildReport, domainOfEmail, parseCount, RecordFault } from '../../src/import/reportMap';
import type { XmlBlock, XmlObject } from '../../src/import/xmlReader';

const META: XmlObject = { org_name: 'Org', email: 'dmarc@org.example', report_id: 'r1', date_range: { begin: '1749513600', end: '1749599999' } };
const RECORD: XmlObject = { row: { source_ip: '192.0.2.1', count: '1', policy_evaluated: { disposition: 'none', dkim: 'pass', spf: 'pass' } }, identifiers: { header_from: 'example.com' } };

const meta = (m: Partial<Record<keyof typeof META, XmlObject[string]>> = {}): XmlBlock => ({ name: 'report_metadata', value: { ...META, ...m } as XmlObject });
const rec = (value: XmlObject = RECORD): XmlBlock => ({ name: 'record', value });
const refusedRecord: XmlBlock = { name: 'record', value: undefined, error: 'too deep' };

describe('import: building a report from its blocks', () => {
  it('the metadata block is found wherever it is; without one, or refused, there is no report', () => {
    const policy: XmlBlock = { name: 'policy_published', value: { domain: 'example.com', p: 'reject' } };
    const built = buildReport('f.xml', [policy, rec(), meta()], 20);
    assert.deepEqual(built.errors, []);
    assert.equal(built.report?.reportId, 'r1');
    assert.deepEqual(built.report?.policy, { domain: 'example.com', p: 'reject' });
    assert.equal(built.report?.records.length, 1);
    assert.deepEqual(buildReport('f.xml', [policy, rec()], 20), { report: undefined, errors: [{ file: 'f.xml', message: 'not a DMARC aggregate report: no report_metadata' }] });
    assert.deepEqual(buildReport('f.xml', [{ name: 'report_metadata', value: undefined, error: 'elements nested more than 64 deep' }, rec()], 20), {
      report: undefined,
      errors: [{ file: 'f.xml', message: 'report_metadata refused: elements nested more than 64 deep' }],
    });
  });

  it('begin and end are whole seconds (a fraction is dropped); end defaults to begin', () => {
    const r = buildReport('f.xml', [meta({ date_range: { begin: '1749513600.75', end: '1749599999.' } })], 20).report!;
    assert.equal(r.begin, '2025-06-10T00:00:00.000Z');
    assert.equal(r.end, '2025-06-10T23:59:59.000Z');
    const noEnd = buildReport('f.xml', [meta({ date_range: { begin: ' 1749513600 ', end: 'soon' } })], 20).report!;
    assert.equal(noEnd.end, '2025-06-10T00:00:00.000Z');
  });

  it('a begin that is not seconds in digits is an error of the file, quoting 40 characters of it', () => {
    for (const begin of ['x1749513600', '1749513600x', '1749513600.5x', '-1', '1e9', '1234567890123', '']) {
      assert.deepEqual(buildReport('f.xml', [meta({ date_range: { begin } }), rec()], 20), {
        report: undefined,
        errors: [{ file: 'f.xml', message: `date_range begin "${begin}" is not a time in seconds` }],
      }, begin);
    }
    const long = '9'.repeat(50);
    assert.equal(buildReport('f.xml', [meta({ date_range: { begin: long } })], 20).errors[0]!.message, `date_range begin "${'9'.repeat(40)}" is not a time in seconds`);
  });

  it('text values are the first of repeats, trimmed; an element with children is no text', () => {
    const r = buildReport('f.xml', [meta({ org_name: ['  First ', 'Second'], report_id: { nested: 'x' } })], 20).report!;
    assert.equal(r.orgName, 'First');
    assert.equal(r.reportId, '');
  });

  it('the reporter is org_name, else the domain of the email address', () => {
    const rows = (m: Parameters<typeof meta>[0]) => buildReport('f.xml', [meta(m), rec()], 20).report!.records[0]!.reporter;
    assert.equal(rows({}), 'Org');
    assert.equal(rows({ org_name: '', email: 'Reports <dmarc@Mail.Example>' }), 'mail.example');
    assert.equal(rows({ org_name: '', email: 'no address' }), '');
  });

  it('domainOfEmail: after the last @, up to a space or >, lower-cased', () => {
    assert.equal(domainOfEmail('a@b@Example.COM'), 'example.com');
    assert.equal(domainOfEmail('@example.com'), 'example.com');
    assert.equal(domainOfEmail('<dmarc@example.com>'), 'example.com');
    assert.equal(domainOfEmail('dmarc@example.com> (reports)'), 'example.com');
    assert.equal(domainOfEmail('dmarc@example.com x'), 'example.com');
    assert.equal(domainOfEmail('dmarc@example.com'), 'example.com');
    assert.equal(domainOfEmail('example.com'), '');
  });

  it('the policy: its texts lower-cased when present, pct only when 0–999 in digits', () => {
    const policy = (p: XmlObject) => buildReport('f.xml', [meta(), { name: 'policy_published', value: p }], 20).report!.policy;
    assert.deepEqual(policy({ domain: 'Example.COM', p: 'Reject', sp: 'NONE', np: 'quarantine', adkim: 'S', aspf: 'r', fo: '1', testing: 'Y', discovery_method: 'PSL', pct: '50' }), {
      domain: 'example.com', p: 'reject', sp: 'none', np: 'quarantine', adkim: 's', aspf: 'r', fo: '1', testing: 'y', discovery_method: 'psl', pct: 50,
    });
    for (const pct of ['100x', 'x100', '1000', '', '5.5']) assert.deepEqual(policy({ domain: 'd', pct }), { domain: 'd' }, pct);
    assert.deepEqual(buildReport('f.xml', [meta()], 20).report!.policy, { domain: '' });
  });

  it('a refused policy block is an error beside the report', () => {
    const built = buildReport('f.xml', [meta(), { name: 'policy_published', value: undefined, error: 'a text node longer than 5 characters' }, rec()], 20);
    assert.deepEqual(built.errors, [{ file: 'f.xml', message: 'policy_published refused: a text node longer than 5 characters' }]);
    assert.deepEqual(built.report!.policy, { domain: '' });
    assert.equal(built.report!.records.length, 1);
  });

  it('records left out are listed by their number up to the cap, then counted', () => {
    const bad = rec({ row: { count: '1' } });
    const atCap = buildReport('f.xml', [meta(), refusedRecord, rec(), bad], 2);
    assert.deepEqual(atCap.errors, [
      { file: 'f.xml', message: 'record 1 left out: too deep' },
      { file: 'f.xml', message: 'record 3 left out: no source_ip' },
    ]);
    assert.equal(atCap.report!.records.length, 1);
    const over = buildReport('f.xml', [meta(), bad, bad, bad, bad, rec()], 2);
    assert.deepEqual(over.errors.map((e) => e.message), ['record 1 left out: no source_ip', 'record 2 left out: no source_ip', '2 more records left out']);
  });
});

describe('import: a record’s count', () => {
  it('whole numbers in digits, 0 to 2^53 − 1, trimmed', () => {
    assert.equal(parseCount('0'), 0);
    assert.equal(parseCount(' 42 '), 42);
    assert.equal(parseCount(String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
  });

  it('anything else is a RecordFault quoting at most 40 characters', () => {
    for (const s of ['', '-1', '1.5', '1e3', '0x10', String(Number.MAX_SAFE_INTEGER + 1), '12345678901234567']) {
      assert.throws(() => parseCount(s), (e: unknown) => e instanceof RecordFault && e.message === `count "${s.trim()}" is not a whole number from 0 to 2^53 − 1`, s);
    }
    const long = 'x'.repeat(60);
    assert.throws(() => parseCount(long), (e: unknown) => e instanceof RecordFault && e.message === `count "${'x'.repeat(40)}" is not a whole number from 0 to 2^53 − 1`);
  });
});
