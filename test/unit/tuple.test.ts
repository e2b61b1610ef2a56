import { strict as assert } from 'node:assert';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord } from '../../src/api/types';
import { dkimAlignment, domainsAlign, organizationalDomain } from '../../src/records/alignment';
import { extraFields, toTuple } from '../../src/records/tuple';
import { T } from '../../src/shared/columns';

function record(wire: Record<string, unknown>): DmarcRecord {
  const r = normaliseRow(wire);
  if (!('record' in r)) throw new Error(r.reason);
  return r.record;
}

const WIRE = {
  source: 'Mailchimp',
  reporter: 'google.com',
  visibleFrom: 'news.example.co.uk',
  returnPath: 'bounce.mcsv.net',
  to: 'gmail.com',
  ipAddress: '198.2.180.4',
  ipCountryCode: 'US',
  rdns: ['mail4.atl11.mcsv.net', 'second.example'],
  emails: 41,
  category: 'authorized',
  date: '2026-11-16T17:20:00.000Z',
  dmarc: 'none',
  alignedSpf: 'fail',
  alignedDkim: 'pass',
  spf: 'pass',
  dkims: [
    { selector: 'k2', domain: 'mcsv.net', result: 'pass' },
    { selector: 'k3', domain: 'Mail.Example.co.uk.', result: 'fail' },
  ],
  from: 'news.example.co.uk',
  reportId: '1234567890',
};

describe('the row tuple sent to the records panel', () => {
  it('puts every field at its position in T, DKIM signatures as [domain, selector, result]', () => {
    const t = toTuple(record(WIRE));
    const expected: Record<keyof typeof T, unknown> = {
      source: 'Mailchimp', reporter: 'google.com', visibleFrom: 'news.example.co.uk', returnPath: 'bounce.mcsv.net', to: 'gmail.com',
      ipAddress: '198.2.180.4', ipCountryCode: 'US', rdns: ['mail4.atl11.mcsv.net', 'second.example'], emails: 41, category: 'authorized',
      date: '2026-11-16T17:20:00.000Z', dmarc: 'none', alignedSpf: 'fail', alignedDkim: 'pass', spf: 'pass',
      dkims: [['mcsv.net', 'k2', 'pass'], ['Mail.Example.co.uk.', 'k3', 'fail']],
      dkimAligned: 'present, failed',
      extras: ['from', 'news.example.co.uk', 'reportId', '1234567890'],
      spfReason: 'spf-unaligned-pass', dkimReason: 'dkim-aligned-pass', rowClass: 'compliant', override: '',
    };
    assert.equal(t.length, Object.keys(T).length);
    for (const [field, pos] of Object.entries(T)) assert.deepEqual(t[pos], expected[field as keyof typeof T], field);
  });

  it('writes absent optional fields as empty text, no signature as an empty alignment', () => {
    const { to: _to, ipCountryCode: _cc, from: _from, reportId: _id, ...rest } = WIRE;
    const t = toTuple(record({ ...rest, dkims: [] }));
    assert.equal(t[T.to], '');
    assert.equal(t[T.ipCountryCode], '');
    assert.deepEqual(t[T.dkims], []);
    assert.equal(t[T.dkimAligned], '');
    assert.deepEqual(t[T.extras], []);
  });

  it('keeps extra fields of any type as text, cut at 2,000 characters, documented fields never among them', () => {
    const extras = extraFields({ ...WIRE, nested: { a: [1, null] }, flag: true, nothing: null, long: 'x'.repeat(5000), __proto__: 'p' } as Record<string, unknown>);
    const pairs = new Map<string, string>();
    for (let k = 0; k < extras.length; k += 2) pairs.set(extras[k]!, extras[k + 1]!);
    assert.equal(pairs.get('nested'), '{"a":[1,null]}');
    assert.equal(pairs.get('flag'), 'true');
    assert.equal(pairs.get('nothing'), '');
    assert.equal(pairs.get('long')!.length, 2000);
    const named = extraFields({ ['k'.repeat(300)]: 'v' });
    assert.deepEqual(named, ['k'.repeat(200), 'v'], 'a field name is cut at 200 characters');
    for (const known of ['source', 'emails', 'dkims', 'rdns', 'date']) assert.ok(!pairs.has(known), known);
  });
});

