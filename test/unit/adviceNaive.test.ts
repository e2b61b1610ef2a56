// The row rules (src/advice/reasons.ts) against a second, naive implementation written from
// their words alone (the rule texts in src/advice/vocabulary.ts, as the README shows them), over
// thousands of generated hostile rows: domains in any case, with trailing dots, internationalised
// or empty, results from the documented set and junk, up to four signatures, relays and not.
// The naive side shares nothing with the real one but the public suffix list's organizational
// domain (src/records/alignment.ts) and Node's IDN conversion; which sources and reverse DNS names
// are relays it takes from hand-made labels, not from the real rules' patterns. Then a period's
// health (src/advice/health.ts) over generated records: its mixes add up, and match the naive
// classes.
import { strict as assert } from 'node:assert';
import { domainToASCII } from 'node:url';
import fc from 'fast-check';
import type { DmarcRecord } from '../../src/api/types';
import { periodHealth } from '../../src/advice/health';
import { dkimReason, rowClass, spfReason, type AdviceRow, type RowContext } from '../../src/advice/reasons';
import { DEFAULT_THRESHOLDS, ROW_CLASSES } from '../../src/advice/vocabulary';
import { organizationalDomain } from '../../src/records/alignment';

const SEED = 20261116;

// ---- The naive rules, from the words ----------------------------------------------------------

/** A name as DNS compares it: no surrounding space, any case, no trailing dot, IDN as xn--. */
function dnsName(name: string): string {
  let s = name.trim().toLowerCase();
  while (s.endsWith('.')) s = s.slice(0, -1);
  const ascii = [...s].every((ch) => ch.charCodeAt(0) < 128);
  // A name that is not a valid IDN (domainToASCII gives '') is compared as written.
  return ascii ? s : domainToASCII(s) || s;
}

/** "aligns with Header From": relaxed by organizational domain, strict by name; empty aligns with nothing. */
function alignsWithFrom(domain: string, headerFrom: string, strict: boolean): boolean {
  const a = dnsName(domain);
  const b = dnsName(headerFrom);
  if (a === '' || b === '') return false;
  return strict ? a === b : organizationalDomain(a) === organizationalDomain(b);
}

const isError = (r: string) => r === 'temperror' || r === 'temperr' || r === 'permerror';

function naiveSpf(row: AdviceRow, ctx: RowContext): string {
  // "aligned SPF is pass"
  if (row.alignedSpf === 'pass') return 'spf-aligned-pass';
  switch (row.spf) {
    case 'pass': // "SPF is pass, aligned SPF is not"
      return 'spf-unaligned-pass';
    case 'fail':
    case 'softfail':
    case 'neutral': // "… and the Return-Path aligns with Header From" / "… is another domain (or none)"
      return alignsWithFrom(row.returnPath, row.visibleFrom, ctx.aspf === 's') ? 'spf-not-allowed-own' : 'spf-not-allowed-other';
    case 'none':
      return 'spf-none';
    case 'temperror':
    case 'temperr':
    case 'permerror':
      return 'spf-error';
    default: // "any other value"
      return 'spf-unknown';
  }
}

function naiveDkim(row: AdviceRow, ctx: RowContext): string {
  if (row.alignedDkim === 'pass') return 'dkim-aligned-pass';
  // "the row carries no DKIM signature"; "(or there is none and aligned DKIM has one)" [an error]
  if (row.dkims.length === 0) return isError(row.alignedDkim) ? 'dkim-error' : 'dkim-none';
  const strict = ctx.adkim === 's';
  const broken = (r: string) => r === 'fail' || r === 'neutral' || r === 'policy' || r === 'none';
  // Yours: d= aligns and the receiver did not count it as a pass. A passing one that aligns by
  // this reading is "one the receiver did not count as aligned": another domain's.
  const yours: string[] = [];
  const theirs: string[] = [];
  for (const s of row.dkims) (s.result !== 'pass' && alignsWithFrom(s.domain, row.visibleFrom, strict) ? yours : theirs).push(s.result);
  if (yours.some(broken)) return 'dkim-aligned-fails';
  if (yours.some(isError)) return 'dkim-error';
  if (theirs.includes('pass')) return 'dkim-other-domain';
  if (theirs.some(broken)) return 'dkim-other-fails';
  if (theirs.some(isError)) return 'dkim-error';
  return 'dkim-unknown';
}

