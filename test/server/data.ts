/**
 * Deterministic, realistic DMARC record rows for the local API server.
 *
 * Rows are generated per (organization, UTC day) from a PRNG seeded with (seed, org, day), so a
 * day always yields the same rows whatever range asked for it, and any two requests agree.
 *
 * Consistency rules the generator keeps (the spec does not define the categories; these are our
 * reading of them and what the UI may rely on when it shows our test data):
 *  - alignedSpf is `pass` only when spf is `pass` and the Return-Path domain aligns (relaxed)
 *    with visibleFrom; alignedDkim is `pass` only when a DKIM signature of an aligned domain passes.
 *  - DMARC passes when either aligned result passes: then dmarc = `none`, category = `authorized`.
 *  - Otherwise the organization's policy applies (sometimes overridden to `none`, e.g. for
 *    forwarded mail): `reject` ⇒ category `rejected`, `quarantine` ⇒ `quarantined`,
 *    `none` ⇒ `partially-authorized` (delivered although not authenticated). The category comes
 *    from `categoryOf` (src/records/category.ts), the same rule the report-file importer uses.
 */
import { categoryOf } from '../../src/records/category';

export type Disposition = 'none' | 'quarantine' | 'reject';

export interface Organization {
  id: string;
  name: string;
  domains: string[];
  policy: Disposition;
  /** Average rows per day when the server is not told a fixed rowsPerDay. */
  scale: number;
  /** The organization's main mail platform. */
  platform: 'google' | 'microsoft' | 'selfhosted';
  /** Third-party senders it uses. */
  esps: EspName[];
}

type EspName = 'ses' | 'sendgrid' | 'mailchimp' | 'salesforce' | 'zendesk';

/** One row as the server sends it (the wire shape of §2.2 plus the extra `from`). */
export interface WireRow {
  source: string;
  reporter: string;
  visibleFrom: string;
  from: string;
  returnPath: string;
  to?: string;
  ipAddress: string;
  ipCountryCode?: string;
  rdns: string[];
  emails: number;
  category: string;
  date: string;
  dmarc: string;
  alignedSpf: string;
  alignedDkim: string;
  spf: string;
  dkims: { selector: string; domain: string; result: string }[];
  reportId?: string;
}

export const ORGANIZATIONS: Organization[] = [
  { id: 'acme', name: 'Acme Corporation', domains: ['acme.com', 'acme.co.uk', 'mail.acme.com'], policy: 'reject', scale: 60, platform: 'google', esps: ['sendgrid', 'mailchimp', 'salesforce', 'zendesk'] },
  { id: 'globex', name: 'Globex', domains: ['globex.com', 'globex.de'], policy: 'quarantine', scale: 35, platform: 'microsoft', esps: ['ses', 'mailchimp'] },
  { id: 'initech', name: 'Initech', domains: ['initech.io'], policy: 'none', scale: 20, platform: 'google', esps: ['sendgrid'] },
  { id: 'umbrella', name: 'Umbrella Health', domains: ['umbrella-health.org', 'umbrella.health'], policy: 'reject', scale: 25, platform: 'microsoft', esps: ['salesforce', 'ses'] },
  { id: 'stark', name: 'Stark Industries', domains: ['stark.example', 'starkindustries.net'], policy: 'quarantine', scale: 30, platform: 'selfhosted', esps: ['ses', 'zendesk'] },
  { id: 'wayne', name: 'Wayne Enterprises', domains: ['wayne-enterprises.com'], policy: 'reject', scale: 15, platform: 'microsoft', esps: ['mailchimp'] },
  { id: 'tyrell', name: 'Tyrell', domains: ['tyrell.ai', 'tyrell-corp.com'], policy: 'none', scale: 12, platform: 'google', esps: ['ses', 'sendgrid'] },
  { id: 'soylent', name: 'Soylent Foods', domains: ['soylent.food'], policy: 'quarantine', scale: 8, platform: 'google', esps: ['mailchimp', 'zendesk'] },
  { id: 'cyberdyne', name: 'Cyberdyne Systems', domains: ['cyberdyne.systems', 'skynet.cyberdyne.systems'], policy: 'reject', scale: 18, platform: 'selfhosted', esps: ['sendgrid', 'salesforce'] },
  { id: 'oscorp', name: 'Oscorp', domains: ['oscorp.com'], policy: 'none', scale: 6, platform: 'microsoft', esps: ['ses'] },
  { id: 'vandelay', name: 'Vandelay Industries', domains: ['vandelay.biz', 'vandelay-import.com'], policy: 'quarantine', scale: 10, platform: 'google', esps: ['mailchimp', 'salesforce'] },
  { id: 'hooli', name: 'Hooli', domains: ['hooli.xyz', 'hooli.com', 'nucleus.hooli.xyz'], policy: 'reject', scale: 40, platform: 'google', esps: ['ses', 'sendgrid', 'zendesk'] },
];

