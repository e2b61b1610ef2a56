// The advice rules (src/advice) on hand-made cases with exact expected values: every SPF reason,
// every DKIM reason and every class, with the inputs that trip a careless reading (several DKIM
// signatures, `temperr`, empty results, strict alignment, IDN, trailing dots, case, public
// suffixes, values outside the documented sets); then a group's verdict, the fix in words,
// readiness for enforcement, the override reasons of a report file's row and a period's health.
import { strict as assert } from 'node:assert';
import { dk, opts, rec } from './adviceHelpers';
import type { DmarcRecord } from '../../src/api/types';
import { fixText, type FixFacts } from '../../src/advice/fix';
import { periodHealth, type Published } from '../../src/advice/health';
import { overridesOf } from '../../src/advice/overrides';
import { readiness, type ReadinessInput } from '../../src/advice/readiness';
import { adviceOf, aligns, dkimReason, isRelay, normalDomain, rowClass, spfReason, type AdviceRow, type RowContext } from '../../src/advice/reasons';
import { CLASS_INDEX, emptyMix, failingEmails, verdictOf } from '../../src/advice/verdict';
import { DEFAULT_THRESHOLDS, DKIM_REASONS, ROW_CLASSES, SPF_REASONS, termOf } from '../../src/advice/vocabulary';

type Sig = { domain: string; result: string };

/** A row of acme.com that passes nothing, from a server nobody knows, with the fields given. */
function row(over: Partial<Omit<AdviceRow, 'dkims'>> & { dkims?: Sig[] } = {}): AdviceRow {
  return {
    source: 'Unknown',
    visibleFrom: 'acme.com',
    returnPath: 'acme.com',
    rdns: [],
    spf: 'fail',
    alignedSpf: 'fail',
    alignedDkim: 'fail',
    dkims: [],
    ...over,
  };
}

const sig = (domain: string, result: string): Sig => ({ domain, result });

interface Case<T> {
  name: string;
  row: AdviceRow;
  ctx?: RowContext;
  want: T;
}

describe('advice: SPF reasons', () => {
  const cases: Case<string>[] = [
    { name: 'aligned SPF pass', row: row({ spf: 'pass', alignedSpf: 'pass' }), want: 'spf-aligned-pass' },
    { name: 'aligned SPF pass wins over an SPF result that disagrees', row: row({ spf: 'fail', alignedSpf: 'pass' }), want: 'spf-aligned-pass' },
    { name: 'SPF pass, Return-Path of the sender', row: row({ spf: 'pass', returnPath: 'bounce.esp.net' }), want: 'spf-unaligned-pass' },
    { name: 'SPF pass, aligned SPF empty', row: row({ spf: 'pass', alignedSpf: '' }), want: 'spf-unaligned-pass' },
    { name: 'SPF pass, aligned SPF an unknown value', row: row({ spf: 'pass', alignedSpf: 'weird' }), want: 'spf-unaligned-pass' },
    { name: 'fail, Return-Path under Header From', row: row({ spf: 'fail', returnPath: 'bounce.acme.com' }), want: 'spf-not-allowed-own' },
    { name: 'softfail, Return-Path upper case with a trailing dot', row: row({ spf: 'softfail', returnPath: 'ACME.COM.' }), want: 'spf-not-allowed-own' },
    { name: 'neutral, Return-Path the same name', row: row({ spf: 'neutral' }), want: 'spf-not-allowed-own' },
    { name: 'fail, Header From upper case with a trailing dot', row: row({ spf: 'fail', visibleFrom: 'Acme.Com.', returnPath: 'mail.acme.com' }), want: 'spf-not-allowed-own' },
    { name: 'neutral, Return-Path another domain', row: row({ spf: 'neutral', returnPath: 'other.net' }), want: 'spf-not-allowed-other' },
    { name: 'fail, no Return-Path', row: row({ spf: 'fail', returnPath: '' }), want: 'spf-not-allowed-other' },
    { name: 'fail, no Header From', row: row({ spf: 'fail', visibleFrom: '' }), want: 'spf-not-allowed-other' },
    { name: 'fail, Return-Path a look-alike (acme.com.evil.net)', row: row({ spf: 'fail', returnPath: 'acme.com.evil.net' }), want: 'spf-not-allowed-other' },
    { name: 'softfail, a.co.uk and b.co.uk (public suffix) do not align', row: row({ spf: 'softfail', visibleFrom: 'a.co.uk', returnPath: 'b.co.uk' }), want: 'spf-not-allowed-other' },
    { name: 'softfail, mail.a.co.uk aligns with a.co.uk', row: row({ spf: 'softfail', visibleFrom: 'a.co.uk', returnPath: 'mail.a.co.uk' }), want: 'spf-not-allowed-own' },
    { name: 'fail, IDN Header From and its A-label Return-Path', row: row({ spf: 'fail', visibleFrom: 'bücher.example', returnPath: 'xn--bcher-kva.example' }), want: 'spf-not-allowed-own' },
    { name: 'fail, A-label Header From and an upper-case U-label Return-Path', row: row({ spf: 'fail', visibleFrom: 'xn--bcher-kva.example', returnPath: 'BÜCHER.example.' }), want: 'spf-not-allowed-own' },
    { name: 'fail, aspf=s: a subdomain is another domain', row: row({ spf: 'fail', returnPath: 'bounce.acme.com' }), ctx: { aspf: 's' }, want: 'spf-not-allowed-other' },
    { name: 'fail, aspf=s: the same name in another case is own', row: row({ spf: 'fail', returnPath: 'ACME.com.' }), ctx: { aspf: 's' }, want: 'spf-not-allowed-own' },
    { name: 'fail, aspf=r: a subdomain is own', row: row({ spf: 'fail', returnPath: 'bounce.acme.com' }), ctx: { aspf: 'r' }, want: 'spf-not-allowed-own' },
    { name: 'fail, adkim=s alone does not make SPF strict', row: row({ spf: 'fail', returnPath: 'bounce.acme.com' }), ctx: { adkim: 's' }, want: 'spf-not-allowed-own' },
    { name: 'none', row: row({ spf: 'none' }), want: 'spf-none' },
    { name: 'temperror', row: row({ spf: 'temperror' }), want: 'spf-error' },
    { name: 'temperr (the API keeps this spelling)', row: row({ spf: 'temperr' }), want: 'spf-error' },
    { name: 'permerror', row: row({ spf: 'permerror' }), want: 'spf-error' },
    ...['policy', 'skipped', 'unknown', '', 'weird', '__proto__', 'constructor', 'PASS', 'Fail', ' pass'].map((v) => ({
      name: `${JSON.stringify(v)} is unknown`,
      row: row({ spf: v }),
      want: 'spf-unknown',
    })),
  ];
  for (const c of cases) it(c.name, () => assert.equal(spfReason(c.row, c.ctx), c.want));

  it('every SPF reason has a case', () => {
    assert.deepEqual(SPF_REASONS.filter((r) => !cases.some((c) => c.want === r)), []);
  });
});