/** Sources, each labelled by hand: is it a mailbox provider's or a forwarder's (a relay)? */
const SOURCES: [string, boolean][] = [
  ['Google', true], ['Microsoft', true], ['Outlook.com', true], ['Yahoo', true], ['Apple iCloud', true], ['Forwarder', true],
  ['Mailing list', true], ['Gmail (Google Workspace)', true], ['Zoho Mail', true],
  ['Mailchimp', false], ['SendGrid', false], ['Amazon SES', false], ['Unknown', false], ['googlemail', false], ['office365', false],
  ['', false], ['__proto__', false], ['Acme Mail', false],
];
const SOURCE_RELAY = new Map(SOURCES);

/**
 * Reverse DNS names, each labelled by hand: a mailbox provider's or a list server's? Names that
 * normalize to '' ('' and '.') are in: an empty name is nobody's domain, not the relay's own.
 */
const RDNS: [string, boolean][] = [
  ['mail-sor-f41.google.com', true], ['MAIL-YW1-F170.GOOGLE.COM.', true], ['mail.outlook.com', true], ['out.forwardemail.net', true],
  ['lists.example.org', true], ['mailman.python.org', true], ['list.acme.com', true], ['sympa.acme.co.uk', true],
  ['mx.acme.com', false], ['o1.esp.net', false], ['google.com.evil.net', false], ['notgoogle.com', false], ['mylists.example.org', false],
  ['bounce.esp.net', false], ['mail.bücher.example', false], ['203.0.113.9', false], ['__proto__', false], ['', false], ['.', false],
];
const RDNS_RELAY = new Map(RDNS);

const FORWARDING = ['forwarded', 'mailing_list', 'trusted_forwarder'];

function naiveClass(row: AdviceRow, ctx: RowContext): string {
  // "DMARC passes: aligned SPF or aligned DKIM is pass"
  if (row.alignedSpf === 'pass' || row.alignedDkim === 'pass') return 'compliant';
  // "the receiver overrode the policy as forwarded, mailing_list or trusted_forwarder"
  if ((ctx.overrides ?? []).some((o) => FORWARDING.includes(o))) return 'forwarded';
  // "the IP is a mailbox provider's or a list server's (by source or reverse DNS) and either an
  // aligned DKIM signature is there but broken, or SPF passes for the relay's own domain (its
  // reverse DNS, rewritten by SRS)"
  const relay = SOURCE_RELAY.get(row.source)! || row.rdns.some((n) => RDNS_RELAY.get(n)!);
  if (relay) {
    if (naiveDkim(row, ctx) === 'dkim-aligned-fails') return 'forwarded';
    const rp = dnsName(row.returnPath);
    if (row.spf === 'pass' && rp !== '' && row.rdns.some((n) => organizationalDomain(dnsName(n)) === organizationalDomain(rp))) return 'forwarded';
  }
  // "SPF passes (for another domain) or a DKIM signature passes"
  if (row.spf === 'pass' || row.dkims.some((s) => s.result === 'pass')) return 'needs-fixing';
  return 'unauthenticated';
}

// ---- Hostile rows ------------------------------------------------------------------------------

