/**
 * The row rules: why a row's SPF side and its DKIM side pass or fail, and the row's class, from
 * the row alone (plus, for report files, the published alignment modes and the receiver's
 * override reasons). The README's "Why mail fails, and what to fix" states each rule; the words
 * are in vocabulary.ts. Pure: no `vscode`, no DOM; the host computes these once per row where
 * rows are encoded for the panel (src/records/tuple.ts) and where the tree sums them.
 *
 * Values are compared as sent (the API keeps `temperr` beside `temperror`); a value outside the
 * documented sets gives an *unknown* reason, never a guess and never an exception.
 */
import { organizationalDomain } from '../records/alignment';
import { FORWARDING_OVERRIDES, type DkimReason, type RowClass, type SpfReason } from './vocabulary';

/** The fields of a row the rules read (a DmarcRecord has them all). */
export interface AdviceRow {
  readonly source: string;
  readonly visibleFrom: string;
  readonly returnPath: string;
  readonly rdns: readonly string[];
  readonly spf: string;
  readonly alignedSpf: string;
  readonly alignedDkim: string;
  readonly dkims: readonly { readonly domain: string; readonly result: string }[];
}

/** What a report file adds: the published `adkim` / `aspf` (`s` is strict) and the receiver's override reasons. */
export interface RowContext {
  readonly adkim?: string;
  readonly aspf?: string;
  readonly overrides?: readonly string[];
}

const NO_CONTEXT: RowContext = Object.freeze({});

const ERRORS = new Set(['temperror', 'temperr', 'permerror']);
const SPF_NOT_ALLOWED = new Set(['fail', 'softfail', 'neutral']);
/** DKIM results that say a signature is there and did not verify. */
const DKIM_BROKEN = new Set(['fail', 'neutral', 'policy', 'none']);

const names = new Map<string, string>();
let lastName = '';
let lastNormal = '';

/**
 * An internationalised name as its A-labels (`bücher.example` → `xn--bcher-kva.example`), by the
 * WHATWG URL parser (in Node and in browsers alike); a name it refuses is compared as written.
 */
