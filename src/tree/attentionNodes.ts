/**
 * Needs Attention: the first item of the tree while the watch (src/watch/watch.ts) has active
 * findings or an organization it could not check. It lists each finding (unseen ones with a dot
 * on their bell; opening one shows its rows and marks it seen; Mute this on its menu) and each
 * failed check (one item, with the reason; the next run tries again).
 */
import * as vscode from 'vscode';
import type { FindingStore } from '../watch/findingStore';
import { findingText } from '../watch/findingText';
import type { Node, NodeOf } from './nodes';

export const SHOW_FINDING = 'dmarc.showFinding';
export const MUTE_FINDING = 'dmarc.muteFinding';

type AttentionNode = NodeOf<'attention' | 'finding' | 'watchFailure' | 'overviewLink'>;
const KINDS: ReadonlySet<Node['kind']> = new Set(['attention', 'finding', 'watchFailure', 'overviewLink']);
const OPEN_OVERVIEW = 'dmarc.openOverview';

export class AttentionTree {
  constructor(private readonly findings: FindingStore) {}

  static owns(node: Node): node is AttentionNode {
    return KINDS.has(node.kind);
  }

  /** Needs Attention when there is something to say; the Overview's item when there are `organizations` ≥ 2. */
  roots(organizations: number): Node[] {
    const out: Node[] = this.findings.active().length || this.findings.failures().length ? [{ kind: 'attention' }] : [];
    if (organizations >= 2) out.push({ kind: 'overviewLink', count: organizations });
    return out;
  }

  children(node: AttentionNode): Node[] {
    if (node.kind !== 'attention') return [];
    return [
      ...this.findings.active().map((finding): Node => ({ kind: 'finding', finding })),
      ...this.findings.failures().map((failure): Node => ({ kind: 'watchFailure', failure })),
    ];
  }

  item(node: AttentionNode): vscode.TreeItem {
    switch (node.kind) {
      case 'overviewLink': {
        const item = new vscode.TreeItem(vscode.l10n.t('Overview of All Organizations'), vscode.TreeItemCollapsibleState.None);
        item.id = 'overview';
        item.description = vscode.l10n.t('{0} organizations', node.count);
        item.tooltip = vscode.l10n.t('Every organization in one table: emails, DMARC pass and how it moved, sources to fix, readiness.');
        item.iconPath = new vscode.ThemeIcon('dashboard');
        item.command = { command: OPEN_OVERVIEW, title: vscode.l10n.t('Open Overview of All Organizations') };
        item.contextValue = 'overviewLink';
        return item;
      }
      case 'attention': {
        const item = new vscode.TreeItem(vscode.l10n.t('Needs Attention'), vscode.TreeItemCollapsibleState.Expanded);
        item.id = 'attention';
        const unseen = this.findings.unseenCount();
        const all = this.findings.active().length;
        const failed = this.findings.failures().length;
        item.description = [
          unseen ? (unseen === 1 ? vscode.l10n.t('1 new') : vscode.l10n.t('{0} new', unseen)) : undefined,
          all === 1 ? vscode.l10n.t('1 finding') : vscode.l10n.t('{0} findings', all),
          failed ? (failed === 1 ? vscode.l10n.t('1 check failed') : vscode.l10n.t('{0} checks failed', failed)) : undefined,
        ].filter(Boolean).join(' · ');
        item.tooltip = vscode.l10n.t('What the watch found on its last run (dmarc.watch.* settings). Open a finding to see its rows; Mute this on its menu to never raise it again.');
        item.iconPath = new vscode.ThemeIcon(unseen ? 'bell-dot' : 'bell', new vscode.ThemeColor('list.warningForeground'));
        item.contextValue = 'attention';
        return item;
      }
      case 'finding': {
        const f = node.finding;
        const t = findingText(f);
        const item = new vscode.TreeItem(t.title, vscode.TreeItemCollapsibleState.None);
        item.id = `f/${f.id}`;
        item.description = f.seen ? t.description : vscode.l10n.t('new · {0}', t.description);
        item.tooltip = t.detail;
        item.iconPath = new vscode.ThemeIcon(f.seen ? 'bell' : 'bell-dot', f.kind === 'reports-stopped' || f.kind === 'volume-spike' ? undefined : new vscode.ThemeColor('list.warningForeground'));
        item.command = { command: SHOW_FINDING, title: vscode.l10n.t('Show'), arguments: [node] };
        item.contextValue = 'finding';
        return item;
      }
      case 'watchFailure': {
        const x = node.failure;
        const item = new vscode.TreeItem(vscode.l10n.t('{0} could not be checked', x.orgLabel), vscode.TreeItemCollapsibleState.None);
        item.id = `wf/${x.accountId}/${x.orgId}`;
        item.description = x.message;
        item.tooltip = vscode.l10n.t('{0}\nThe next run of the watch tries again.', x.message);
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
        item.contextValue = 'watchFailure';
        return item;
      }
    }
  }
}
