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
import { hashSeed, Rng } from './rng';
import { aligned, CORP_TO, esp, forwarder, googleWorkspace, microsoft365, OUTLOOK_TO, REPORTERS, selfHosted, spoofer, type EspName, type Sent } from './senders';

export { hashSeed, Rng };

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

/** A row's aligned SPF and DKIM results and whether DMARC passes, by the rules above. */
export function judge(reporter: string, from: string, spf: string, returnPath: string, dkims: readonly WireRow['dkims'][number][]): { alignedSpf: string; alignedDkim: string; pass: boolean } {
  const alignedSpf = spf === 'pass' ? (aligned(returnPath, from) ? 'pass' : 'fail') : spf === 'temperror' || spf === 'temperr' ? spf : 'fail';
  const alignedDkim = dkims.some((d) => d.result === 'pass' && aligned(d.domain, from))
    ? 'pass'
    : dkims.length === 0
      ? reporter === 'comcast.net' || reporter === 'Orange' ? '' : 'none'
      : 'fail';
  return { alignedSpf, alignedDkim, pass: alignedSpf === 'pass' || alignedDkim === 'pass' };
}

/**
 * One row of `org` on `dayIndex` for what sender `s` sent as `from`, reported by `reporter`: the
 * reporter's spellings, the verdict, the fields only some reporters fill, the emails (`emails`,
 * or drawn from `r`) and the date. generateDay and the story (story.ts) both make rows here.
 */
export function rowOf(org: Organization, dayIndex: number, r: Rng, reporter: string, from: string, s: Sent, emails?: number): WireRow {
  // Some receivers cannot make sense of a signature and say so in their own words.
  const dkims = s.dkims.map((d) => ({
    ...d,
    result: reporterSpelling(reporter, reporter === 'Mail.ru' && d.result === 'neutral' ? 'unknown' : d.result),
  }));
  const spf = reporterSpelling(reporter, s.spf);
  const { alignedSpf, alignedDkim, pass } = judge(reporter, from, spf, s.returnPath, dkims);
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
  return {
    source: s.source,
    reporter,
    visibleFrom: from,
    returnPath: s.returnPath,
    to,
    ipAddress: s.ipAddress,
    ipCountryCode,
    rdns: s.rdns,
    emails: emails ?? emailsCount(r, s.bulk),
    category,
    date: dateOf(dayIndex * DAY_MS, r),
    dmarc,
    alignedSpf,
    alignedDkim,
    spf,
    dkims,
    from,
    reportId,
  };
}

/**
 * The rows of one organization for one UTC day (dayIndex = days since 1970-01-01). Same
 * arguments, same rows. `rowsPerDay` fixes the count; otherwise it varies by org and weekday.
 */
export function generateDay(org: Organization, dayIndex: number, seed: number, rowsPerDay?: number): WireRow[] {
  const r = new Rng(hashSeed(seed, org.id, dayIndex));
  const count = rowsPerDay ?? defaultCount(org, dayIndex, r);
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
    rows[i] = rowOf(org, dayIndex, r, reporter, from, s);
  }
  return rows;
}

export function findOrganization(id: string): Organization | undefined {
  return ORGANIZATIONS.find((o) => o.id === id);
}

/** The organization behind an id: one of ORGANIZATIONS, or a generated one for any other id. */
export function organizationFor(id: string): Organization {
  const known = ORGANIZATIONS.find((o) => o.id === id);
  if (known) return known;
  const r = new Rng(hashSeed('org', id));
  const slug = id.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'org';
  return {
    id,
    name: id,
    domains: [`${slug}.example`, `mail.${slug}.example`],
    policy: r.pick(['none', 'quarantine', 'reject'] as const),
    scale: 20,
    platform: r.pick(['google', 'microsoft', 'selfhosted'] as const),
    esps: ['ses', 'sendgrid', 'mailchimp'],
  };
}
