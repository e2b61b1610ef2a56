import * as vscode from 'vscode';
import { relative } from 'node:path';
import { customBucket, monthBucket, type Bucket } from '../records/buckets';
import { locationLabel } from '../import/library';
import type { SummaryText } from '../records/summaryText';
import type { Node, NodeOf } from '../tree/nodes';
import { REPORT_FILES_ID, type ReportFiles } from './reportFiles';
import { filesText, problemsText, reportsText } from '../ui/counted';

/**
 * The Report Files section of the tree: the policy domains read from the user's report files
 * (each an `org` node of the report-files account, so buckets, summaries, sources and the panel
 * work as for an organization of the API), then the folders and files opened, each listing the
 * files it could not read with the reason.
 */
export class ReportTree {
  constructor(
    private readonly files: ReportFiles,
    private readonly text: SummaryText,
    private readonly now: () => Date,
  ) {}

  /** The section node, when any location was opened. */
  roots(): Node[] {
    return this.files.locations().length ? [{ kind: 'reports' }] : [];
  }

  /** How many policy domains the report files hold (none until they are read). */
  domainCount(): number {
    return this.files.account()?.organizations.length ?? 0;
  }

  async children(node: NodeOf<'reports'> | NodeOf<'location'>): Promise<Node[]> {
    if (node.kind === 'location') return node.location.errors.map((error) => ({ kind: 'fileError', location: node.location, error }));
    await this.files.ready();
    const account = this.files.account();
    const out: Node[] = account ? account.organizations.map((org) => ({ kind: 'org', account, org })) : [];
    if (account && !account.organizations.length) {
      out.push({ kind: 'message', icon: 'info', label: vscode.l10n.t('No DMARC aggregate reports found'), detail: vscode.l10n.t('Open .xml, .xml.gz, .zip or .eml report files, or a folder of them.') });
    }
    for (const location of this.files.library.locations()) out.push({ kind: 'location', location });
    return out;
  }

  /** A domain's buckets: all its reports, then each month it has reports in, newest first. */
  buckets(domain: string, monthChildren: 'days' | 'weeks'): Bucket[] {
    const info = this.files.library.domain(domain);
    if (!info || !Number.isFinite(info.first)) return [];
    const now = this.now();
    const all = customBucket(new Date(info.first), new Date(info.last), now);
    all.id = 'all';
    all.label = vscode.l10n.t('All reports · {0}', all.label);
    const out: Bucket[] = [all];
    const first = new Date(info.first);
    const last = new Date(info.last);
    for (let y = last.getUTCFullYear(), m = last.getUTCMonth(); y > first.getUTCFullYear() || (y === first.getUTCFullYear() && m >= first.getUTCMonth()); m--) {
      if (m < 0) {
        m = 11;
        y--;
      }
      // Days (or weeks) after the last report are still listed up to today: a month is a month.
      out.push(monthBucket(y, m, now, { monthChildren }));
    }
    return out;
  }

  /** Whether the node belongs to this section (the tree asks before its own cases). */
  static owns(node: Node): node is NodeOf<'reports'> | NodeOf<'location'> | NodeOf<'fileError'> {
    return node.kind === 'reports' || node.kind === 'location' || node.kind === 'fileError';
  }

  /** The tree item of a domain (an `org` of the report-files account). */
  domainItem(node: NodeOf<'org'>): vscode.TreeItem {
    const info = this.files.library.domain(node.org.id);
    const item = new vscode.TreeItem(node.org.id, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `o/${REPORT_FILES_ID}/${node.org.id}`;
    item.iconPath = new vscode.ThemeIcon('globe');
    item.contextValue = 'reportDomain';
    if (info) {
      item.description = `${reportsText(info.reports)} · ${this.text.emailsInRows(info.emails, info.rows)}`;
      item.tooltip = vscode.l10n.t('Policy domain {0}: {1}, {2}', node.org.id, reportsText(info.reports), this.text.emailsInRows(info.emails, info.rows));
    }
    return item;
  }

  item(node: NodeOf<'reports'> | NodeOf<'location'> | NodeOf<'fileError'>): vscode.TreeItem {
    const C = vscode.TreeItemCollapsibleState;
    switch (node.kind) {
      case 'reports': {
        const item = new vscode.TreeItem(vscode.l10n.t('Report Files'), C.Expanded);
        item.id = 'reports';
        const locs = this.files.library.locations();
        const reports = locs.reduce((n, l) => n + l.reports, 0);
        const errors = locs.reduce((n, l) => n + l.errors.length, 0);
        item.description = errors ? `${reportsText(reports)} · ${problemsText(errors)}` : reportsText(reports);
        item.tooltip = vscode.l10n.t('DMARC aggregate reports read from files on this computer. The files are never modified or copied.');
        item.iconPath = new vscode.ThemeIcon('files');
        item.contextValue = 'reports';
        return item;
      }
      case 'location': {
        const l = node.location;
        const item = new vscode.TreeItem(locationLabel(l.path), l.errors.length ? C.Collapsed : C.None);
        item.id = `l/${l.path}`;
        item.resourceUri = vscode.Uri.file(l.path);
        const parts = [l.kind === 'folder' ? filesText(l.files) : undefined, reportsText(l.reports)];
        if (l.errors.length) parts.push(problemsText(l.errors.length));
        item.description = parts.filter(Boolean).join(' · ');
        item.tooltip = l.path;
        item.iconPath = new vscode.ThemeIcon(l.kind === 'folder' ? 'folder' : 'file', l.errors.length ? new vscode.ThemeColor('list.warningForeground') : undefined);
        item.contextValue = 'reportLocation';
        return item;
      }
      case 'fileError': {
        const rel = relative(node.location.path, node.error.file);
        const label = !rel || rel.startsWith('..') ? locationLabel(node.error.file) : rel;
        const item = new vscode.TreeItem(label, C.None);
        item.description = node.error.message;
        item.tooltip = `${node.error.file}\n${node.error.message}`;
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
        item.contextValue = 'reportFileError';
        return item;
      }
    }
  }
}
