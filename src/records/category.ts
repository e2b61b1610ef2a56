/**
 * The one rule that names a row's category, shared by the report-file importer (src/import) and
 * the local API server's sample data (test/server/data.ts), so both read a row the same way.
 *
 *   DMARC passes (aligned SPF or aligned DKIM is `pass`)  → authorized
 *   else disposition reject                               → rejected
 *   else disposition quarantine                           → quarantined
 *   else (delivered although DMARC failed: p=none, pct, a local override)
 *                                                         → partially-authorized
 */
import type { Category } from '../api/types';

export function categoryOf(alignedSpf: string, alignedDkim: string, dmarc: string): Category {
  if (alignedSpf === 'pass' || alignedDkim === 'pass') return 'authorized';
  if (dmarc === 'reject') return 'rejected';
  if (dmarc === 'quarantine') return 'quarantined';
  return 'partially-authorized';
}
