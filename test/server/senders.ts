/**
 * Who sends mail as an organization's domains in the local API server's data, and what each
 * kind of sender looks like in a DMARC row: the organization's own platform, its ESPs,
 * forwarders and spoofers (generateDay in data.ts picks among them). Also who reports.
 */
import { Rng } from './rng';

export type EspName = 'ses' | 'sendgrid' | 'mailchimp' | 'salesforce' | 'zendesk';

// ---------------------------------------------------------------------------------------------
// Reporters: who sends the aggregate reports.

export const REPORTERS: (readonly [string, number])[] = [
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
export const OUTLOOK_TO = ['hotmail.com', 'outlook.com', 'live.com', 'msn.com', 'hotmail.co.uk', 'outlook.de'];
export const CORP_TO = ['contoso.com', 'fabrikam.com', 'northwind.example', 'adventure-works.com'];

// ---------------------------------------------------------------------------------------------
// Sending sources.

export interface Sent {
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
export function aligned(a: string, b: string): boolean {
  const od = (d: string) => d.toLowerCase().split('.').slice(-2).join('.');
  return od(a) === od(b);
}

/** A failing or odd SPF result, as the receiving side might report it. */
function badSpf(r: Rng): string {
  return r.weighted([['fail', 30], ['softfail', 30], ['neutral', 10], ['none', 15], ['permerror', 6], ['temperror', 6], ['policy', 2], ['unknown', 1]] as const);
}

export function googleWorkspace(r: Rng, from: string): Sent {
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

export function microsoft365(r: Rng, from: string): Sent {
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

export function selfHosted(r: Rng, from: string): Sent {
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

export function esp(r: Rng, name: EspName, from: string): Sent {
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

/**
 * Brevo (formerly Sendinblue) as an account set up with its defaults: it signs only as itself
 * (`d=sendinblue.com`) and bounces to its own Return-Path domain, so SPF and DKIM pass but neither
 * aligns with the Header From. No organization uses it; the demo's story (story.ts) brings it in.
 */
export function brevo(r: Rng): Sent {
  const [a, b] = r.pick([[1, 179], [185, 41], [77, 32]] as const);
  const c = a === 1 ? r.int(112, 127) : a === 185 ? r.int(28, 31) : r.int(148, 151);
  const d = r.int(1, 254);
  return {
    source: 'Brevo',
    ipAddress: `${a}.${b}.${c}.${d}`,
    ipCountryCode: r.pick(['FR', 'FR', 'FR', 'DE']),
    rdns: [`${a}-${b}-${c}-${d}.smtp-out.sendinblue.com`],
    returnPath: `bounces.sendinblue.com`,
    spf: 'pass',
    dkims: [{ selector: 'mail', domain: 'sendinblue.com', result: 'pass' }],
  };
}

const FORWARDERS = ['cs.university.edu', 'lists.debian.org', 'alumni.mit.edu', 'pobox.com', 'forwardemail.net'];

export function forwarder(r: Rng, from: string): Sent {
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

export function spoofer(r: Rng, from: string): Sent {
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