/** Key → organizations it may read. The demo key holds eleven organizations, the second key one other. */
export const DEFAULT_KEYS: Record<string, string[]> = {
  'demo-key-5f2c8e7a91d4b036': ORGANIZATIONS.filter((o) => o.id !== 'hooli').map((o) => o.id),
  'second-key-0b9d4e61a7c3f258': ['hooli'],
};

export const DAY_MS = 86_400_000;
/** History the server holds before `now`: about 13 months. */
export const HISTORY_DAYS = 396;

// ---------------------------------------------------------------------------------------------
// PRNG: a string hash for seeding and mulberry32 for the stream. Tiny, fast, deterministic.

export function hashSeed(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    const s = String(p) + '\u0000';
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  }
  return h >>> 0;
}

export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** [0, 1) */
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  weighted<T>(xs: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of xs) total += w;
    let r = this.next() * total;
    for (const [x, w] of xs) if ((r -= w) < 0) return x;
    return xs[xs.length - 1]![0];
  }
  hex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(this.next() * 16)];
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// Reporters: who sends the aggregate reports.

const REPORTERS: (readonly [string, number])[] = [
  ['google.com', 34],
  ['Outlook.com', 18],
  ['Yahoo', 11],
  ['Enterprise Outlook', 8],
  ['Mail.ru', 5],
  ['comcast.net', 4],
  ['web.de', 3],
  ['GMX', 3],
  ['Fastmail Pty Ltd', 3],
  ['AMAZON-SES', 3],
  ['zoho.com', 2],
  ['Orange', 2],
  ['seznam.cz', 2],
  ['Yandex', 2],
];

/** Outlook.com reports carry the recipient domain; the others almost never do. */
const OUTLOOK_TO = ['hotmail.com', 'outlook.com', 'live.com', 'msn.com', 'hotmail.co.uk', 'outlook.de'];
const CORP_TO = ['contoso.com', 'fabrikam.com', 'northwind.example', 'adventure-works.com'];

// ---------------------------------------------------------------------------------------------
// Sending sources.

interface Sent {
  source: string;
  ipAddress: string;
  ipCountryCode?: string;
  rdns: string[];
  returnPath: string;
  spf: string;
  dkims: { selector: string; domain: string; result: string }[];
  /** Forwarded mail whose receiver may override a failing DMARC verdict to `none`. */
  forwarded?: boolean;
  bulk?: number;
}

function v6group(r: Rng): string {
  return r.int(0, 0xffff).toString(16);
}

function orgLabel(domain: string): string {
  return domain.split('.').slice(-2)[0]!;
}

/** Relaxed alignment: same organizational domain (last two labels, good enough for test data). */
function aligned(a: string, b: string): boolean {
  const od = (d: string) => d.toLowerCase().split('.').slice(-2).join('.');
  return od(a) === od(b);
}

/** A failing or odd SPF result, as the receiving side might report it. */
function badSpf(r: Rng): string {
  return r.weighted([['fail', 30], ['softfail', 30], ['neutral', 10], ['none', 15], ['permerror', 6], ['temperror', 6], ['policy', 2], ['unknown', 1]] as const);
}

