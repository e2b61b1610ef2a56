/**
 * DKIM domain alignment with the Header From domain, relaxed mode (RFC 7489 §3.1.1): two domains
 * align when their organizational domains are the same. The organizational domain comes from
 * the public suffix list, so `mail.example.co.uk` aligns with `example.co.uk` but `a.co.uk` does
 * not align with `b.co.uk`. Its ICANN section only (private domains are never allowed here):
 * tldts-icann, the tldts build without the private section, 48 KB smaller in the bundle, and
 * measured to give the same answer as tldts with `allowPrivateDomains: false` for every rule of
 * the list (28,518 names built from Debian's public_suffix_list.dat).
 */
import { getDomain } from 'tldts-icann';

const cache = new Map<string, string>();

/** The organizational domain of a domain name (lower-cased); the name itself when it has none. */
export function organizationalDomain(domain: string): string {
  // Keyed by the text as sent: a row's domains repeat across thousands of rows.
  let org = cache.get(domain);
  if (org === undefined) {
    const d = domain.trim().toLowerCase().replace(/\.$/, '');
    org = getDomain(d, { allowPrivateDomains: false }) ?? d;
    if (cache.size > 50_000) cache.clear();
    cache.set(domain, org);
  }
  return org;
}

/** Relaxed alignment of two domains; an empty domain aligns with nothing. */
export function domainsAlign(a: string, b: string): boolean {
  if (!a.trim() || !b.trim()) return false;
  return organizationalDomain(a) === organizationalDomain(b);
}

/** What the Aligned Signature column says of a row's DKIM signatures (DKIM_ALIGNMENT). */
export type DkimAlignment = 'passed' | 'present, failed' | 'none aligned' | '';

/**
 * Whether a signature's domain aligns with Header From, and whether one that aligns passed:
 * 'passed' when an aligned signature's result is pass, 'present, failed' when signatures align but
 * none of them passed (modified in transit, a wrong key), 'none aligned' when no signing domain
 * aligns, '' without signatures. ("yes" read as if DKIM were fine where the aligned one failed.)
 */
export function dkimAlignment(headerFrom: string, dkims: readonly { readonly domain: string; readonly result: string }[]): DkimAlignment {
  if (dkims.length === 0) return '';
  let aligned = false;
  for (const d of dkims) {
    if (!domainsAlign(d.domain, headerFrom)) continue;
    if (d.result.trim().toLowerCase() === 'pass') return 'passed';
    aligned = true;
  }
  return aligned ? 'present, failed' : 'none aligned';
}