const DOMAINS = [
  'acme.com', 'ACME.COM', 'acme.com.', 'Acme.Com..', ' acme.com ', 'mail.acme.com', 'Mail.Acme.Com.', 'bounce.acme.com', 'acme.com.evil.net',
  'acme.co.uk', 'mail.acme.co.uk', 'a.co.uk', 'b.co.uk', 'co.uk', 'uk',
  'bücher.example', 'BÜCHER.example.', 'xn--bcher-kva.example', 'mail.xn--bcher-kva.example', 'mail.bücher.example', 'ü x.example', '１２３.com',
  'esp.net', 'bounce.esp.net', 'esp2.net', 'forwardemail.net', 'srs.forwardemail.net', 'example.org', 'srs.example.org', 'google.com',
  '', ' ', '.', '..', '__proto__', 'constructor', 'not a domain', 'xn--zz.com',
];
const RESULTS = [
  'pass', 'fail', 'softfail', 'neutral', 'none', 'policy', 'temperror', 'temperr', 'permerror', 'unknown', 'skipped', '',
  'weird', '__proto__', 'constructor', 'toString', 'PASS', 'Fail', ' pass', 'pass ',
];
const MODES = [undefined, 's', 'r', 'S', '', 'x'];
const OVERRIDES = ['forwarded', 'mailing_list', 'trusted_forwarder', 'local_policy', 'sampled_out', 'policy_test_mode', 'other', 'Forwarded', '__proto__'];

const domain = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...DOMAINS) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
const result = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...RESULTS) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) });
const rowArb: fc.Arbitrary<AdviceRow> = fc.record({
  source: fc.constantFrom(...SOURCES.map((s) => s[0])),
  visibleFrom: domain,
  returnPath: domain,
  rdns: fc.array(fc.constantFrom(...RDNS.map((r) => r[0])), { maxLength: 3 }),
  spf: result,
  alignedSpf: fc.oneof({ weight: 1, arbitrary: fc.constant('pass') }, { weight: 4, arbitrary: result }),
  alignedDkim: fc.oneof({ weight: 1, arbitrary: fc.constant('pass') }, { weight: 4, arbitrary: result }),
  dkims: fc.array(fc.record({ domain, result }), { maxLength: 4 }),
});
const ctxArb: fc.Arbitrary<RowContext> = fc.oneof(
  fc.constant({}),
  fc.record({
    adkim: fc.constantFrom(...MODES),
    aspf: fc.constantFrom(...MODES),
    overrides: fc.option(fc.uniqueArray(fc.constantFrom(...OVERRIDES), { maxLength: 3 }), { nil: undefined }),
  }),
);

describe('advice: the row rules against a naive reading of their words', () => {
  it('spfReason, dkimReason and rowClass agree with the naive rules on 5,000 hostile rows', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(rowArb, ctxArb, (row, ctx) => {
        const got = { spf: spfReason(row, ctx), dkim: dkimReason(row, ctx), cls: rowClass(row, ctx) };
        assert.deepEqual(got, { spf: naiveSpf(row, ctx), dkim: naiveDkim(row, ctx), cls: naiveClass(row, ctx) });
        seen.add(got.spf).add(got.dkim).add(got.cls);
        if (got.cls === 'forwarded' && !ctx.overrides?.some((o) => FORWARDING.includes(o))) seen.add(got.dkim === 'dkim-aligned-fails' ? 'relay, broken' : 'relay, SRS');
      }),
      { seed: SEED, numRuns: 5000 },
    );
    // The rows reached every reason and every class, and both ways a relay's mail is Forwarded,
    // so the agreement means something.
    assert.equal(seen.size, 7 + 7 + 4 + 2, [...seen].join(' '));
  });

  it('the rules read the row without a context as with an empty one', () => {
    fc.assert(
      fc.property(rowArb, (row) => {
        assert.deepEqual([spfReason(row), dkimReason(row), rowClass(row)], [spfReason(row, {}), dkimReason(row, {}), rowClass(row, {})]);
      }),
      { seed: SEED + 1, numRuns: 1000 },
    );
  });

  it('the hand-made relay labels are those of the real rules (else the comparison above would not be fair)', () => {
    for (const [source, relay] of SOURCES) assert.equal(rowClass({ ...mailFrom(source, []) }) === 'forwarded', relay, source);
    for (const [name, relay] of RDNS) assert.equal(rowClass({ ...mailFrom('Unknown', [name]) }) === 'forwarded', relay, name);
  });
});

