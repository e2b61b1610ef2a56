import * as vscode from 'vscode';
import type { Account, AccountStore, Organization } from '../accounts/accountStore';
import { organizationLabel } from '../accounts/accountStore';
import { describeApiError, toApiError } from '../api';
import { buildBuckets, type Bucket } from '../records/buckets';
import type { RangeData, RecordScope, RecordStore } from '../records/recordStore';
import type { SourceSummary, Summary } from '../records/summary';
import { SummaryMemo } from '../records/summaryMemo';
import { perfMark } from '../perf';
import { SummaryText } from '../records/summaryText';
import type { DmarcRecord } from '../api/types';
import { Commands } from '../commands';
import type { Node, NodeOf } from './nodes';
import { RefreshRound, refreshReport, type RefreshOutcome } from './refreshRound';
import { healthColor, revealBidiIn } from './treeText';
import { noticeNodes, noticesItem } from './notices';
import { ipNodes, moreIpsItem } from './sourceIps';
import { HealthTree } from './healthNodes';
import type { SourceMarks } from './marks';
import { sourceItem } from './sourceItem';
import { PeriodCompare, type PeriodComparison } from './periodCompare';
import { goneItem, ipItem, orgHeadline, summaryItem } from './periodItems';
import { AttentionTree } from './attentionNodes';
import type { Verdict } from '../advice/vocabulary';
import { ReportTree } from '../reportFiles/reportTree';
import { REPORT_FILES_ID, type ReportFiles } from '../reportFiles/reportFiles';

export const VIEW_ID = 'dmarc.explorer';

export interface TreeSettings {
  months: number;
  monthChildren: 'days' | 'weeks';
}

/**
 * Maps accounts → organizations → date buckets → (summary, sources → IPs) to tree items. The
 * record store does the fetching and caching; expanding a bucket is the only thing that fetches.
 * A day or week whose rows memory already holds (its month was fetched) shows its pass rate and
 * emails without a request. Summaries are memoised per held range: the store's `peekRecords`
 * array keeps its identity until that data changes, so re-renders do not recompute them.
 */