function googleWorkspace(r: Rng, from: string): Sent {
  const v6 = r.chance(0.35);
  const ip = v6 ? `2a00:1450:4864:20::${v6group(r)}` : `209.85.${r.int(128, 255)}.${r.int(1, 254)}`;
  const host = v6 ? `mail-${r.pick(['ej1', 'ed1', 'wm1', 'lj1'])}-x${v6group(r)}.google.com` : `mail-${r.pick(['wm1', 'wr1', 'lf1', 'pl1', 'qk1'])}-f${r.int(41, 199)}.google.com`;
  const dkims = [{ selector: 'google', domain: from, result: r.chance(0.98) ? 'pass' : r.pick(['fail', 'temperror']) }];
  if (r.chance(0.3)) dkims.push({ selector: '20230601', domain: `${orgLabel(from)}-com.20230601.gappssmtp.com`, result: 'pass' });
  return {
    source: 'Google Workspace',
    ipAddress: ip,
    ipCountryCode: r.pick(['US', 'US', 'US', 'IE', 'NL', 'BE']),
    rdns: [host],
    returnPath: from,
    spf: r.chance(0.97) ? 'pass' : r.pick(['softfail', 'temperror', 'neutral']),
    dkims,
    bulk: 6,
  };
}

function microsoft365(r: Rng, from: string): Sent {
  const v6 = r.chance(0.4);
  const region = r.pick(['eur05', 'eur04', 'nam11', 'nam12', 'apc01']);
  const ip = v6 ? `2a01:111:f403:${r.pick(['2612', '2613', 'c200', 'c40c'])}::${v6group(r)}` : `40.107.${r.int(0, 255)}.${r.int(1, 254)}`;
  const dkims = [{ selector: r.pick(['selector1', 'selector2']), domain: from, result: r.chance(0.97) ? 'pass' : 'fail' }];
  if (r.chance(0.2)) dkims.push({ selector: 'selector1', domain: `${orgLabel(from)}.onmicrosoft.com`, result: 'pass' });
  return {
    source: 'Microsoft 365',
    ipAddress: ip,
    ipCountryCode: r.pick(['US', 'IE', 'NL', 'GB', 'SG']),
    rdns: [`mail-${r.pick(['am6', 'db8', 'he1', 'bn8', 'sy4'])}${region}on${r.int(2000, 2199)}.outbound.protection.outlook.com`],
    returnPath: from,
    spf: r.chance(0.96) ? 'pass' : r.pick(['softfail', 'temperror', 'permerror']),
    dkims,
    bulk: 5,
  };
}

function selfHosted(r: Rng, from: string): Sent {
  const v6 = r.chance(0.5);
  const ip = v6 ? `2a01:4f8:${v6group(r)}:${v6group(r)}::2` : `88.99.${r.int(0, 255)}.${r.int(1, 254)}`;
  // Very rarely more than one PTR record, sometimes none (a badly configured server).
  const rdns = r.chance(0.04) ? [`mail.${from}`, `mx1.${from}`, `smtp.${from}`].slice(0, r.int(2, 3)) : r.chance(0.05) ? [] : [`mail.${from}`];
  return {
    source: 'Self-hosted',
    ipAddress: ip,
    ipCountryCode: 'DE',
    rdns,
    returnPath: from,
    spf: r.chance(0.9) ? 'pass' : r.pick(['softfail', 'neutral', 'temperror']),
    dkims: [{ selector: 'default', domain: from, result: r.weighted([['pass', 90], ['fail', 4], ['neutral', 2], ['temperror', 2], ['permerror', 2]] as const) }],
  };
}

