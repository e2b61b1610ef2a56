/** What a records panel shows (organization, range, source, initial search), and its key and title. */
import { revealBidi } from '../shared/bidi';
import type { Account, Organization } from '../accounts/accountStore';
import { organizationLabel } from '../accounts/accountStore';
import { rangeLabel } from '../records/dateInput';
import type { PanelIdentity } from '../shared/protocol';
import { termOf, type RowClass } from '../advice/vocabulary';

export interface PanelTarget {
  account: Account;
  org: Organization;
  start: Date;
  end: Date;
  /** Only this source's rows (Open Records on a source item). */
  source?: string;
  /** The search a newly opened panel starts with (Open Records on an IP item: the IP address). */
  initialSearch?: string;
  /** The row classes a newly opened panel filters to (a Health source: the classes of its verdict). */
  initialClasses?: readonly RowClass[];
}

/** Whether the panel shows rows of this organization between start and end (epoch ms, inclusive). */
export function showsRange(t: PanelTarget, accountId: string, organizationId: string, start: number, end: number): boolean {
  return t.account.id === accountId && t.org.id === organizationId && t.start.getTime() <= end && t.end.getTime() >= start;
}

export function identityOf(target: PanelTarget): PanelIdentity {
  return {
    accountId: target.account.id,
    organizationId: target.org.id,
    start: target.start.toISOString(),
    end: target.end.toISOString(),
    ...(target.source !== undefined ? { source: target.source } : {}),
  };
}

function identityKey(i: PanelIdentity): string {
  return JSON.stringify([i.accountId, i.organizationId, i.start, i.end, i.source ?? null]);
}

/** Panels are told apart by identity and initial search: an IP's panel is not its source's. */
export function panelKey(target: PanelTarget): string {
  const key = identityKey(identityOf(target));
  const classes = target.initialClasses?.length ? `\u0000${target.initialClasses.join(',')}` : '';
  return target.initialSearch ? `${key}\u0000${target.initialSearch}${classes}` : `${key}${classes}`;
}

export function titleOf(target: PanelTarget): string {
  const base = `${organizationLabel(target.org)} · ${rangeLabel(target.start, target.end)}`;
  const source = target.source !== undefined ? `${base} · ${target.source}` : base;
  const classes = target.initialClasses?.length ? target.initialClasses.map((c) => termOf(c)?.label ?? c).join(', ') : '';
  const title = classes ? `${source} · ${classes}` : source;
  // A source or a report's domain is report data: its bidirectional controls show as escapes.
  return revealBidi(target.initialSearch ? `${title} · ${target.initialSearch}` : title);
}

