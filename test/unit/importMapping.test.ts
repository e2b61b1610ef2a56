// Report XML → DmarcRecord rows: every rule of the README's table "Report files: how a record becomes a row".
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { categoryOf } from '../../src/records';
import { fixture, read, readOne, recordXml, reportXml, utf8 } from './importHelpers';

const one = async (xml: string) => (await readOne('r.xml', utf8(xml)));
const row = async (rec: Parameters<typeof recordXml>[0], report: Parameters<typeof reportXml>[0] = {}) =>
  (await one(reportXml({ ...report, records: [recordXml(rec)] }))).records[0]!;

describe('import: the mapping of a record to a row', () => {
  it('reads the report metadata: id, org, email, begin/end as ISO 8601 UTC, the published policy', async () => {
    const r = await readOne('google-style.xml', fixture('google-style.xml'));
    assert.equal(r.file, 'google-style.xml');
    assert.equal(r.reportId, '4821739465012378451');
    assert.equal(r.orgName, 'google.com');
    assert.equal(r.email, 'noreply-dmarc-support@google.com');
    assert.equal(r.begin, '2025-06-10T00:00:00.000Z');
    assert.equal(r.end, '2025-06-10T23:59:59.000Z');
    assert.deepEqual(r.policy, { domain: 'example.com', adkim: 'r', aspf: 'r', p: 'quarantine', sp: 'quarantine', pct: 100, np: 'reject' });
    assert.equal(r.records.length, 3);
  });

  it('reporter = org_name, else the domain of email', async () => {
    assert.equal((await row({}, { orgName: 'Big Mailbox' })).reporter, 'Big Mailbox');
    assert.equal((await row({}, { orgName: null, email: 'dmarc-reports@Mail.Receiver.example' })).reporter, 'mail.receiver.example');
  });

  it('date = the report begin (UTC), dateMs its epoch ms, reportId set on every row', async () => {
    const r = await one(reportXml({ begin: '1749600000', end: '1749686399', reportId: 'abc', records: [recordXml(), recordXml({ ip: '192.0.2.2' })] }));
    for (const rec of r.records) {
      assert.equal(rec.date, '2025-06-11T00:00:00.000Z');
      assert.equal(rec.dateMs, Date.UTC(2025, 5, 11));
      assert.equal(rec.reportId, 'abc');
    }
    assert.equal(r.end, '2025-06-11T23:59:59.000Z');
  });

  it('ipAddress = source_ip, emails = count, visibleFrom = header_from', async () => {
    const rec = await row({ ip: '2001:DB8::1', count: '1234', identifiers: '<header_from>News.Example.com</header_from>' });
    assert.equal(rec.ipAddress, '2001:db8::1');
    assert.equal(rec.emails, 1234);
    assert.equal(rec.visibleFrom, 'news.example.com');
  });

  it('returnPath = envelope_from, else the SPF domain (scope mfrom preferred)', async () => {
    const withEnvelope = await row({ identifiers: '<header_from>example.com</header_from><envelope_from>bounce.example.com</envelope_from>' });
    assert.equal(withEnvelope.returnPath, 'bounce.example.com');
    const fromSpf = await row({ auth: '<spf><domain>helo.example.net</domain><scope>helo</scope><result>pass</result></spf><spf><domain>mfrom.example.net</domain><scope>mfrom</scope><result>fail</result></spf>' });
    assert.equal(fromSpf.returnPath, 'mfrom.example.net');
    assert.equal(fromSpf.spf, 'fail');
    const firstSpf = await row({ auth: '<spf><domain>first.example.net</domain><result>neutral</result></spf><spf><domain>second.example.net</domain><result>pass</result></spf>' });
    assert.equal(firstSpf.returnPath, 'first.example.net', 'without scopes, the first SPF result');
    assert.equal(firstSpf.spf, 'neutral');
    const none = await row({ auth: '<dkim><domain>example.com</domain><result>pass</result></dkim>' });
    assert.equal(none.returnPath, '');
    assert.equal(none.spf, '', 'no SPF result in the report: the empty result');
  });

  it('to = envelope_to, absent when the report has none', async () => {
    assert.equal((await row({ identifiers: '<envelope_to>Outlook.example</envelope_to><header_from>example.com</header_from>' })).to, 'outlook.example');
    assert.equal('to' in (await row({})), false);
  });

  it('alignedSpf/alignedDkim = policy_evaluated spf/dkim as reported, not recomputed', async () => {
    // auth_results say pass for both; the receiver's evaluation says otherwise and wins.
    const rec = await row({ dkim: 'fail', spf: 'fail', disposition: 'quarantine' });
    assert.equal(rec.alignedSpf, 'fail');
    assert.equal(rec.alignedDkim, 'fail');
    assert.equal(rec.spf, 'pass');
    assert.equal(rec.dkims[0]!.result, 'pass');
  });

  it('dkims = every auth_results/dkim, selector "" when absent', async () => {
    const r = await readOne('google-style.xml', fixture('google-style.xml'));
    assert.deepEqual(r.records[0]!.dkims, [
      { selector: 'google', domain: 'example.com', result: 'pass' },
      { selector: '20230601', domain: 'example-com.20230601.gappssmtp.com', result: 'pass' },
    ]);
    assert.deepEqual(r.records[1]!.dkims, []);
    const noSelector = await row({ auth: '<dkim><domain>example.com</domain><result>fail</result></dkim>' });
    assert.deepEqual(noSelector.dkims, [{ selector: '', domain: 'example.com', result: 'fail' }]);
  });

  it('dmarc = the disposition, with RFC 9990 "pass" read as none', async () => {
    assert.equal((await row({ disposition: 'pass' })).dmarc, 'none');
    assert.equal((await row({ disposition: 'quarantine', dkim: 'fail', spf: 'fail' })).dmarc, 'quarantine');
    assert.equal((await row({ disposition: 'Reject', dkim: 'fail', spf: 'fail' })).dmarc, 'reject');
  });

  it('category by the shared rule: pass → authorized; else reject/quarantine/none', async () => {
    assert.equal((await row({ dkim: 'pass', spf: 'fail', disposition: 'none' })).category, 'authorized');
    assert.equal((await row({ dkim: 'fail', spf: 'pass', disposition: 'none' })).category, 'authorized');
    assert.equal((await row({ dkim: 'fail', spf: 'fail', disposition: 'reject' })).category, 'rejected');
    assert.equal((await row({ dkim: 'fail', spf: 'fail', disposition: 'quarantine' })).category, 'quarantined');
    assert.equal((await row({ dkim: 'fail', spf: 'fail', disposition: 'none' })).category, 'partially-authorized');
  });

  it('categoryOf is the one rule, and the local API server uses it', () => {
    assert.equal(categoryOf('pass', 'fail', 'reject'), 'authorized', 'a pass wins over the disposition');
    assert.equal(categoryOf('fail', '', 'quarantine'), 'quarantined');
    assert.equal(categoryOf('temperror', 'none', 'none'), 'partially-authorized');
    assert.equal(categoryOf('fail', 'fail', 'reject'), 'rejected');
    const data = readFileSync(join(__dirname, '..', '..', 'test', 'server', 'data.ts'), 'utf8');
    assert.match(data, /category = categoryOf\(alignedSpf, alignedDkim, dmarc\)/);
  });

  it('source "Unknown" and rdns [] until reverse DNS names them; raw = the XML record as a plain object', async () => {
    const rec = await row({ extra: '<extension><arc>pass</arc></extension>' });
    assert.equal(rec.source, 'Unknown');
    assert.deepEqual(rec.rdns, []);
    assert.deepEqual(rec.raw, {
      row: { source_ip: '192.0.2.1', count: '1', policy_evaluated: { disposition: 'none', dkim: 'pass', spf: 'pass' } },
      identifiers: { header_from: 'example.com' },
      auth_results: {
        dkim: { domain: 'example.com', selector: 's1', result: 'pass' },
        spf: { domain: 'example.com', scope: 'mfrom', result: 'pass' },
      },
      extension: { arc: 'pass' },
    });
    assert.equal(Object.getPrototypeOf(rec.raw), Object.prototype);
  });

  it('the README documents the mapping, one line per row field', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const at = readme.indexOf('### How a record becomes a row');
    assert.ok(at >= 0, 'the section');
    const section = readme.slice(at, readme.indexOf('\n## ', at + 5));
    for (const field of ['reporter', 'date', 'ipAddress', 'emails', 'visibleFrom', 'returnPath', 'to', 'alignedSpf', 'spf', 'dkims', 'dmarc', 'category', 'source', 'reportId', 'raw']) {
      assert.match(section, new RegExp(`^\\| \`${field}\``, 'm'), field);
    }
  });

  it('email totals per report equal the sum of its count values', async () => {
    for (const name of ['google-style.xml', 'rfc9990.xml', 'quirks-casing-tabs.xml', 'xs-schema-wrapped.xml', 'mailru-style.xml']) {
      const xml = readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'reports', name), 'utf8');
      const counts = [...xml.matchAll(/<(?:\w+:)?count>\s*(\d+)\s*</g)].map((m) => Number(m[1]));
      const { reports } = await read(name, utf8(xml));
      assert.equal(reports.length, 1, name);
      const total = reports[0]!.records.reduce((s, r) => s + r.emails, 0);
      assert.equal(total, counts.reduce((s, n) => s + n, 0), name);
      assert.ok(total > 0, name);
    }
  });
});