function esp(r: Rng, name: EspName, from: string): Sent {
  switch (name) {
    case 'ses': {
      const customMailFrom = r.chance(0.5);
      return {
        source: 'Amazon SES',
        ipAddress: `54.240.${r.int(0, 63)}.${r.int(1, 254)}`,
        ipCountryCode: r.pick(['US', 'US', 'IE', 'DE']),
        rdns: [`a${r.int(8, 48)}-${r.int(1, 250)}.smtp-out.amazonses.com`],
        returnPath: customMailFrom ? `mail.${from}` : 'amazonses.com',
        spf: 'pass',
        dkims: [
          { selector: r.hex(32), domain: from, result: r.chance(0.95) ? 'pass' : 'fail' },
          { selector: r.hex(32), domain: 'amazonses.com', result: 'pass' },
        ],
        bulk: 4,
      };
    }
    case 'sendgrid':
      return {
        source: 'SendGrid',
        ipAddress: r.chance(0.5) ? `167.89.${r.int(0, 127)}.${r.int(1, 254)}` : `149.72.${r.int(0, 255)}.${r.int(1, 254)}`,
        ipCountryCode: 'US',
        rdns: [`o${r.int(1, 30)}.ptr${r.int(1000, 9999)}.${from}`],
        returnPath: `em${r.int(1000, 9999)}.${from}`,
        spf: r.chance(0.97) ? 'pass' : 'softfail',
        dkims: [
          { selector: 's1', domain: from, result: r.chance(0.96) ? 'pass' : 'fail' },
          { selector: 'smtpapi', domain: 'sendgrid.net', result: 'pass' },
        ],
        bulk: 8,
      };
    case 'mailchimp': {
      // Often only half set up: the ESP's own DKIM passes, the customer's signature may be missing.
      const dkims = [{ selector: 'k2', domain: 'mcsv.net', result: 'pass' }];
      if (r.chance(0.6)) dkims.push({ selector: 'k2', domain: from, result: 'pass' });
      if (r.chance(0.15)) dkims.push({ selector: 'k3', domain: 'mcdlv.net', result: r.pick(['pass', 'neutral']) });
      return {
        source: 'Mailchimp',
        ipAddress: `198.2.${r.int(128, 191)}.${r.int(1, 254)}`,
        ipCountryCode: 'US',
        rdns: [`mail${r.int(1, 250)}.${r.pick(['atl', 'sea', 'suw'])}${r.int(11, 191)}.mcsv.net`],
        returnPath: `bounce.mcsv.net`,
        spf: 'pass',
        dkims,
        bulk: 20,
      };
    }
    case 'salesforce':
      return {
        source: 'Salesforce',
        ipAddress: `13.110.${r.int(0, 255)}.${r.int(1, 254)}`,
        ipCountryCode: r.pick(['US', 'FR', 'JP']),
        rdns: [`smtp${r.int(1, 20)}-${r.pick(['ia4', 'ph2', 'hnd'])}-sp${r.int(1, 4)}.mta.salesforce.com`],
        returnPath: `${r.hex(6)}.bnc.salesforce.com`,
        spf: 'pass',
        dkims: r.chance(0.6) ? [{ selector: 'sf1', domain: from, result: 'pass' }] : [],
        bulk: 3,
      };
    case 'zendesk':
      return {
        source: 'Zendesk',
        ipAddress: `192.161.${r.int(144, 159)}.${r.int(1, 254)}`,
        ipCountryCode: 'US',
        rdns: [`out${r.int(1, 9)}.pod${r.int(10, 30)}.iad1.zdsys.com`],
        returnPath: `support.${from}`,
        spf: r.chance(0.9) ? 'pass' : 'neutral',
        dkims: [
          { selector: 'zendesk1', domain: from, result: r.chance(0.9) ? 'pass' : 'fail' },
          { selector: 'zendesk2', domain: 'zendesk.com', result: 'pass' },
        ],
      };
  }
}

const FORWARDERS = ['cs.university.edu', 'lists.debian.org', 'alumni.mit.edu', 'pobox.com', 'forwardemail.net'];

