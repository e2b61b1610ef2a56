/**
 * The groups table as the host exports it (JSON, CSV), DOM-free: every level-0 group in the
 * table's order, each followed by its subgroups when a second field is chosen, with email-weighted
 * rates as fractions, the disposition, the verdict (when judged) and the first and last dates.
 */
import type { GroupExportRow } from '../../../src/shared/protocol';
import { termOf } from '../../../src/advice/vocabulary';
import { computeGroups, sortGroups, type GroupSort, type GroupStats, type Judge } from './groups';
import type { FieldIndex, Facts } from './fieldTypes';

function exportRow(g: GroupStats, total: number, group: string, subgroup?: string): GroupExportRow {
  return {
    group,
    ...(subgroup !== undefined ? { subgroup } : {}),
    rows: g.rows,
    emails: g.emails,
    share: total > 0 ? g.emails / total : null,
    dmarcPass: g.emails > 0 ? g.passEmails / g.emails : null,
    alignedSpf: g.emails > 0 ? g.spfEmails / g.emails : null,
    alignedDkim: g.emails > 0 ? g.dkimEmails / g.emails : null,
    ...(g.verdict ? { verdict: termOf(g.verdict)!.label } : {}),
    delivered: g.disposition[0]!,
    quarantined: g.disposition[1]!,
    rejected: g.disposition[2]!,
    first: Number.isFinite(g.firstMs) ? new Date(g.firstMs).toISOString() : '',
    last: Number.isFinite(g.lastMs) ? new Date(g.lastMs).toISOString() : '',
  };
}

export function groupExportRows(rows: Uint32Array, facts: Facts, field: FieldIndex, then: FieldIndex | undefined, sort: { by: GroupSort; descending: boolean }, judge?: Judge): GroupExportRow[] {
  const top = computeGroups(rows, facts, field, undefined, judge);
  const out: GroupExportRow[] = [];
  for (const g of sortGroups(top.groups, sort.by, sort.descending)) {
    out.push(exportRow(g, top.emails, g.key));
    if (then) for (const c of sortGroups(computeGroups(rows, facts, then, { field, code: g.code }, judge).groups, sort.by, sort.descending)) out.push(exportRow(c, top.emails, g.key, c.key));
  }
  return out;
}