describe('the receiver\u2019s override reasons of a report file\u2019s row in the tuple', () => {
  const reportRow = (reason: unknown): DmarcRecord => ({
    ...record({ ...WIRE, alignedSpf: 'fail', alignedDkim: 'fail', spf: 'fail', dkims: [] }),
    raw: { row: { source_ip: '198.2.180.4', policy_evaluated: { disposition: 'none', reason } } },
  });

  it('lists them as the report does, each once, lower case; the class follows a forwarding one', () => {
    const t = toTuple(reportRow([{ type: 'Forwarded', comment: 'x' }, { type: 'local_policy' }, { type: 'forwarded' }]));
    assert.equal(t[T.override], 'forwarded, local_policy');
    assert.equal(t[T.rowClass], 'forwarded');
    const one = toTuple(reportRow({ type: 'sampled_out' }));
    assert.equal(one[T.override], 'sampled_out');
    assert.equal(one[T.rowClass], 'unauthenticated');
  });

  it('none for a report row without a reason, and for API rows (they carry none)', () => {
    assert.equal(toTuple(reportRow(undefined))[T.override], '');
    assert.equal(toTuple(record(WIRE))[T.override], '');
  });
});

describe('DKIM alignment with Header From (relaxed)', () => {
  it('compares organizational domains by the public suffix list', () => {
    assert.equal(organizationalDomain('mail.example.co.uk'), 'example.co.uk');
    assert.equal(organizationalDomain('Mail.Example.COM.'), 'example.com');
    assert.ok(domainsAlign('mail.example.co.uk', 'news.example.co.uk'));
    assert.ok(!domainsAlign('a.co.uk', 'b.co.uk'), 'two registrable domains under one public suffix');
    assert.ok(!domainsAlign('mcsv.net', 'example.com'));
    assert.ok(!domainsAlign('', 'example.com'));
    assert.ok(!domainsAlign('example.com', '  '));
  });

  // The lookup cache is keyed by the text as sent and lives as long as the process (across test
  // runs too): each check here asks with a text not asked before, so the answer is computed.
  let spaces = 0;
  const unseen = (d: string) => `${d}${' '.repeat(++spaces)}`;

  it('normalises case, surrounding spaces and one trailing dot; ICANN suffixes only', () => {
    assert.equal(organizationalDomain(unseen(' Mail.Example.COM.')), 'example.com');
    assert.equal(organizationalDomain(unseen('Example.COM.')), 'example.com');
    assert.equal(organizationalDomain(unseen('EXAMPLE.co.UK')), 'example.co.uk');
    // blogspot.com is on the list's private section, which RFC 7489's organizational domain ignores.
    assert.equal(organizationalDomain(unseen('news.a.blogspot.com')), 'blogspot.com');
    assert.ok(domainsAlign(unseen('x.a.blogspot.com'), unseen('y.b.blogspot.com')));
    assert.equal(organizationalDomain(unseen('localhost')), 'localhost', 'no organizational domain: the name itself');
  });

  it('an empty or blank domain aligns with nothing, not even another empty one', () => {
    for (const [a, b] of [['', ''], [' ', '  '], ['', 'example.com'], ['example.com', ' ']]) assert.equal(domainsAlign(unseen(a!), unseen(b!)), false, `"${a}" "${b}"`);
  });

  it('is yes when any signature aligns, no when none does, empty without signatures', () => {
    const sig = (domain: string, result: string) => ({ domain, result });
    assert.equal(dkimAlignment('example.com', [sig('mcsv.net', 'pass'), sig('bounce.example.com', 'pass')]), 'passed');
    assert.equal(dkimAlignment('example.com', [sig('mcsv.net', 'pass'), sig('bounce.example.com', ' PASS ')]), 'passed');
    // An aligned signature that failed is not "aligned: yes" (issue 43: Forwarder's d=acme.com with result policy).
    assert.equal(dkimAlignment('acme.com', [sig('acme.com', 'policy')]), 'present, failed');
    assert.equal(dkimAlignment('example.com', [sig('example.com', 'fail'), sig('mcsv.net', 'pass')]), 'present, failed');
    assert.equal(dkimAlignment('example.com', [sig('example.com', 'fail'), sig('mail.example.com', 'pass')]), 'passed');
    assert.equal(dkimAlignment('example.com', [sig('mcsv.net', 'pass')]), 'none aligned');
    assert.equal(dkimAlignment('example.com', []), '');
  });
});