function forwarder(r: Rng, from: string): Sent {
  const fwd = r.pick(FORWARDERS);
  const srs = r.chance(0.5);
  // The original signature survives forwarding unless a list rewrote the body.
  const dkims = r.chance(0.9) ? [{ selector: r.pick(['google', 'selector1', 's1']), domain: from, result: r.chance(0.7) ? 'pass' : r.pick(['fail', 'neutral', 'policy']) }] : [];
  if (r.chance(0.3)) dkims.push({ selector: 'arc', domain: fwd, result: 'pass' });
  return {
    source: 'Forwarder',
    ipAddress: `${r.pick(['18.7', '128.112', '193.62', '147.75'])}.${r.int(0, 255)}.${r.int(1, 254)}`,
    ipCountryCode: r.pick(['US', 'US', 'DE', 'GB', 'FR']),
    rdns: [`mx${r.int(1, 4)}.${fwd}`],
    returnPath: srs ? fwd : from,
    spf: srs ? 'pass' : r.weighted([['fail', 30], ['softfail', 30], ['skipped', 10], ['neutral', 10], ['none', 10], ['temperror', 10]] as const),
    dkims,
    forwarded: true,
  };
}

const SPOOF_COUNTRIES = ['RU', 'CN', 'BR', 'VN', 'IN', 'NG', 'UA', 'ID', 'TR', 'US', 'KR'];

function spoofer(r: Rng, from: string): Sent {
  const v6 = r.chance(0.15);
  const a = r.int(1, 223);
  const b = r.int(0, 255);
  const c = r.int(0, 255);
  const d = r.int(1, 254);
  const ip = v6 ? `2001:${r.pick(['ee0', '16b8', '4860', 'da8'])}:${v6group(r)}:${v6group(r)}::${v6group(r)}` : `${a}.${b}.${c}.${d}`;
  const rdns = v6 || r.chance(0.7) ? [] : [r.pick([`${a}-${b}-${c}-${d}.dynamic.example-isp.net`, `static.${d}.${c}.${b}.${a}.clients.your-server.de`, `host-${a}-${b}.vnpt.vn`])];
  const forged = r.chance(0.3);
  return {
    source: 'Unknown',
    ipAddress: ip,
    // Geolocation is sometimes unknown for such addresses.
    ...(r.chance(0.85) ? { ipCountryCode: r.pick(SPOOF_COUNTRIES) } : {}),
    rdns,
    returnPath: r.chance(0.5) ? from : `${r.hex(8)}.${r.pick(['ru', 'cn', 'top', 'xyz', 'info'])}`,
    spf: badSpf(r),
    dkims: forged ? [{ selector: r.pick(['default', 'mail', 'dkim']), domain: r.chance(0.5) ? from : `${r.hex(6)}.com`, result: r.pick(['fail', 'permerror', 'neutral', 'none']) }] : [],
  };
}

// ---------------------------------------------------------------------------------------------

/** How many rows an (org, day) has by default: weekday-shaped noise around the org's scale. */
function defaultCount(org: Organization, dayIndex: number, r: Rng): number {
  const weekday = (dayIndex + 4) % 7; // 1970-01-01 was a Thursday
  const factor = weekday === 0 || weekday === 6 ? 0.55 : 1;
  return Math.max(0, Math.round(org.scale * factor * (0.6 + 0.8 * r.next())));
}

function emailsCount(r: Rng, bulk = 1): number {
  const base = r.weighted([[1, 40], [r.int(2, 3), 25], [r.int(4, 50), 22], [r.int(51, 1000), 10], [r.int(1001, 20000), 3]] as const);
  return Math.max(1, Math.round(base * (bulk > 1 && r.chance(0.5) ? r.int(1, bulk) : 1)));
}

function dateOf(dayStart: number, r: Rng): string {
  // Aggregate reports cover whole days, so many rows carry the day's first instant; a few carry
  // the last second or millisecond, so the inclusive bounds of a query matter.
  const x = r.next();
  if (x < 0.25) return new Date(dayStart).toISOString();
  if (x < 0.27) return new Date(dayStart + DAY_MS - 1000).toISOString();
  if (x < 0.28) return new Date(dayStart + DAY_MS - 1).toISOString();
  return new Date(dayStart + r.int(1, 86_399) * 1000).toISOString();
}

/** Reporters' quirks: some spell results their own way. */
function reporterSpelling(reporter: string, result: string): string {
  if (reporter === 'Yahoo' && result === 'temperror') return 'temperr';
  return result;
}