function aLabel(d: string): string {
  if (/[\s/\\:@?#%[\]]/.test(d)) return d;
  try {
    return new URL(`http://${d}/`).hostname;
  } catch {
    return d;
  }
}

/** A domain as DNS compares it: trimmed, lower case, no trailing dot, IDN as its A-label (xn--). */
export function normalDomain(domain: string): string {
  // Rows in a row share their Header From: the last answer first, before the map.
  if (domain === lastName) return lastNormal;
  let n = names.get(domain);
  if (n === undefined) {
    const d = domain.trim().toLowerCase().replace(/\.+$/, '');
    n = /^[\x00-\x7f]*$/.test(d) ? d : aLabel(d);
    if (names.size > 50_000) names.clear();
    names.set(domain, n);
  }
  lastName = domain;
  lastNormal = n;
  return n;
}

/**
 * Whether `domain` aligns with the Header From domain: relaxed (RFC 7489 §3.1, RFC 9989 §4.4)
 * when their organizational domains are the same, strict when the names are the same. An empty
 * name aligns with nothing.
 */
export function aligns(domain: string, headerFrom: string, strict = false): boolean {
  const a = normalDomain(domain);
  const b = normalDomain(headerFrom);
  if (!a || !b) return false;
  return strict ? a === b : a === b || organizationalDomain(a) === organizationalDomain(b);
}

export function spfReason(row: AdviceRow, ctx: RowContext = NO_CONTEXT): SpfReason {
  if (row.alignedSpf === 'pass') return 'spf-aligned-pass';
  const spf = row.spf;
  if (spf === 'pass') return 'spf-unaligned-pass';
  if (SPF_NOT_ALLOWED.has(spf)) return aligns(row.returnPath, row.visibleFrom, ctx.aspf === 's') ? 'spf-not-allowed-own' : 'spf-not-allowed-other';
  if (spf === 'none') return 'spf-none';
  if (ERRORS.has(spf)) return 'spf-error';
  return 'spf-unknown';
}

export function dkimReason(row: AdviceRow, ctx: RowContext = NO_CONTEXT): DkimReason {
  if (row.alignedDkim === 'pass') return 'dkim-aligned-pass';
  const sigs = row.dkims;
  if (sigs.length === 0) return ERRORS.has(row.alignedDkim) ? 'dkim-error' : 'dkim-none';
  const strict = ctx.adkim === 's';
  let alignedError = false;
  let otherPass = false;
  let otherBroken = false;
  let otherError = false;
  for (let i = 0; i < sigs.length; i++) {
    const { domain, result } = sigs[i]!;
    // A signature the receiver did not count as aligned although its d= aligns by our reading
    // (a strict policy we do not know of) is another domain's, as the receiver decided.
    const mine = result !== 'pass' && aligns(domain, row.visibleFrom, strict);
    if (mine) {
      if (DKIM_BROKEN.has(result)) return 'dkim-aligned-fails';
      if (ERRORS.has(result)) alignedError = true;
    } else if (result === 'pass') otherPass = true;
    else if (DKIM_BROKEN.has(result)) otherBroken = true;
    else if (ERRORS.has(result)) otherError = true;
  }
  if (alignedError) return 'dkim-error';
  if (otherPass) return 'dkim-other-domain';
  if (otherBroken) return 'dkim-other-fails';
  if (otherError) return 'dkim-error';
  return 'dkim-unknown';
}

/** Source names (whole words, any case) of mailbox providers and forwarders, whose IPs relay other people's mail. */
const RELAY_SOURCE =
  /(^|[^a-z0-9])(forwarder|forwarding|mailing list|google|gmail|microsoft|outlook|hotmail|office 365|yahoo|aol|icloud|apple|proton|fastmail|zoho|gmx|web\.de|mail\.ru|yandex|comcast|pobox)([^a-z0-9]|$)/i;
/** Organizational domains of mailbox providers' and forwarders' reverse DNS names. */
const RELAY_DOMAINS = new Set([
  'google.com', 'googlemail.com', '1e100.net', 'outlook.com', 'hotmail.com', 'yahoo.com', 'yahoodns.net', 'aol.com',
  'icloud.com', 'me.com', 'protonmail.ch', 'messagingengine.com', 'zoho.com', 'zohomail.com', 'gmx.net', 'web.de',
  'mail.ru', 'yandex.net', 'comcast.net', 'pobox.com', 'forwardemail.net',
]);
/** Per source name, whether it names a relay (a handful of names, on every failing row). */
const relaySources = new Map<string, boolean>();
/** A reverse DNS label that names a list server: `lists.example.org`, `mailman.example.org`. */
const LIST_LABEL = /(^|\.)(lists?|mailman|listserv|sympa)\./;

/**
 * Whether the row's IP belongs to a mailbox provider or a list server, which relays mail first
 * authenticated elsewhere: by its source name, or by a reverse DNS name (the provider's domain,
 * or a `lists.` / `mailman.` host).
 */
export function isRelay(row: Pick<AdviceRow, 'source' | 'rdns'>): boolean {
  let bySource = relaySources.get(row.source);
  if (bySource === undefined) {
    if (relaySources.size > 10_000) relaySources.clear();
    relaySources.set(row.source, (bySource = RELAY_SOURCE.test(row.source)));
  }
  if (bySource) return true;
  for (const name of row.rdns) {
    const n = normalDomain(name);
    if (LIST_LABEL.test(n) || RELAY_DOMAINS.has(organizationalDomain(n))) return true;
  }
  return false;
}

/**
 * Whether SPF passed for the relay's own domain: a forwarder that rewrites the Return-Path to
 * its own (SRS) passes SPF as itself, and its reverse DNS names are under that domain.
 */
function rewroteReturnPath(row: AdviceRow): boolean {
  if (row.spf !== 'pass') return false;
  const rp = normalDomain(row.returnPath);
  if (!rp) return false;
  const org = organizationalDomain(rp);
  for (const name of row.rdns) {
    const n = normalDomain(name);
    if (n && organizationalDomain(n) === org) return true;
  }
  return false;
}

/** Whether a DKIM signature or SPF passed at all, aligned or not. */
function authenticates(row: AdviceRow): boolean {
  if (row.spf === 'pass') return true;
  for (const d of row.dkims) if (d.result === 'pass') return true;
  return false;
}

/**
 * The row's class: the first that fits of Compliant, Forwarded, Needs fixing, Unauthenticated.
 * `dkim` is the row's DKIM reason when the caller has it already.
 */
export function rowClass(row: AdviceRow, ctx: RowContext = NO_CONTEXT, dkim?: DkimReason): RowClass {
  if (row.alignedSpf === 'pass' || row.alignedDkim === 'pass') return 'compliant';
  if (ctx.overrides?.some((o) => FORWARDING_OVERRIDES.has(o))) return 'forwarded';
  if (((dkim ?? dkimReason(row, ctx)) === 'dkim-aligned-fails' || rewroteReturnPath(row)) && isRelay(row)) return 'forwarded';
  return authenticates(row) ? 'needs-fixing' : 'unauthenticated';
}

/** All three at once, the DKIM reason computed once. */
export function adviceOf(row: AdviceRow, ctx: RowContext = NO_CONTEXT): { spf: SpfReason; dkim: DkimReason; cls: RowClass } {
  const dkim = dkimReason(row, ctx);
  return { spf: spfReason(row, ctx), dkim, cls: rowClass(row, ctx, dkim) };
}
