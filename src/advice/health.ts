/**
 * A period's health from its records: every source with its mix (emails per class), verdict and
 * fix, and readiness for the organization and each Header From domain (tally.ts, which the
 * panel's Advice feeds from its columns). What the tree's Health item shows. One pass over the
 * rows; the row rules (reasons.ts) run here, on the host, as where rows are encoded for the panel.
 */
import type { DmarcRecord } from '../api/types';
import { overridesOf } from './overrides';
import { adviceOf, type RowContext } from './reasons';
import { AdviceTally, dispositionCode, type PeriodHealth, type TallyOptions } from './tally';
import { CLASS_INDEX } from './verdict';

export type { DomainReadiness, PeriodHealth, Published, SourceAdvice } from './tally';
export type HealthOptions = TallyOptions;

export function periodHealth(records: readonly DmarcRecord[], opts: HealthOptions): PeriodHealth {
  const tally = new AdviceTally();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const policy = opts.policyOf?.(r.visibleFrom);
    const overrides = r.raw ? overridesOf(r) : undefined;
    const ctx: RowContext | undefined =
      policy || overrides?.length ? { adkim: policy?.adkim, aspf: policy?.aspf, overrides } : undefined;
    const a = adviceOf(r, ctx);
    tally.add(r.source, r.ipAddress, r.visibleFrom, r.returnPath, CLASS_INDEX[a.cls], a.spf, a.dkim, dispositionCode(r.dmarc), r.emails, () => r.dkims);
  }
  return tally.finish(opts);
}
