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

/**
 * 'yes' when any DKIM signature's domain aligns with Header From, 'no' when none does, '' without
 * signatures. The signatures as their domains or as they are (no array made for each row).
 */
export function dkimAlignment(headerFrom: string, dkims: readonly (string | { readonly domain: string })[]): 'yes' | 'no' | '' {
  if (dkims.length === 0) return '';
  for (const d of dkims) if (domainsAlign(typeof d === 'string' ? d : d.domain, headerFrom)) return 'yes';
  return 'no';
}