describe('advice: DKIM reasons', () => {
  const cases: Case<string>[] = [
    { name: 'aligned DKIM pass', row: row({ alignedDkim: 'pass', dkims: [sig('acme.com', 'pass')] }), want: 'dkim-aligned-pass' },
    { name: 'aligned DKIM pass wins over failing signatures', row: row({ alignedDkim: 'pass', dkims: [sig('acme.com', 'fail')] }), want: 'dkim-aligned-pass' },
    { name: 'aligned DKIM pass without signatures', row: row({ alignedDkim: 'pass' }), want: 'dkim-aligned-pass' },
    { name: 'an aligned signature fails', row: row({ dkims: [sig('acme.com', 'fail')] }), want: 'dkim-aligned-fails' },
    { name: 'aligned fails and another domain passes', row: row({ dkims: [sig('esp.net', 'pass'), sig('acme.com', 'fail')] }), want: 'dkim-aligned-fails' },
    { name: 'aligned neutral', row: row({ dkims: [sig('mail.acme.com', 'neutral')] }), want: 'dkim-aligned-fails' },
    { name: 'aligned policy', row: row({ dkims: [sig('acme.com', 'policy')] }), want: 'dkim-aligned-fails' },
    { name: 'aligned none', row: row({ dkims: [sig('acme.com', 'none')] }), want: 'dkim-aligned-fails' },
    { name: 'aligned fail after an aligned temperror', row: row({ dkims: [sig('acme.com', 'temperror'), sig('acme.com', 'fail')] }), want: 'dkim-aligned-fails' },
    { name: 'aligned upper case with a trailing dot', row: row({ dkims: [sig('ACME.COM.', 'fail')] }), want: 'dkim-aligned-fails' },
    { name: 'IDN: U-label d= against an A-label Header From', row: row({ visibleFrom: 'xn--bcher-kva.example', dkims: [sig('bücher.example', 'fail')] }), want: 'dkim-aligned-fails' },
    { name: 'IDN: A-label d= against a U-label Header From, strict', row: row({ visibleFrom: 'bücher.example', dkims: [sig('xn--bcher-kva.example', 'fail')] }), ctx: { adkim: 's' }, want: 'dkim-aligned-fails' },
    { name: 'relaxed: d=mail.acme.com aligns', row: row({ dkims: [sig('mail.acme.com', 'fail')] }), ctx: { adkim: 'r' }, want: 'dkim-aligned-fails' },
    { name: 'strict: d=mail.acme.com does not align with acme.com', row: row({ dkims: [sig('mail.acme.com', 'fail')] }), ctx: { adkim: 's' }, want: 'dkim-other-fails' },
    { name: 'strict: d=Acme.Com. aligns', row: row({ dkims: [sig('Acme.Com.', 'fail')] }), ctx: { adkim: 's' }, want: 'dkim-aligned-fails' },
    { name: 'aspf=s alone does not make DKIM strict', row: row({ dkims: [sig('mail.acme.com', 'fail')] }), ctx: { aspf: 's' }, want: 'dkim-aligned-fails' },
    { name: 'public suffix: d=b.co.uk does not align with a.co.uk', row: row({ visibleFrom: 'a.co.uk', dkims: [sig('b.co.uk', 'fail')] }), want: 'dkim-other-fails' },
    { name: 'public suffix: d=x.a.co.uk aligns with a.co.uk', row: row({ visibleFrom: 'a.co.uk', dkims: [sig('x.a.co.uk', 'fail')] }), want: 'dkim-aligned-fails' },
    { name: 'aligned temperror and another domain passes', row: row({ dkims: [sig('esp.net', 'pass'), sig('acme.com', 'temperror')] }), want: 'dkim-error' },
    { name: 'aligned temperr', row: row({ dkims: [sig('acme.com', 'temperr')] }), want: 'dkim-error' },
    { name: 'aligned permerror and another domain fails', row: row({ dkims: [sig('acme.com', 'permerror'), sig('esp.net', 'fail')] }), want: 'dkim-error' },
    { name: 'another domain passes only', row: row({ dkims: [sig('esp.net', 'pass')] }), want: 'dkim-other-domain' },
    { name: 'another domain passes, another fails', row: row({ dkims: [sig('esp2.net', 'fail'), sig('esp.net', 'pass')] }), want: 'dkim-other-domain' },
    { name: 'an aligned d= passes that the receiver did not count as aligned', row: row({ dkims: [sig('acme.com', 'pass')] }), want: 'dkim-other-domain' },
    { name: 'another domain passes beside an aligned unknown result', row: row({ dkims: [sig('acme.com', 'weird'), sig('esp.net', 'pass')] }), want: 'dkim-other-domain' },
    { name: 'another domain fails', row: row({ dkims: [sig('esp.net', 'fail')] }), want: 'dkim-other-fails' },
    { name: 'another domain none', row: row({ dkims: [sig('esp.net', 'none')] }), want: 'dkim-other-fails' },
    { name: 'another domain fails beside another domain temperror', row: row({ dkims: [sig('esp.net', 'temperror'), sig('esp2.net', 'fail')] }), want: 'dkim-other-fails' },
    { name: 'a signature without a domain fails', row: row({ dkims: [sig('', 'fail')] }), want: 'dkim-other-fails' },
    { name: 'no Header From: a failing signature is another domain’s', row: row({ visibleFrom: '', dkims: [sig('acme.com', 'fail')] }), want: 'dkim-other-fails' },
    { name: 'another domain permerror only', row: row({ dkims: [sig('esp.net', 'permerror')] }), want: 'dkim-error' },
    { name: 'another domain temperr only', row: row({ dkims: [sig('esp.net', 'temperr')] }), want: 'dkim-error' },
    { name: 'no signature', row: row({ alignedDkim: 'none' }), want: 'dkim-none' },
    { name: 'no signature, aligned DKIM fail', row: row({ alignedDkim: 'fail' }), want: 'dkim-none' },
    { name: 'no signature, aligned DKIM empty', row: row({ alignedDkim: '' }), want: 'dkim-none' },
    { name: 'no signature, aligned DKIM unknown value', row: row({ alignedDkim: 'weird' }), want: 'dkim-none' },
    { name: 'no signature, aligned DKIM temperror', row: row({ alignedDkim: 'temperror' }), want: 'dkim-error' },
    { name: 'no signature, aligned DKIM temperr', row: row({ alignedDkim: 'temperr' }), want: 'dkim-error' },
    { name: 'no signature, aligned DKIM permerror', row: row({ alignedDkim: 'permerror' }), want: 'dkim-error' },
    ...['', 'unknown', 'skipped', 'weird', '__proto__', 'constructor', 'PASS', 'Fail'].map((v) => ({
      name: `an aligned signature ${JSON.stringify(v)} is unknown`,
      row: row({ dkims: [sig('acme.com', v)] }),
      want: 'dkim-unknown',
    })),
    { name: 'another domain’s unknown value is unknown', row: row({ dkims: [sig('esp.net', '__proto__'), sig('acme.com', '')] }), want: 'dkim-unknown' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(dkimReason(c.row, c.ctx), c.want));

  it('every DKIM reason has a case', () => {
    assert.deepEqual(DKIM_REASONS.filter((r) => !cases.some((c) => c.want === r)), []);
  });
});

describe('advice: classes', () => {
  const google = { source: 'Google' };
  const cases: Case<string>[] = [
    { name: 'aligned SPF pass', row: row({ spf: 'pass', alignedSpf: 'pass' }), want: 'compliant' },
    { name: 'aligned DKIM pass', row: row({ alignedDkim: 'pass', dkims: [sig('acme.com', 'pass')] }), want: 'compliant' },
    { name: 'compliant before forwarded (an override on passing mail)', row: row({ alignedDkim: 'pass' }), ctx: { overrides: ['forwarded'] }, want: 'compliant' },
    { name: 'override forwarded', row: row(), ctx: { overrides: ['forwarded'] }, want: 'forwarded' },
    { name: 'override mailing_list', row: row({ spf: 'pass', returnPath: 'esp.net' }), ctx: { overrides: ['mailing_list'] }, want: 'forwarded' },
    { name: 'override trusted_forwarder after another one', row: row(), ctx: { overrides: ['local_policy', 'trusted_forwarder'] }, want: 'forwarded' },
    { name: 'override local_policy is not forwarding', row: row(), ctx: { overrides: ['local_policy'] }, want: 'unauthenticated' },
    { name: 'override local_policy on mail that passes unaligned', row: row({ spf: 'pass', returnPath: 'esp.net' }), ctx: { overrides: ['local_policy', 'sampled_out', 'other'] }, want: 'needs-fixing' },
    { name: 'override reasons are compared as given (overridesOf lower-cases them)', row: row(), ctx: { overrides: ['Forwarded'] }, want: 'unauthenticated' },
    { name: 'relay by source name, aligned signature broken', row: row({ ...google, dkims: [sig('acme.com', 'fail')] }), want: 'forwarded' },
    { name: 'relay by source name in another case and words', row: row({ source: 'MICROSOFT Outlook', dkims: [sig('acme.com', 'fail'), sig('esp.net', 'pass')] }), want: 'forwarded' },
    { name: 'relay by source "Mailing list"', row: row({ source: 'Mailing list', dkims: [sig('acme.com', 'neutral')] }), want: 'forwarded' },
    { name: 'relay by rDNS of a mailbox provider', row: row({ rdns: ['mail-sor-f41.google.com'], dkims: [sig('acme.com', 'fail')] }), want: 'forwarded' },
    { name: 'relay by rDNS upper case with a trailing dot', row: row({ rdns: ['nope.example', 'MAIL.OUTLOOK.COM.'], dkims: [sig('acme.com', 'fail')] }), want: 'forwarded' },
    { name: 'relay by a lists. host', row: row({ rdns: ['lists.example.org'], dkims: [sig('acme.com', 'fail')] }), want: 'forwarded' },
    { name: 'relay by a mailman. host', row: row({ rdns: ['mailman.python.org'], dkims: [sig('acme.com', 'fail')] }), want: 'forwarded' },
    { name: 'not a relay: googlemail is not a word of the source', row: row({ source: 'googlemail', dkims: [sig('acme.com', 'fail')] }), want: 'unauthenticated' },
    { name: 'not a relay: the provider’s name left of another domain', row: row({ rdns: ['google.com.evil.net', 'mylists.example.org'], dkims: [sig('acme.com', 'fail')] }), want: 'unauthenticated' },
    { name: 'relay, strict adkim: d=mail.acme.com is not "your signature"', row: row({ ...google, dkims: [sig('mail.acme.com', 'fail')] }), ctx: { adkim: 's' }, want: 'unauthenticated' },
    { name: 'relay, aligned temperror is not a broken signature', row: row({ ...google, dkims: [sig('acme.com', 'temperror')] }), want: 'unauthenticated' },
    {
      name: 'forwarded by SRS: relay, SPF pass for a Return-Path under its rDNS’s domain',
      row: row({ rdns: ['mx1.forwardemail.net'], spf: 'pass', returnPath: 'srs.forwardemail.net' }),
      want: 'forwarded',
    },
    {
      name: 'SRS by a source-name relay whose rDNS carries the Return-Path domain',
      row: row({ source: 'Forwarder', rdns: ['out.fwd.example.org'], spf: 'pass', returnPath: 'SRS.Fwd.Example.Org.' }),
      want: 'forwarded',
    },
    {
      name: 'not SRS: SPF fails for the relay’s domain',
      row: row({ rdns: ['mx1.forwardemail.net'], spf: 'softfail', returnPath: 'srs.forwardemail.net' }),
      want: 'unauthenticated',
    },
    {
      name: 'not SRS: a relay whose SPF passes for another domain is a sender set up wrong',
      row: row({ ...google, rdns: ['mail-sor-f41.google.com'], spf: 'pass', returnPath: 'bounce.esp.net' }),
      want: 'needs-fixing',
    },
    {
      name: 'not SRS: not a relay, SPF passes for the rDNS’s domain',
      row: row({ rdns: ['o1.esp.net'], spf: 'pass', returnPath: 'bounce.esp.net' }),
      want: 'needs-fixing',
    },
    { name: 'relay signed only by another domain is a sender set up wrong', row: row({ ...google, dkims: [sig('acme-com.20230601.gappssmtp.com', 'pass')] }), want: 'needs-fixing' },
    { name: 'SPF passes unaligned', row: row({ spf: 'pass', returnPath: 'bounce.esp.net' }), want: 'needs-fixing' },
    { name: 'another domain’s signature passes', row: row({ dkims: [sig('esp.net', 'pass')] }), want: 'needs-fixing' },
    { name: 'an aligned d= passes, not counted aligned', row: row({ dkims: [sig('acme.com', 'pass')] }), want: 'needs-fixing' },
    { name: 'nothing passes', row: row(), want: 'unauthenticated' },
    { name: 'an aligned signature fails, not a relay', row: row({ dkims: [sig('acme.com', 'fail')] }), want: 'unauthenticated' },
    { name: 'junk everywhere', row: row({ source: '__proto__', visibleFrom: '__proto__', returnPath: 'constructor', rdns: ['__proto__', ''], spf: '__proto__', alignedSpf: 'weird', alignedDkim: '', dkims: [sig('__proto__', 'toString')] }), want: 'unauthenticated' },
    { name: 'spf PASS in upper case passes nothing', row: row({ spf: 'PASS', returnPath: 'esp.net' }), want: 'unauthenticated' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(rowClass(c.row, c.ctx), c.want));

  it('every class has a case', () => {
    assert.deepEqual(ROW_CLASSES.filter((r) => !cases.some((c) => c.want === r)), []);
  });

  it('adviceOf gives the three rules’ answers, and rowClass takes a DKIM reason the caller has', () => {
    for (const c of cases) assert.deepEqual(adviceOf(c.row, c.ctx), { spf: spfReason(c.row, c.ctx), dkim: dkimReason(c.row, c.ctx), cls: rowClass(c.row, c.ctx) }, c.name);
    const r = row({ ...google, dkims: [sig('esp.net', 'fail')] });
    assert.equal(rowClass(r), 'unauthenticated');
    assert.equal(rowClass(r, {}, 'dkim-aligned-fails'), 'forwarded');
  });
});

describe('advice: domains and relays', () => {
  it('normalDomain: trimmed, lower case, no trailing dots, IDN as A-labels', () => {
    assert.equal(normalDomain(' Mail.Acme.COM.. '), 'mail.acme.com');
    assert.equal(normalDomain('BÜCHER.example.'), 'xn--bcher-kva.example');
    assert.equal(normalDomain('xn--bcher-kva.example'), 'xn--bcher-kva.example');
    assert.equal(normalDomain(''), '');
    assert.equal(normalDomain('.'), '');
    // A name the IDN rules refuse is compared as written (lower case).
    assert.equal(normalDomain('Ü X.example'), 'ü x.example');
  });

  it('aligns: relaxed by organizational domain, strict by name, empty with nothing', () => {
    assert.equal(aligns('mail.acme.com', 'acme.com'), true);
    assert.equal(aligns('mail.acme.com', 'acme.com', true), false);
    assert.equal(aligns('acme.com.', 'ACME.com', true), true);
    assert.equal(aligns('a.co.uk', 'b.co.uk'), false);
    assert.equal(aligns('co.uk', 'a.co.uk'), false);
    assert.equal(aligns('x.bücher.example', 'XN--BCHER-KVA.example'), true);
    assert.equal(aligns('', ''), false);
    assert.equal(aligns(' ', ' '), false);
    assert.equal(aligns('.', '.'), false);
    assert.equal(aligns('acme.com', ''), false);
  });

  it('isRelay: source names (whole words), providers’ rDNS domains, list hosts', () => {
    const yes: [string, string[]][] = [
      ['Google', []], ['gmail', []], ['Microsoft Office 365', []], ['Outlook.com', []], ['Yahoo!', []], ['Apple iCloud', []],
      ['Forwarder', []], ['email forwarding', []], ['Mailing List', []], ['Web.de', []],
      ['Unknown', ['mail-yw1-f170.google.com']], ['Unknown', ['X.1E100.NET.']], ['', ['out.forwardemail.net']],
      ['', ['lists.example.org']], ['', ['list.acme.com']], ['', ['sympa.example.org']], ['', ['a.b.listserv.example.org']],
      ['', ['mx.acme.com', 'mailman.python.org']],
    ];
    const no: [string, string[]][] = [
      ['Unknown', []], ['Mailchimp', []], ['googlemail', []], ['office365', []], ['webde', []], ['', []],
      ['', ['mx.acme.com']], ['', ['google.com.evil.net']], ['', ['notgoogle.com']], ['', ['mylists.example.org']], ['', ['lists']], ['', ['']],
    ];
    for (const [source, rdns] of yes) assert.equal(isRelay({ source, rdns }), true, `${source} ${rdns.join(' ')}`);
    for (const [source, rdns] of no) assert.equal(isRelay({ source, rdns }), false, `${source} ${rdns.join(' ')}`);
  });

  it('termOf: the words of every reason and class, nothing for any other string', () => {
    for (const code of [...SPF_REASONS, ...DKIM_REASONS, ...ROW_CLASSES]) {
      const t = termOf(code);
      assert.ok(t && t.label && t.rule, code);
    }
    assert.deepEqual(termOf('dkim-other-domain'), {
      label: 'Signed only by another domain',
      rule: 'no aligned signature fails, and a signature passes that does not align, or that the receiver did not count as aligned (the sender signs as itself)',
    });
    assert.equal(termOf('compliant')!.label, 'Compliant');
    for (const junk of ['', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'Compliant', 'spf-pass']) assert.equal(termOf(junk), undefined, junk);
  });
});

describe('advice: a group’s verdict', () => {
  const bar = DEFAULT_THRESHOLDS.compliant;
  const cases: [number[], string][] = [
    [[0, 0, 0, 0], ''],
    [[49, 1, 0, 0], 'compliant'], // exactly 98%
    [[98, 0, 2, 0], 'compliant'], // exactly 98%
    [[4900, 0, 0, 100], 'compliant'], // exactly 98%
    [[97, 1, 2, 0], 'needs-fixing'], // 97%: under the bar
    [[4899, 0, 0, 101], 'unauthenticated'], // 97.98%
    [[1, 0, 0, 0], 'compliant'],
    [[0, 3, 2, 1], 'forwarded'],
    [[0, 1, 1, 1], 'needs-fixing'], // a three-way tie
    [[0, 2, 2, 1], 'needs-fixing'], // Needs fixing before Forwarded
    [[0, 1, 2, 2], 'needs-fixing'], // Needs fixing before Unauthenticated
    [[10, 2, 1, 2], 'unauthenticated'], // Unauthenticated before Forwarded
    [[0, 0, 0, 5], 'unauthenticated'],
  ];
  for (const [mix, want] of cases) it(`${JSON.stringify(mix)} → ${JSON.stringify(want)}`, () => assert.equal(verdictOf(mix, bar), want));

  it('the bar is clamped to 0..1', () => {
    assert.equal(verdictOf([99, 0, 0, 1], 1), 'unauthenticated');
    assert.equal(verdictOf([99, 0, 0, 1], 1.5), 'unauthenticated');
    assert.equal(verdictOf([100, 0, 0, 0], 1.5), 'compliant');
    assert.equal(verdictOf([0, 0, 1, 0], -1), 'compliant');
    assert.equal(verdictOf([0, 0, 1, 0], 0), 'compliant');
  });

  it('failing emails, the empty mix and the class positions', () => {
    assert.equal(failingEmails([5, 1, 2, 3]), 6);
    assert.deepEqual(emptyMix(), [0, 0, 0, 0]);
    assert.notEqual(emptyMix(), emptyMix());
    for (const c of ROW_CLASSES) assert.equal(ROW_CLASSES[CLASS_INDEX[c]], c);
  });
});

describe('advice: the fix in words', () => {
  const facts = (over: Partial<FixFacts>): FixFacts => ({
    headerFrom: 'acme.com', spf: {}, dkim: {}, returnPaths: [], otherDomains: [], selectors: [], ips: [], ...over,
  });

  it('Needs fixing, signed by another domain and a Return-Path that does not align', () => {
    const f = facts({
      spf: { 'spf-unaligned-pass': 10 },
      dkim: { 'dkim-other-domain': 10 },
      returnPaths: ['bounce.esp.net'],
      otherDomains: ['esp.net', 'esp2.net', 'esp3.net'],
      selectors: ['s1'],
      ips: ['192.0.2.1'],
    });
    assert.equal(
      fixText('needs-fixing', f),
      'Signed by `d=esp.net`, `d=esp2.net` (+1 more) only: set up DKIM for `acme.com` at this sender (selector seen: `s1`). ' +
        'SPF passes for `bounce.esp.net`, which does not align with `acme.com`: set a custom Return-Path (bounce domain) under `acme.com` in this sender’s settings.',
    );
  });

  it('Needs fixing without DKIM: one sentence when the SPF side is not one the owner can act on', () => {
    const f = facts({ spf: { 'spf-not-allowed-other': 5 }, dkim: { 'dkim-none': 5 }, ips: ['192.0.2.1'] });
    assert.equal(fixText('needs-fixing', f), 'No DKIM signature for `acme.com`: turn on DKIM signing with `acme.com` at this sender.');
    assert.equal(fixText('needs-fixing', facts({ dkim: { 'dkim-other-fails': 2 } })), 'No DKIM signature for `acme.com`: turn on DKIM signing with `acme.com` at this sender.');
  });

  it('Needs fixing: the most common DKIM reason, then SPF not listing the IPs', () => {
    const f = facts({
      spf: { 'spf-not-allowed-own': 3, 'spf-none': 9 },
      dkim: { 'dkim-none': 2, 'dkim-aligned-fails': 5, 'dkim-unknown': 50 },
      selectors: ['s1', 's2', 's3'],
      ips: ['192.0.2.1', '192.0.2.2'],
    });
    assert.equal(
      fixText('needs-fixing', f),
      'The `acme.com` signature fails (selector seen: `s1`, `s2` (+1 more)): check that the key published in DNS for that selector is the one the sender signs with (rotated?), or what changes the message after signing. ' +
        '`acme.com`’s SPF record does not list this sender’s IPs (`192.0.2.1`, `192.0.2.2`): add the sender’s include or its IPs to it.',
    );
  });

  it('Needs fixing: errors on both sides; nothing actionable says it authenticates as someone else', () => {
    assert.equal(
      fixText('needs-fixing', facts({ dkim: { 'dkim-error': 1 }, spf: { 'spf-error': 1 } })),
      'DKIM for `acme.com` gave an error: check its key record in DNS. SPF gave an error for `acme.com`: check the record’s syntax and that it needs at most 10 DNS lookups.',
    );
    assert.equal(
      fixText('needs-fixing', facts({ dkim: { 'dkim-unknown': 4 }, spf: { 'spf-none': 4 } })),
      'This mail authenticates, but not as `acme.com`: sign it with DKIM for `acme.com` at this sender.',
    );
  });

  it('Needs fixing: ties between DKIM reasons go to the first in the vocabulary’s order', () => {
    assert.match(fixText('needs-fixing', facts({ dkim: { 'dkim-other-fails': 3, 'dkim-aligned-fails': 3 } })), /^The `acme\.com` signature fails:/);
  });

  it('Unauthenticated', () => {
    assert.equal(
      fixText('unauthenticated', facts({ ips: ['192.0.2.1', '192.0.2.2', '192.0.2.3'], dkim: { 'dkim-none': 1 } })),
      'Nothing authenticates this mail. If these servers are yours, add their IPs (`192.0.2.1`, `192.0.2.2` (+1 more)) to `acme.com`’s SPF record and sign with DKIM for `acme.com`; if not, p=quarantine or p=reject stops it.',
    );
  });

  it('Forwarded', () => {
    assert.equal(
      fixText('forwarded', facts({ dkim: { 'dkim-aligned-fails': 1 } })),
      'Forwarded by a mailbox provider or a list, which broke the `acme.com` signature in transit or sent the mail as itself: nothing to change at the sender. Keep signing with DKIM; receivers that trust the forwarder (ARC) keep delivering it.',
    );
  });

  it('Compliant and no verdict: nothing to fix', () => {
    const f = facts({ dkim: { 'dkim-none': 1 } });
    assert.equal(fixText('compliant', f), '');
    assert.equal(fixText('', f), '');
  });
});

describe('advice: readiness for enforcement', () => {
  const bars = { quarantine: DEFAULT_THRESHOLDS.quarantine, reject: DEFAULT_THRESHOLDS.reject };
  const input = (over: Partial<ReadinessInput>): ReadinessInput => ({
    mix: [0, 0, 0, 0], fixSources: [], observed: { quarantine: 0, reject: 0 }, days: 30, ...over,
  });
  const step = (over: Partial<ReadinessInput>) => readiness(input(over), bars, 'en-US').step;

  it('no mail', () => {
    const r = readiness(input({}), bars, 'en-US');
    assert.deepEqual(r.step, { kind: 'no-mail', text: 'No mail in this period: nothing to judge yet.' });
    assert.equal(r.share, undefined);
  });

  it('no legitimate mail', () => {
    const r = readiness(input({ mix: [0, 0, 0, 7] }), bars, 'en-US');
    assert.deepEqual(r.step, { kind: 'fix', text: 'None of this mail authenticates: if any of it is yours, set up SPF and DKIM for it before enforcing.' });
    assert.equal(r.stopped, 7);
    assert.equal(r.legitimate, 0);
  });

  it('losing mail: the source with the most lost first', () => {
    const r = readiness(
      input({
        mix: [85, 0, 15, 3],
        fixSources: [{ source: 'ESP', failing: 10, lost: 4 }, { source: 'Other', failing: 5, lost: 6 }, { source: 'Quiet', failing: 0, lost: 0 }],
        observed: { quarantine: 7, reject: 3 },
      }),
      bars,
      'en-US',
    );
    assert.deepEqual(r.step, { kind: 'losing', text: 'Legitimate mail is being lost: Other had 6 emails quarantined or rejected in 30 days (+1 more sources). Fix it first.' });
    assert.deepEqual(r.losing.map((s) => s.source), ['Other', 'ESP']);
    assert.deepEqual(r.atRisk, { emails: 15, sources: 2 });
    assert.deepEqual([r.emails, r.legitimate, r.legitimatePass, r.stopped], [103, 100, 85, 3]);
  });

  it('losing mail even above the bars, in one day, with the policy’s notes', () => {
    assert.deepEqual(step({ mix: [999, 0, 1, 0], fixSources: [{ source: 'ESP', failing: 1, lost: 1 }], days: 1, policy: { p: 'reject', testing: 'y' } }), {
      kind: 'losing',
      text: 'Legitimate mail is being lost: ESP had 1 email quarantined or rejected in 1 day. Fix it first. The policy is in test mode (t=y): receivers apply one step less than p says.',
    });
  });

  it('fix N sources first', () => {
    assert.deepEqual(step({ mix: [80, 5, 15, 0], fixSources: [{ source: 'A', failing: 10, lost: 0 }, { source: 'B', failing: 5, lost: 0 }] }), {
      kind: 'fix',
      text: 'Fix 2 sources first: they send 15% of your legitimate mail, which fails DMARC.',
    });
    assert.deepEqual(step({ mix: [90, 0, 10, 40], fixSources: [{ source: 'A', failing: 10, lost: 0 }] }), {
      kind: 'fix',
      text: 'Fix 1 source first: it sends 10% of your legitimate mail, which fails DMARC.',
    });
  });

  it('under the quarantine bar with only forwarded mail failing', () => {
    assert.deepEqual(step({ mix: [90, 10, 0, 5] }), {
      kind: 'forwarded',
      text: '90% of legitimate mail passes; the rest is forwarded mail, which enforcement may lose unless receivers trust the forwarders.',
    });
    // A source failing nothing does not count as one to fix.
    assert.equal(step({ mix: [90, 10, 0, 5], fixSources: [{ source: 'A', failing: 0, lost: 0 }] }).kind, 'forwarded');
  });

  it('ready for quarantine, from exactly the bar', () => {
    assert.deepEqual(step({ mix: [95, 5, 0, 50] }), {
      kind: 'quarantine',
      text: 'Ready for p=quarantine: 95% of legitimate mail passes over 30 days; fix the rest before p=reject.',
    });
    assert.equal(step({ mix: [9499, 501, 0, 0] }).kind, 'forwarded');
    assert.deepEqual(step({ mix: [96, 0, 4, 0], fixSources: [{ source: 'A', failing: 4, lost: 0 }], days: 1234 }), {
      kind: 'quarantine',
      text: 'Ready for p=quarantine: 96% of legitimate mail passes over 1,234 days; fix the rest before p=reject.',
    });
  });

  it('ready for reject, from exactly the bar', () => {
    assert.deepEqual(step({ mix: [99, 1, 0, 0] }), { kind: 'reject', text: 'Ready for p=reject: 99% of legitimate mail passes over 30 days.' });
    assert.deepEqual(step({ mix: [995, 5, 0, 3] }), { kind: 'reject', text: 'Ready for p=reject: 99.5% of legitimate mail passes over 30 days.' });
    assert.equal(step({ mix: [9899, 101, 0, 0] }).kind, 'quarantine');
  });

  it('p=none published: quarantine, then reject', () => {
    assert.deepEqual(step({ mix: [100, 0, 0, 9], policy: { p: 'none' } }), {
      kind: 'quarantine',
      text: 'Ready for p=quarantine, then p=reject: 100% of legitimate mail passes over 30 days.',
    });
  });

  it('p=reject or p=quarantine published and holding: enforced', () => {
    assert.deepEqual(step({ mix: [100, 0, 0, 9], days: 1, policy: { p: 'reject' } }), { kind: 'enforced', text: 'Enforced at p=reject: 100% of legitimate mail passes over 1 day.' });
    assert.deepEqual(step({ mix: [96, 4, 0, 0], policy: { p: 'quarantine' } }), { kind: 'enforced', text: 'Enforced at p=quarantine: 96% of legitimate mail passes over 30 days.' });
    assert.deepEqual(step({ mix: [96, 4, 0, 0], policy: { p: 'reject' } }), { kind: 'enforced', text: 'Enforced at p=reject: 96% of legitimate mail passes over 30 days.' });
    // p=quarantine above the reject bar: the next step is p=reject.
    assert.deepEqual(step({ mix: [100, 0, 0, 0], policy: { p: 'quarantine' } }), { kind: 'reject', text: 'Ready for p=reject: 100% of legitimate mail passes over 30 days.' });
  });

  it('t=y and pct are named', () => {
    assert.deepEqual(step({ mix: [100, 0, 0, 0], policy: { p: 'reject', pct: 50, testing: 'y' } }), {
      kind: 'enforced',
      text:
        'Enforced at p=reject: 100% of legitimate mail passes over 30 days. The policy is in test mode (t=y): receivers apply one step less than p says. ' +
        'pct=50: receivers apply the policy to that share of failing mail only (DMARCbis removed pct).',
    });
    assert.deepEqual(step({ mix: [80, 5, 15, 0], fixSources: [{ source: 'A', failing: 20, lost: 0 }], policy: { pct: 10 } }), {
      kind: 'fix',
      text: 'Fix 1 source first: it sends 20% of your legitimate mail, which fails DMARC. pct=10: receivers apply the policy to that share of failing mail only (DMARCbis removed pct).',
    });
    // pct=100 and t=n say nothing.
    assert.deepEqual(step({ mix: [100, 0, 0, 0], policy: { p: 'none', pct: 100, testing: 'n' } }), {
      kind: 'quarantine',
      text: 'Ready for p=quarantine, then p=reject: 100% of legitimate mail passes over 30 days.',
    });
  });
});

describe('advice: override reasons of a report file’s row', () => {
  const of = (raw: unknown) => overridesOf({ raw: raw as Record<string, unknown> | undefined });

  it('one reason object, trimmed and lower case', () => {
    assert.deepEqual(of({ row: { policy_evaluated: { reason: { type: ' Forwarded ', comment: 'x' } } } }), ['forwarded']);
  });

  it('an array of reasons, each once, in order', () => {
    assert.deepEqual(
      of({ row: { policy_evaluated: { reason: [{ type: 'mailing_list' }, { type: 'LOCAL_POLICY' }, { type: 'Mailing_List' }, { comment: 'no type' }] } } }),
      ['mailing_list', 'local_policy'],
    );
  });

  it('values wrapped in arrays, as some XML readers give them', () => {
    assert.deepEqual(of({ row: [{ policy_evaluated: [{ reason: [{ type: ['trusted_forwarder'] }] }] }] }), ['trusted_forwarder']);
  });

  it('missing: no raw, no row, no policy_evaluated, no reason', () => {
    assert.deepEqual(overridesOf({}), []);
    assert.deepEqual(of(undefined), []);
    assert.deepEqual(of({}), []);
    assert.deepEqual(of({ row: {} }), []);
    assert.deepEqual(of({ row: { policy_evaluated: { disposition: 'none' } } }), []);
  });

  it('junk never throws and gives nothing', () => {
    const junk: unknown[] = [
      { row: 'junk' },
      { row: null },
      { row: 42 },
      { row: { policy_evaluated: null } },
      { row: { policy_evaluated: 'forwarded' } },
      { row: { policy_evaluated: { reason: null } } },
      { row: { policy_evaluated: { reason: 'forwarded' } } },
      { row: { policy_evaluated: { reason: 42 } } },
      { row: { policy_evaluated: { reason: [] } } },
      { row: { policy_evaluated: { reason: [null, 7, 'forwarded', [], {}] } } },
      { row: { policy_evaluated: { reason: [{ type: 7 }, { type: {} }, { type: null }, { type: '' }, { type: '   ' }, { type: [] }] } } },
      JSON.parse('{"row":{"policy_evaluated":{"reason":{"__proto__":{"type":"forwarded"}}}}}'),
      { row: Object.create({ policy_evaluated: { reason: { type: 'forwarded' } } }) },
    ];
    for (const raw of junk) assert.deepEqual(of(raw), [], JSON.stringify(raw));
  });
});

describe('advice: a period’s health', () => {

  const records: DmarcRecord[] = [
    // Acme Mail: compliant but for one email from a second IP.
    rec({ source: 'Acme Mail', ipAddress: '192.0.2.1', emails: 60, alignedDkim: 'pass', dkims: [dk('acme.com', 'pass')] }),
    rec({ source: 'Acme Mail', ipAddress: '192.0.2.1', emails: 40, alignedSpf: 'pass', spf: 'pass' }),
    rec({ source: 'Acme Mail', ipAddress: '192.0.2.2', emails: 1 }),
    // ESP: signs as itself with its own Return-Path; 10 of its emails quarantined.
    rec({ source: 'ESP', ipAddress: '198.51.100.7', emails: 20, spf: 'pass', returnPath: 'bounce.esp.net', dkims: [dk('esp.net', 'pass', 'k1')] }),
    rec({ source: 'ESP', ipAddress: '198.51.100.7', emails: 10, dmarc: 'quarantine', spf: 'pass', returnPath: 'bounce.esp.net', dkims: [dk('esp.net', 'pass', 'k1')] }),
    rec({ source: 'ESP', ipAddress: '198.51.100.8', emails: 10, alignedDkim: 'pass', dkims: [dk('acme.com', 'pass', 'k2')] }),
    // Google: forwarded mail whose acme.com signature broke.
    rec({ source: 'Google', ipAddress: '209.85.220.41', rdns: ['mail-sor-f41.google.com'], emails: 5, dkims: [dk('acme.com', 'fail')] }),
    // Spoofing of another domain of the organization, rejected.
    rec({ source: 'Unknown', ipAddress: '203.0.113.9', visibleFrom: 'acme.org', emails: 50, dmarc: 'reject', spf: 'softfail', returnPath: 'acme.org' }),
  ];

  it('the mixes, verdicts, per-IP verdicts and fixes of every source', () => {
    const h = periodHealth(records, opts);
    assert.deepEqual(h.mix, [110, 5, 30, 51]);
    const by = new Map(h.sources.map((s) => [s.source, s]));
    assert.deepEqual(h.sources.map((s) => s.source), ['Unknown', 'ESP', 'Google', 'Acme Mail']);
    const ips = (source: string) => [...by.get(source)!.ips].map(([ip, v]) => [ip, v.mix, v.verdict]);

    const acme = by.get('Acme Mail')!;
    assert.deepEqual([acme.emails, acme.rows, acme.mix, acme.verdict, acme.fix, acme.failing, acme.lost], [101, 3, [100, 0, 0, 1], 'compliant', '', 0, 0]);
    assert.equal(acme.passRate, 100 / 101);
    assert.deepEqual(ips('Acme Mail'), [['192.0.2.1', [100, 0, 0, 0], 'compliant'], ['192.0.2.2', [0, 0, 0, 1], 'unauthenticated']]);

    const esp = by.get('ESP')!;
    assert.deepEqual([esp.emails, esp.rows, esp.mix, esp.verdict, esp.failing, esp.lost], [40, 3, [10, 0, 30, 0], 'needs-fixing', 30, 10]);
    assert.deepEqual(ips('ESP'), [['198.51.100.7', [0, 0, 30, 0], 'needs-fixing'], ['198.51.100.8', [10, 0, 0, 0], 'compliant']]);
    assert.deepEqual(esp.facts, {
      headerFrom: 'acme.com',
      spf: { 'spf-unaligned-pass': 30 },
      dkim: { 'dkim-other-domain': 30 },
      returnPaths: ['bounce.esp.net'],
      otherDomains: ['esp.net'],
      selectors: ['k1'],
      ips: ['198.51.100.7'],
    });
    assert.equal(
      esp.fix,
      'Signed by `d=esp.net` only: set up DKIM for `acme.com` at this sender (selector seen: `k1`). ' +
        'SPF passes for `bounce.esp.net`, which does not align with `acme.com`: set a custom Return-Path (bounce domain) under `acme.com` in this sender’s settings.',
    );

    const google = by.get('Google')!;
    assert.deepEqual([google.mix, google.verdict, google.failing, google.lost], [[0, 5, 0, 0], 'forwarded', 5, 0]);
    assert.deepEqual(google.facts.selectors, ['s1']);
    assert.match(google.fix, /^Forwarded by a mailbox provider or a list, which broke the `acme\.com` signature/);

    const unknown = by.get('Unknown')!;
    assert.deepEqual([unknown.mix, unknown.verdict, unknown.failing, unknown.lost], [[0, 0, 0, 50], 'unauthenticated', 0, 0]);
    assert.deepEqual(unknown.facts.spf, { 'spf-not-allowed-own': 50 });
    assert.equal(
      unknown.fix,
      'Nothing authenticates this mail. If these servers are yours, add their IPs (`203.0.113.9`) to `acme.org`’s SPF record and sign with DKIM for `acme.org`; if not, p=quarantine or p=reject stops it.',
    );
  });

  it('readiness of the organization and of each Header From domain', () => {
    const h = periodHealth(records, opts);
    assert.deepEqual(h.readiness.step, { kind: 'losing', text: 'Legitimate mail is being lost: ESP had 10 emails quarantined or rejected in 30 days. Fix it first.' });
    assert.deepEqual(h.readiness.observed, { quarantine: 10, reject: 0 });
    assert.deepEqual(h.readiness.atRisk, { emails: 35, sources: 1 });
    assert.equal(h.readiness.stopped, 51);
    assert.deepEqual(h.domains.map((d) => [d.domain, d.readiness.emails, d.readiness.step.kind]), [['acme.com', 146, 'losing'], ['acme.org', 50, 'fix']]);
  });

  it('a report file’s override reasons and published policy', () => {
    const policies: Record<string, Published> = { 'acme.com': { p: 'reject' }, 'acme.net': { adkim: 's', p: 'none' } };
    const h = periodHealth(
      [
        rec({ source: 'Acme Mail', emails: 99, alignedSpf: 'pass', spf: 'pass' }),
        rec({ source: 'List', ipAddress: '192.0.2.50', emails: 1, reason: 'mailing_list' }),
        rec({ source: 'List', ipAddress: '192.0.2.51', emails: 1, reason: 'local_policy' }),
        // Strict adkim, as its report states it: d=mail.acme.net is not acme.net's signature, so Google's mail is not forwarded.
        rec({ source: 'Google', visibleFrom: 'acme.net', ipAddress: '209.85.220.41', emails: 2, dkims: [dk('mail.acme.net', 'fail')], published: { domain: 'acme.net', adkim: 's', p: 'none' } }),
      ],
      { ...opts, days: 7, policyOf: (d) => policies[d] },
    );
    assert.deepEqual(h.mix, [99, 1, 0, 3]);
    const by = new Map(h.sources.map((s) => [s.source, s]));
    assert.deepEqual(by.get('List')!.mix, [0, 1, 0, 1]);
    assert.equal(by.get('List')!.verdict, 'unauthenticated');
    assert.deepEqual(by.get('Google')!.mix, [0, 0, 0, 2]);
    assert.deepEqual(by.get('Google')!.facts.dkim, { 'dkim-other-fails': 2 });
    assert.deepEqual(h.domains.map((d) => d.domain), ['acme.com', 'acme.net']);
    assert.deepEqual(h.domains[0]!.readiness.step, { kind: 'enforced', text: 'Enforced at p=reject: 99% of legitimate mail passes over 7 days.' });
    assert.deepEqual(h.readiness.step, { kind: 'reject', text: 'Ready for p=reject: 99% of legitimate mail passes over 7 days.' });
    assert.equal(h.domains[1]!.readiness.step.kind, 'fix');
  });

  it('without policyOf, readiness takes the latest policy the rows’ reports state, per domain and over all', () => {
    const old = { domain: 'acme.com', p: 'none' };
    const latest = { domain: 'acme.com', p: 'reject' };
    const h = periodHealth(
      [
        rec({ source: 'Acme Mail', emails: 995, alignedSpf: 'pass', spf: 'pass', published: latest }),
        rec({ source: 'Acme Mail', emails: 5, alignedSpf: 'pass', spf: 'pass', published: old, dateMs: Date.UTC(2026, 9, 1) }),
      ],
      { ...opts, days: 7 },
    );
    assert.deepEqual(h.readiness.step, { kind: 'enforced', text: 'Enforced at p=reject: 100% of legitimate mail passes over 7 days.' });
    assert.equal(h.domains[0]!.readiness.step.kind, 'enforced');
    // API rows state none: the advice is the rows' alone.
    assert.equal(periodHealth([rec({ source: 'Acme Mail', emails: 5, alignedSpf: 'pass', spf: 'pass' })], { ...opts, days: 7 }).readiness.step.kind, 'reject');
  });

  it('no records', () => {
    const h = periodHealth([], opts);
    assert.deepEqual(h.mix, [0, 0, 0, 0]);
    assert.deepEqual([h.sources, h.domains], [[], []]);
    assert.equal(h.readiness.step.kind, 'no-mail');
  });
});
