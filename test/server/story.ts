/**
 * The demo's week-over-week story: what changed in the last days before the server's `now`, so
 * that comparing the last 7 days with the 7 before (issue 42) has something to find. On with the
 * server's `story` option (`--story` on the CLI, which `npm run demo` passes); off by default, so
 * the tests' figures stay those of data.ts alone. Day `nowDay` is the server's today; "age" below
 * is `nowDay - day` (0 today, 1 yesterday, …). Deterministic per (seed, organization, day, nowDay).
 *
 *  - acme, a new failing sender: Brevo (formerly Sendinblue), never seen before, sends in the last
 *    2 days (age 0–1: yesterday is the watch's last full day, so the watch finds it new whenever it
 *    runs today), 3–5 rows a day, about 400 emails yesterday and about 900 today. Set up with its defaults it signs only as itself (d=sendinblue.com, pass) and SPF
 *    passes for its own bounce domain: neither aligns, DMARC fails, acme's p=reject rejects it.
 *  - globex, a source whose pass rate drops: its Amazon SES sends 200–1,500 emails a day with
 *    SES's own MAIL FROM (amazonses.com, on every day of the story), so DMARC rests on the DKIM signature of globex's
 *    domain, which passes every time until 7 days ago. From 6 days ago (age 0–6, the whole last
 *    7 days) a key rotation went wrong: each day, rows carrying the new selector with a failing
 *    signature hold at least 85% of the source's emails, so its pass rate falls from 100% to
 *    under 15% (mostly a few percent) and its mail is quarantined (globex has p=quarantine).
 *  - initech, a volume spike: the last 2 days (age 0–1) have 4× the day's usual rows (three more
 *    draws of the same mix of senders, dated at the day's first instant), their emails scaled so
 *    each day holds at least 4× the average daily emails of the 14 days before (age 2–15).
 *  - soylent, reports stopped: no rows at all in the last 4 days (age 0–3).
 *
 * Rows the story adds or rewrites keep the rules of data.ts (its `rowOf` and `judge`).
 */
import { categoryOf } from '../../src/records/category';
import { DAY_MS, generateDay, judge, rowOf, type Organization, type WireRow } from './data';
import { hashSeed, Rng } from './rng';
import { brevo, esp, REPORTERS } from './senders';

export const STORY = {
  newSender: { org: 'acme', source: 'Brevo', days: 2 },
  passDrop: { org: 'globex', source: 'Amazon SES', days: 7, failShare: 0.85, returnPath: 'amazonses.com', minEmails: 200, maxEmails: 1500 },
  spike: { org: 'initech', days: 2, factor: 4, baselineDays: 14 },
  stopped: { org: 'soylent', days: 4 },
} as const;

/** The rows of `org` on `dayIndex` with the story told relative to `nowDay`. */
export function storyDay(org: Organization, dayIndex: number, nowDay: number, seed: number, rowsPerDay?: number): WireRow[] {
  const age = nowDay - dayIndex;
  const r = new Rng(hashSeed(seed, org.id, dayIndex, 'story'));
  switch (org.id) {
    case STORY.stopped.org:
      return age < STORY.stopped.days ? [] : generateDay(org, dayIndex, seed, rowsPerDay);
    case STORY.newSender.org: {
      const rows = generateDay(org, dayIndex, seed, rowsPerDay);
      return age < STORY.newSender.days ? [...rows, ...newSenderRows(org, dayIndex, STORY.newSender.days - 1 - age, r)] : rows;
    }
    case STORY.passDrop.org:
      return passDropDay(org, withSes(org, dayIndex, generateDay(org, dayIndex, seed, rowsPerDay), r), age < STORY.passDrop.days, r);
    case STORY.spike.org:
      return age < STORY.spike.days ? spikeDay(org, dayIndex, nowDay, seed, rowsPerDay) : generateDay(org, dayIndex, seed, rowsPerDay);
    default:
      return generateDay(org, dayIndex, seed, rowsPerDay);
  }
}

/** Brevo's rows on the `k`-th day it sends (0 first): ~400 emails, 500 more each day, ±15%. */
function newSenderRows(org: Organization, dayIndex: number, k: number, r: Rng): WireRow[] {
  const total = Math.round((400 + 500 * k) * (0.85 + 0.3 * r.next()));
  const weights = Array.from({ length: r.int(3, 5) }, () => 0.2 + r.next());
  const sum = weights.reduce((a, b) => a + b, 0);
  let left = total;
  return weights.map((w, i) => {
    const emails = i === weights.length - 1 ? Math.max(1, left) : Math.max(1, Math.round((total * w) / sum));
    left -= emails;
    const reporter = r.weighted(REPORTERS);
    const from = r.chance(0.7) ? org.domains[0]! : r.pick(org.domains);
    return rowOf(org, dayIndex, r, reporter, from, brevo(r), emails);
  });
}

/**
 * `rows` with Amazon SES sending `minEmails` to `maxEmails` that day: a row of the difference
 * added when the generator gave it fewer (on some days it gives none), its rows scaled down when
 * it gave more (up to 77,000 on a day). The watch judges the last full day against the 14 before,
 * a source with fewer than 100 emails not at all, and those 14 days hold 5 of the broken ones: a
 * huge broken day among them weighed more than the days that passed. Without this the drop was
 * not Amazon SES's on 45% of the days of a year, and the watch's test failed on those days.
 */