/**
 * The rows of one organization for one UTC day (dayIndex = days since 1970-01-01). Same
 * arguments, same rows. `rowsPerDay` fixes the count; otherwise it varies by org and weekday.
 */
export function generateDay(org: Organization, dayIndex: number, seed: number, rowsPerDay?: number): WireRow[] {
  const r = new Rng(hashSeed(seed, org.id, dayIndex));
  const count = rowsPerDay ?? defaultCount(org, dayIndex, r);
  const dayStart = dayIndex * DAY_MS;
  const rows: WireRow[] = new Array(count);
  const senders: (readonly [string, number])[] = [
    ['platform', 50],
    ...org.esps.map((e) => [e, 30 / org.esps.length] as const),
    ['forwarder', 8],
    ['spoofer', 12],
  ];
  for (let i = 0; i < count; i++) {
    const reporter = r.weighted(REPORTERS);
    const from = r.chance(0.7) ? org.domains[0]! : r.pick(org.domains);
    const kind = r.weighted(senders);
    const s: Sent =
      kind === 'platform'
        ? org.platform === 'google'
          ? googleWorkspace(r, from)
          : org.platform === 'microsoft'
            ? microsoft365(r, from)
            : selfHosted(r, from)
        : kind === 'forwarder'
          ? forwarder(r, from)
          : kind === 'spoofer'
            ? spoofer(r, from)
            : esp(r, kind as EspName, from);

    // Some receivers cannot make sense of a signature and say so in their own words.
    const dkims = s.dkims.map((d) => ({
      ...d,
      result: reporterSpelling(reporter, reporter === 'Mail.ru' && d.result === 'neutral' ? 'unknown' : d.result),
    }));
    const spf = reporterSpelling(reporter, s.spf);
    const alignedSpf = spf === 'pass' ? (aligned(s.returnPath, from) ? 'pass' : 'fail') : spf === 'temperror' || spf === 'temperr' ? spf : 'fail';
    const alignedDkim = dkims.some((d) => d.result === 'pass' && aligned(d.domain, from))
      ? 'pass'
      : dkims.length === 0
        ? reporter === 'comcast.net' || reporter === 'Orange' ? '' : 'none'
        : 'fail';
    const pass = alignedSpf === 'pass' || alignedDkim === 'pass';
    let dmarc: Disposition = pass ? 'none' : org.policy;
    if (!pass && s.forwarded && r.chance(0.4)) dmarc = 'none'; // local policy override for forwarded mail
    const category = categoryOf(alignedSpf, alignedDkim, dmarc);

    const to =
      (reporter === 'Outlook.com' ? r.chance(0.95) : reporter === 'Enterprise Outlook' ? r.chance(0.5) : r.chance(0.01))
        ? reporter === 'Outlook.com' ? r.pick(OUTLOOK_TO) : r.pick(CORP_TO)
        : undefined;
    const ipCountryCode = s.ipCountryCode !== undefined && r.chance(0.97) ? s.ipCountryCode : undefined;
    const reportId = reporter === 'google.com' || reporter === 'Yahoo' || reporter === 'Mail.ru' ? `${hashSeed(reporter, dayIndex, org.id)}${r.int(100, 999)}` : undefined;

    // Fields in the order of the spec; absent optional fields are `undefined`, which
    // JSON.stringify leaves out.
    const row: WireRow = {
      source: s.source,
      reporter,
      visibleFrom: from,
      returnPath: s.returnPath,
      to,
      ipAddress: s.ipAddress,
      ipCountryCode,
      rdns: s.rdns,
      emails: emailsCount(r, s.bulk),
      category,
      date: dateOf(dayStart, r),
      dmarc,
      alignedSpf,
      alignedDkim,
      spf,
      dkims,
      from,
      reportId,
    };
    rows[i] = row;
  }
  return rows;
}

export function findOrganization(id: string): Organization | undefined {
  return ORGANIZATIONS.find((o) => o.id === id);
}
