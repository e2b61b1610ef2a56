import type { Account, Organization } from '../accounts/accountStore';
import type { Bucket } from '../records/buckets';
import type { SourceSummary, Summary } from '../records/summary';
import type { ImportError } from '../import/types';
import type { LibraryLocation } from '../import/library';
import type { DomainReadiness, PeriodHealth, SourceAdvice } from '../advice/health';
import type { RowClass } from '../advice/vocabulary';
import type { SourceMark } from '../advice/marks';
import type { Change } from '../advice/compare';
import type { StoredFinding, WatchFailure } from '../watch/findingStore';

/**
 * Plain tree nodes: the model (src/records) does the I/O, the provider maps these to TreeItems.
 * Commands invoked from the tree receive one of these as their first argument.
 */
export type Node =
  | { kind: 'account'; account: Account }
  | { kind: 'org'; account: Account; org: Organization }
  | { kind: 'bucket'; account: Account; org: Organization; bucket: Bucket }
  | { kind: 'group'; account: Account; org: Organization; bucket: Bucket; label: string; children: Bucket[] }
  | { kind: 'summary'; bucket: Bucket; summary: Summary; note?: string; change?: Change }
  /** `advice`: the source's verdict, mix and fix in the period (healthNodes.ts). */
  /** `change`: against the previous period of equal length, once its rows are in (periodCompare.ts); `ipChanges` the same per IP. */
  | { kind: 'source'; account: Account; org: Organization; bucket: Bucket; source: SourceSummary; advice?: SourceAdvice; change?: Change; ipChanges?: () => ReadonlyMap<string, Change> }
  | { kind: 'ip'; account: Account; org: Organization; bucket: Bucket; source: SourceSummary; ip: SourceSummary['ips'][number]; advice?: SourceAdvice; change?: Change }
  /** The IPs of a source past the ones listed (sourceIps.ts): how many, and their emails. */
  | { kind: 'moreIps'; account: Account; org: Organization; bucket: Bucket; source: SourceSummary; count: number; emails: number }
  | { kind: 'message'; label: string; detail?: string; icon?: string }
  /** Several messages about a range's rows, folded (notices.ts). */
  | { kind: 'notices'; account: Account; org: Organization; bucket: Bucket; label: string; detail: string; items: NodeOf<'message'>[] }
  /** A period's Health (healthNodes.ts): its readiness; its Header From domains, then its sources by verdict. */
  | { kind: 'health'; account: Account; org: Organization; bucket: Bucket; health: PeriodHealth; sources: readonly SourceSummary[] }
  | { kind: 'healthDomain'; account: Account; org: Organization; bucket: Bucket; domain: DomainReadiness }
  | { kind: 'healthClass'; account: Account; org: Organization; bucket: Bucket; cls: RowClass; advice: readonly SourceAdvice[]; sources: readonly SourceSummary[] }
  | { kind: 'healthSource'; account: Account; org: Organization; bucket: Bucket; advice: SourceAdvice; source: SourceSummary | undefined }
  /** Under Health, when the organization has marks (markNodes.ts): its marked sources, then each one. */
  | { kind: 'marks'; account: Account; org: Organization; bucket: Bucket; marks: readonly (readonly [string, SourceMark])[] }
  | { kind: 'markedSource'; account: Account; org: Organization; bucket: Bucket; source: string; mark: SourceMark }
  | { kind: 'error'; account: Account; org: Organization; bucket: Bucket; message: string; forbidden: boolean }
  /** The Report Files section: policy domains (as `org` nodes of the report-files account), then the locations. */
  /** The watch's Needs Attention item (attentionNodes.ts), its findings and the checks that failed. */
  | { kind: 'attention' }
  /** Opens the Overview of all organizations (src/overview), at the top when there are two or more. */
  | { kind: 'overviewLink'; count: number }
  | { kind: 'finding'; finding: StoredFinding }
  | { kind: 'watchFailure'; failure: WatchFailure }
  | { kind: 'reports' }
  | { kind: 'location'; location: LibraryLocation }
  | { kind: 'fileError'; location: LibraryLocation; error: ImportError };

export type NodeOf<K extends Node['kind']> = Extract<Node, { kind: K }>;