function withSes(org: Organization, dayIndex: number, rows: WireRow[], r: Rng): WireRow[] {
  const { source, minEmails, maxEmails } = STORY.passDrop;
  const have = emailsOf(rows.filter((row) => row.source === source));
  if (have > maxEmails) return rows.map((row) => (row.source === source ? { ...row, emails: Math.max(1, Math.floor((row.emails * maxEmails) / have)) } : row));
  if (have >= minEmails) return rows;
  const from = org.domains[0]!;
  return [...rows, rowOf(org, dayIndex, r, r.weighted(REPORTERS), from, esp(r, 'ses', from), minEmails - have)];
}

/** The DKIM selector globex's SES signs with since the rotation, whose key is not in DNS. */
const ROTATED_SELECTOR = 'rotated2025a7kq';

/**
 * globex's day with its Amazon SES rows on SES's own MAIL FROM and, once the rotation broke
 * (`broken`), rows taken in a random order carrying the rotated selector (a failing signature)
 * until they hold `failShare` of the source's emails that day: the rest, at most 15%, still pass.
 */
function passDropDay(org: Organization, rows: WireRow[], broken: boolean, r: Rng): WireRow[] {
  const { source, failShare } = STORY.passDrop;
  const ses = rows.map((row, i) => [row, i] as const).filter(([row]) => row.source === source);
  const total = emailsOf(ses.map(([row]) => row));
  let failed = 0;
  const rotated = new Set<number>();
  for (const [row, i] of broken ? shuffled(ses, r) : []) {
    if (failed >= failShare * total) break;
    rotated.add(i);
    failed += row.emails;
  }
  return rows.map((row, i) => (row.source === source ? sesRow(org, row, rotated.has(i)) : row));
}

function shuffled<T>(xs: readonly T[], r: Rng): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * An Amazon SES row of globex on SES's MAIL FROM: its own domain's signature fails under the
 * rotated selector when `rotated`, and passes otherwise (the generator's rare failures of that
 * signature, kept, could make a week with one large failing row look like the drop itself).
 */
function sesRow(org: Organization, row: WireRow, rotated: boolean): WireRow {
  const from = row.visibleFrom;
  const dkims = row.dkims.map((d) => (d.domain !== from ? d : rotated ? { selector: ROTATED_SELECTOR, domain: from, result: 'fail' } : { ...d, result: 'pass' }));
  const returnPath = STORY.passDrop.returnPath;
  const { alignedSpf, alignedDkim, pass } = judge(row.reporter, from, row.spf, returnPath, dkims);
  const dmarc = pass ? 'none' : org.policy;
  return { ...row, returnPath, category: categoryOf(alignedSpf, alignedDkim, dmarc), dmarc, alignedSpf, alignedDkim, dkims };
}

const emailsOf = (rows: readonly WireRow[]) => rows.reduce((n, row) => n + row.emails, 0);

/** A spike day of initech: its own rows, then `factor - 1` more draws scaled to the emails wanted. */
function spikeDay(org: Organization, dayIndex: number, nowDay: number, seed: number, rowsPerDay?: number): WireRow[] {
  const { factor, days, baselineDays } = STORY.spike;
  const rows = generateDay(org, dayIndex, seed, rowsPerDay);
  let before = 0;
  for (let d = nowDay - days - baselineDays + 1; d <= nowDay - days; d++) before += emailsOf(generateDay(org, d, seed, rowsPerDay));
  const baseline = before / baselineDays;
  const extra: WireRow[] = [];
  for (let k = 1; k < factor; k++) extra.push(...generateDay(org, dayIndex, hashSeed(seed, 'spike', k), rows.length));
  const want = Math.max(factor * baseline - emailsOf(rows), (factor - 1) * baseline);
  const scale = want / Math.max(1, emailsOf(extra));
  // The extra rows carry the day's first instant, as reports covering a whole day often do, so the
  // spike shows on today from its first hour rather than growing with the server's clock.
  const date = new Date(dayIndex * DAY_MS).toISOString();
  return [...rows, ...extra.map((row) => ({ ...row, emails: Math.max(1, Math.round(row.emails * scale)), date }))];
}

/** What the story shows, one line per organization, with the dates it starts (for the CLI and the demo). */
export function storyLines(now: Date): string[] {
  const nowDay = Math.floor(now.getTime() / DAY_MS);
  const day = (age: number) => new Date((nowDay - age) * DAY_MS).toISOString().slice(0, 10);
  const { newSender, passDrop, spike, stopped } = STORY;
  return [
    `${newSender.org.padEnd(8)} a new sender, ${newSender.source}, failing DMARC since ${day(newSender.days - 1)} (the last ${newSender.days} days)`,
    `${passDrop.org.padEnd(8)} ${passDrop.source}'s DKIM broken by a key rotation since ${day(passDrop.days - 1)}: its pass rate falls from 100% to under 15%`,
    `${spike.org.padEnd(8)} a volume spike: about ${spike.factor}x the usual emails on ${day(spike.days - 1)} and ${day(0)}`,
    `${stopped.org.padEnd(8)} reports stopped: no rows since ${day(stopped.days - 1)} (the last ${stopped.days} days)`,
  ];
}