/** Mail whose acme.com signature broke on the way, from this source and reverse DNS. */
function mailFrom(source: string, rdns: string[]): AdviceRow {
  return { source, rdns, visibleFrom: 'acme.com', returnPath: 'acme.com', spf: 'fail', alignedSpf: 'fail', alignedDkim: 'fail', dkims: [{ domain: 'acme.com', result: 'fail' }] };
}

describe('advice: a period’s health adds up', () => {
  const IPS = ['192.0.2.1', '192.0.2.2', '198.51.100.7', '203.0.113.9'];
  const DISPOSITIONS = ['none', 'quarantine', 'reject', 'weird'];
  const recordArb: fc.Arbitrary<DmarcRecord> = fc
    .record({
      row: rowArb,
      ipAddress: fc.constantFrom(...IPS),
      emails: fc.oneof(fc.nat({ max: 20 }), fc.nat({ max: 100_000 })),
      dmarc: fc.constantFrom(...DISPOSITIONS),
      override: fc.option(fc.constantFrom(...OVERRIDES), { nil: undefined }),
      selector: fc.constantFrom('s1', 'k1', ''),
    })
    .map(({ row, ipAddress, emails, dmarc, override, selector }) => {
      const r: DmarcRecord = {
        ...row,
        rdns: [...row.rdns],
        dkims: row.dkims.map((d) => ({ ...d, selector })),
        reporter: 'google.com',
        ipAddress,
        emails,
        category: 'authorized',
        date: '2026-11-01T00:00:00Z',
        dateMs: Date.UTC(2026, 10, 1),
        dmarc,
      };
      if (override !== undefined) r.raw = { row: { policy_evaluated: { reason: [{ type: override }] } } };
      return r;
    });
  const opts = { thresholds: { ...DEFAULT_THRESHOLDS }, days: 30, locale: 'en-US' };
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  const add = (a: number[], b: readonly number[]) => a.map((v, i) => v + b[i]!);

  it('the mix totals the emails, sources’ mixes sum to the organization’s, IPs’ to their source’s, domains’ to the organization’s', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 40 }), (records) => {
        const h = periodHealth(records, opts);
        const emails = sum(records.map((r) => r.emails));
        assert.equal(sum(h.mix), emails);
        assert.equal(h.readiness.emails, emails);

        // The same classes as the naive rules, with the override reasons of each row's XML.
        const naive = [0, 0, 0, 0];
        for (const r of records) {
          const overrides = r.raw ? [((r.raw.row as { policy_evaluated: { reason: { type: string }[] } }).policy_evaluated.reason[0]!.type).toLowerCase()] : undefined;
          naive[ROW_CLASSES.indexOf(naiveClass(r, { overrides }) as (typeof ROW_CLASSES)[number])] += r.emails;
        }
        assert.deepEqual(h.mix, naive);

        let bySources = [0, 0, 0, 0];
        let rows = 0;
        for (const s of h.sources) {
          bySources = add(bySources, s.mix);
          rows += s.rows;
          assert.equal(s.emails, sum(s.mix), s.source);
          let byIps = [0, 0, 0, 0];
          for (const ip of s.ips.values()) byIps = add(byIps, ip.mix);
          assert.deepEqual(byIps, s.mix, s.source);
          assert.ok(s.failing <= s.mix[1] + s.mix[2] && s.lost <= s.failing, s.source);
        }
        assert.deepEqual(bySources, h.mix);
        assert.equal(rows, records.length);
        assert.equal(new Set(h.sources.map((s) => s.source)).size, h.sources.length);

        const fields = (r: typeof h.readiness) => [r.emails, r.legitimate, r.legitimatePass, r.stopped, r.atRisk.emails, r.observed.quarantine, r.observed.reject];
        let byDomains = fields(h.readiness).map(() => 0);
        for (const d of h.domains) byDomains = add(byDomains, fields(d.readiness));
        assert.deepEqual(byDomains, fields(h.readiness));
      }),
      { seed: SEED + 2, numRuns: 400 },
    );
  });
});