export class DmarcTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined | void>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Range keys whose next expansion re-fetches (Refresh, Retry). */
  private readonly pendingRefresh = new Set<string>();
  private readonly text = new SummaryText(vscode.env.language || 'en');
  /** Summaries by records array (see `recordsOf`): computed once per held range. */
  private readonly memo = new SummaryMemo();
  private readonly reports: ReportTree | undefined;
  private readonly health: HealthTree;
  private readonly compare: PeriodCompare;

  constructor(
    private readonly accounts: AccountStore,
    private readonly store: RecordStore,
    private readonly settings: () => TreeSettings,
    private readonly log: vscode.LogOutputChannel,
    private readonly now: () => Date = () => new Date(),
    reportFiles: ReportFiles | undefined,
    marks: SourceMarks,
  ) {
    this.reports = reportFiles && new ReportTree(reportFiles, this.text, now);
    this.health = new HealthTree(this.text, () => this.changed.fire(), vscode.env.language || 'en', marks);
    this.compare = new PeriodCompare(store, () => this.changed.fire(), (l) => log.info(l));
  }

  /** Re-renders the tree; with `refresh`, every top-level bucket re-fetches when next shown. */
  refresh(opts: { refetch?: boolean } = {}): void {
    if (opts.refetch) {
      this.compare.reset();
      this.pendingRefresh.add('*');
      this.refreshedNow.clear();
    }
    this.changed.fire();
  }

  /** Buckets the view shows expanded (from its expand and collapse events). */
  private readonly expanded = new Set<string>();
  /** Buckets being re-fetched: their items say so. */
  private readonly refreshing = new Set<string>();
  /** Top-level buckets this Refresh already re-fetched (re-rendering them must not fetch again). */
  private readonly refreshedNow = new Set<string>();
  private round: RefreshRound | undefined;

  setExpanded(node: Node, expanded: boolean): void {
    if (node.kind !== 'bucket') return;
    const k = key(node.account, node.org, node.bucket);
    if (expanded) this.expanded.add(k);
    else this.expanded.delete(k);
  }

  /**
   * Refresh: every expanded range re-fetches now (each item says "Refreshing…", the view shows
   * progress), the others when next expanded; resolves with what changed, in words.
   */
  async refreshAll(): Promise<string> {
    const round = (this.round = new RefreshRound());
    this.refreshedNow.clear();
    this.compare.reset();
    this.pendingRefresh.add('*');
    for (const k of this.expanded) this.refreshing.add(k);
    this.changed.fire();
    try {
      const outcomes = await vscode.window.withProgress({ location: { viewId: VIEW_ID }, title: vscode.l10n.t('Refreshing DMARC records…') }, () => round.settle());
      return refreshReport(outcomes);
    } finally {
      if (this.round === round) this.round = undefined;
      // Expanded ranges VS Code did not ask for (inside a collapsed parent) are not refreshing.
      if (this.refreshing.size) {
        this.refreshing.clear();
        this.changed.fire();
      }
    }
  }

  /** Copy IP Address on an IP item. */
  async copyIpAddress(node: NodeOf<'ip'>): Promise<void> {
    await vscode.env.clipboard.writeText(node.ip.ipAddress);
    void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied IP address {0}', node.ip.ipAddress), 3000);
  }

  /** Re-fetches one bucket (Refresh on an item, Retry on an error) and re-renders. */
  refreshBucket(node: Node): void {
    const target = bucketOf(node);
    if (!target) return;
    const k = key(target.account, target.org, target.bucket);
    this.pendingRefresh.add(k);
    this.refreshing.add(k);
    this.changed.fire();
  }

  async scopeOf(account: Account, org: Organization): Promise<RecordScope | undefined> {
    if (account.id === REPORT_FILES_ID) return { accountId: account.id, baseUrl: account.baseUrl, apiKey: '', organizationId: org.id };
    const apiKey = await this.accounts.getKey(account.id);
    if (!apiKey) return undefined;
    return { accountId: account.id, baseUrl: account.baseUrl, apiKey, organizationId: org.id };
  }

  /** The watch's Needs Attention item, first in the tree (attentionNodes.ts). */
  attention: AttentionTree | undefined;

  getChildren(node?: Node): vscode.ProviderResult<Node[]> {
    if (!node) {
      const orgs = this.accounts.list().reduce((n, a) => n + a.organizations.length, 0) + (this.reports?.domainCount() ?? 0);
      return [...(this.attention?.roots(orgs) ?? []), ...this.roots(), ...(this.reports?.roots() ?? [])];
    }
    if (AttentionTree.owns(node)) return this.attention?.children(node) ?? [];
    if (node.kind === 'reports' || node.kind === 'location') return this.reports?.children(node);
    if (HealthTree.owns(node)) return this.health.children(node);
    switch (node.kind) {
      case 'account':
        return node.account.organizations.length
          ? node.account.organizations.map((org) => ({ kind: 'org', account: node.account, org }))
          : [{ kind: 'message', label: vscode.l10n.t('No organizations yet'), detail: vscode.l10n.t('Use "Add Organization" on this account.'), icon: 'info' }];
      case 'org':
        return (node.account.id === REPORT_FILES_ID && this.reports ? this.reports.buckets(node.org.id, this.settings().monthChildren) : buildBuckets(this.now(), this.settings())).map((bucket) => ({ kind: 'bucket', account: node.account, org: node.org, bucket }));
      case 'bucket':
        return this.bucketChildren(node);
      case 'notices':
        return node.items;
      case 'group':
        return node.children.map((bucket) => ({ kind: 'bucket', account: node.account, org: node.org, bucket }));
      case 'source':
        return ipNodes(node);
      default:
        return [];
    }
  }

  private roots(): Node[] {
    const accounts = this.accounts.list();
    if (accounts.length === 1) {
      const [account] = accounts;
      return account.organizations.map((org) => ({ kind: 'org', account, org }));
    }
    return accounts.map((account) => ({ kind: 'account', account }));
  }

  private async bucketChildren(node: NodeOf<'bucket'>): Promise<Node[]> {
    const { account, org, bucket } = node;
    const k = key(account, org, bucket);
    const topLevel = bucket.kind === 'last-days' || bucket.kind === 'month' || bucket.kind === 'custom';
    const refresh = this.pendingRefresh.delete(k) || (topLevel && this.pendingRefresh.has('*') && !this.refreshedNow.has(k));
    const scope = await this.scopeOf(account, org);
    if (!scope) {
      return [{ kind: 'error', account, org, bucket, forbidden: true, message: vscode.l10n.t('The API key of {0} is missing.', account.label) }];
    }
    const previous = this.store.peek(scope, bucket.start, bucket.end);
    const previousRecords = previous && this.recordsOf(scope, bucket, previous);
    let data: RangeData;
    let settle: ((o: RefreshOutcome) => void) | undefined;
    if (refresh) {
      if (topLevel) this.refreshedNow.add(k);
      this.round?.add(new Promise<RefreshOutcome>((r) => (settle = r)));
    }
    const outcome = (after: number | undefined, error?: string): void => {
      settle?.({ label: bucket.label, before: previousRecords?.length, after, error });
      if (this.refreshing.delete(k)) setTimeout(() => this.changed.fire(node), 0);
    };
    try {
      data = await vscode.window.withProgress({ location: { viewId: VIEW_ID } }, () =>
        this.store.get(scope, bucket.start, bucket.end, { refresh }),
      );
      outcome(data.records.length);
    } catch (err) {
      const e = toApiError(err);
      const message = describeApiError(e);
      outcome(undefined, message);
      this.log.warn(`${organizationLabel(org)} · ${bucket.label}: ${e.kind}: ${message}`);
      if (previous) {
        return [{ kind: 'message', label: vscode.l10n.t('Refresh failed: {0}', message), detail: vscode.l10n.t('Showing data fetched at {0}', new Date(previous.fetchedAt).toLocaleTimeString()), icon: 'warning' }, ...this.dataChildren(node, previous, previousRecords!, scope)];
      }
      return [{ kind: 'error', account, org, bucket, forbidden: e.kind === 'forbidden', message }];
    } finally {
      if (topLevel) this.clearGlobalRefreshWhenDone();
    }
    return this.dataChildren(node, data, this.recordsOf(scope, bucket, data), scope);
  }

  /**
   * The range's rows as the store's shared array (stable while the held data is unchanged, so
   * the memo below works); the fetched copy when memory does not keep them (dropped meanwhile).
   */
  private recordsOf(scope: Pick<RecordScope, 'accountId' | 'organizationId'>, bucket: Bucket, data: RangeData): readonly DmarcRecord[] {
    return this.store.peekRecords(scope, bucket.start, bucket.end) ?? data.records;
  }

  private summaryOf(records: readonly DmarcRecord[]): Summary {
    const t0 = performance.now();
    const s = this.memo.summary(records);
    const ms = performance.now() - t0;
    if (ms > 20) perfMark('treeSummary', { rows: records.length, ms: Math.round(ms) });
    return s;
  }

  private sourcesOf(records: readonly DmarcRecord[]): SourceSummary[] {
    const t0 = performance.now();
    const s = this.memo.sources(records);
    const ms = performance.now() - t0;
    if (ms > 20) perfMark('treeSources', { rows: records.length, ms: Math.round(ms) });
    return s;
  }

  /** A day's or week's summary when memory holds its rows (never fetches); undefined otherwise. */
  private heldSummary(node: NodeOf<'bucket'>): Summary | undefined {
    const records = this.store.peekRecords({ accountId: node.account.id, organizationId: node.org.id }, node.bucket.start, node.bucket.end);
    return records && this.summaryOf(records);
  }

  /** The toolbar's Refresh applies to the buckets shown right after it, then lapses. */
  private clearGlobalRefreshWhenDone(): void {
    if (!this.pendingRefresh.has('*')) return;
    setTimeout(() => this.pendingRefresh.delete('*'), 1000);
  }

  /** The period against the previous one of equal length, once its rows are in (periodCompare.ts). */
  private comparisonOf(node: NodeOf<'bucket'>, scope: RecordScope, records: readonly DmarcRecord[]): PeriodComparison | undefined {
    return this.compare.of(scope, node.bucket, records, (rows) => {
      const v = new Map<string, Verdict>();
      for (const [k, a] of this.health.of(rows, node).bySource) v.set(k, a.verdict);
      return v;
    });
  }

  private dataChildren(node: NodeOf<'bucket'>, data: RangeData, records: readonly DmarcRecord[], scope: RecordScope): Node[] {
    const { account, org, bucket } = node;
    const [held, sources] = [this.health.of(records, node), this.sourcesOf(records)];
    const cmp = this.comparisonOf(node, scope, records);
    const out: Node[] = [this.health.node(node, held, sources), { kind: 'summary', bucket, summary: this.summaryOf(records), ...(cmp ? { change: cmp.total } : {}) }];
    out.push(...noticeNodes(node, data));
    if (bucket.children?.length) {
      out.push({ kind: 'group', account, org, bucket, label: bucket.children[0].kind === 'week' ? vscode.l10n.t('Weeks') : vscode.l10n.t('Days'), children: bucket.children });
    }
    if (records.length === 0) {
      out.push({ kind: 'message', label: vscode.l10n.t('No reports in this range'), icon: 'circle-slash' });
    }
    for (const source of sources) {
      out.push({ kind: 'source', account, org, bucket, source, advice: held.bySource.get(source.source), ...(cmp ? { change: cmp.sources.get(source.source), ipChanges: () => cmp.ips(source.source) } : {}) });
    }
    // Sources that sent in the previous period and not in this one.
    const gone = cmp ? [...cmp.sources.values()].filter((c) => c.status === 'gone') : [];
    if (gone.length) out.push(goneItem(gone, this.text));
    return out;
  }

  /** The item of a node, with what report data put in its texts made safe to show (treeText.ts revealBidiIn). */
  getTreeItem(node: Node): vscode.TreeItem {
    return revealBidiIn(this.makeItem(node));
  }

  private makeItem(node: Node): vscode.TreeItem {
    const C = vscode.TreeItemCollapsibleState;
    if (ReportTree.owns(node)) return this.reports!.item(node);
    if (AttentionTree.owns(node)) return this.attention!.item(node);
    if (HealthTree.owns(node)) return this.health.item(node);
    switch (node.kind) {
      case 'account': {
        const item = new vscode.TreeItem(node.account.label, C.Expanded);
        item.id = `a/${node.account.id}`;
        item.description = node.account.baseUrl;
        item.iconPath = new vscode.ThemeIcon('account');
        item.contextValue = 'account';
        return item;
      }
      case 'org': {
        if (node.account.id === REPORT_FILES_ID && this.reports) return this.reports.domainItem(node);
        const item = new vscode.TreeItem(organizationLabel(node.org), C.Collapsed);
        item.id = `o/${node.account.id}/${node.org.id}`;
        const headline = orgHeadline(this.store, { accountId: node.account.id, organizationId: node.org.id }, this.now(), this.text, (r) => this.summaryOf(r));
        item.description = [node.org.name ? node.org.id : undefined, headline?.short].filter(Boolean).join(' · ') || undefined;
        item.tooltip = [vscode.l10n.t('Organization {0} · account {1}', node.org.id, node.account.label), ...(headline?.lines ?? [])].join('\n');
        item.iconPath = new vscode.ThemeIcon('organization');
        item.contextValue = 'org';
        return item;
      }
      case 'bucket': {
        const item = new vscode.TreeItem(node.bucket.label, C.Collapsed);
        item.id = `b/${node.account.id}/${node.org.id}/${node.bucket.id}`;
        item.tooltip = node.bucket.tooltip;
        const refreshing = this.refreshing.has(key(node.account, node.org, node.bucket));
        // Listed under a fetched month, a day or week has its rows at hand: say what they hold.
        const s = node.bucket.kind === 'day' || node.bucket.kind === 'week' ? this.heldSummary(node) : undefined;
        if (s) {
          item.description = this.text.passAndEmails(s.passRate, s.emails);
          const counts = this.text.emailsInRows(s.emails, s.rows);
          item.tooltip = `${node.bucket.tooltip}\n${s.passRate === undefined ? counts : vscode.l10n.t('{0} pass · {1}', this.text.percent(s.passRate), counts)}`;
        }
        // Presets ("Last 7 days") look back from today; months, weeks and days are dates on a
        // calendar, a day or week coloured by its health when its rows are at hand.
        const preset = node.bucket.kind === 'last-days' || node.bucket.kind === 'custom';
        item.iconPath = refreshing ? new vscode.ThemeIcon('sync~spin') : new vscode.ThemeIcon(preset ? 'history' : 'calendar', s ? healthColor(s.passRate) : undefined);
        if (refreshing) item.description = vscode.l10n.t('Refreshing…');
        item.contextValue = `bucket.${node.bucket.kind}`;
        return item;
      }
      case 'group': {
        const item = new vscode.TreeItem(node.label, C.Collapsed);
        item.id = `g/${node.account.id}/${node.org.id}/${node.bucket.id}`;
        item.iconPath = new vscode.ThemeIcon('list-tree');
        item.contextValue = 'group';
        return item;
      }
      case 'summary':
        return summaryItem(node, this.text);
      case 'source':
        return sourceItem(node, this.text, this.health.thresholds.compliant, this.health.marks.of(node.account.id, node.org.id).get(node.source.source));
      case 'ip':
        return ipItem(node, this.text);
      case 'notices':
        return noticesItem(node);
      case 'moreIps':
        return moreIpsItem(node, this.text);
      case 'message': {
        const item = new vscode.TreeItem(node.label, C.None);
        item.tooltip = node.detail;
        item.iconPath = node.icon ? new vscode.ThemeIcon(node.icon, node.icon === 'warning' ? new vscode.ThemeColor('list.warningForeground') : undefined) : undefined;
        item.contextValue = 'message';
        return item;
      }
      case 'error': {
        const item = new vscode.TreeItem(node.message, C.None);
        item.description = node.forbidden ? vscode.l10n.t('Update API Key or Retry') : vscode.l10n.t('Retry');
        item.tooltip = node.message;
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
        item.contextValue = node.forbidden ? 'error.forbidden' : 'error';
        item.command = { command: Commands.retry, title: vscode.l10n.t('Retry'), arguments: [node] };
        return item;
      }
    }
  }

  dispose(): void {
    this.health.dispose();
    this.changed.dispose();
  }
}

function key(account: Account, org: Organization, bucket: Bucket): string {
  return `${account.id}|${org.id}|${bucket.start.toISOString()}|${bucket.end.toISOString()}`;
}

function bucketOf(node: Node): { account: Account; org: Organization; bucket: Bucket } | undefined {
  if (node.kind === 'bucket' || node.kind === 'error' || node.kind === 'source' || node.kind === 'group') {
    return { account: node.account, org: node.org, bucket: node.bucket };
  }
  return undefined;
}
