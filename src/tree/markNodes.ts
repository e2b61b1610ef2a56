/**
 * The owner's marks in the tree (src/advice/marks.ts, kept by marks.ts): Mark as Mine, Mark as
 * Not Mine and Clear Mark on a source's item (in a period, under Health, under Marks), each shown
 * only where it changes something (the item's context value ends in `.mine` or `.notMine` when
 * the source is marked); and under each period's Health, when the organization has marks, a Marks
 * item listing them, each with its mark and Clear Mark. A change re-renders the tree (every
 * period is judged again with the new marks) and is sent to the organization's open panels
 * (src/panel/recordsPanel.ts).
 */
import * as vscode from 'vscode';
import { organizationLabel } from '../accounts/accountStore';
import { markLabel, markPairs, markRule, MAX_MARKS, type Marks, type SourceMark } from '../advice/marks';
import type { SummaryText } from '../records/summaryText';
import { revealBidi } from '../shared/bidi';
import type { MarkOutcome, SourceMarks } from './marks';
import type { Node, NodeOf } from './nodes';

/** The mark commands (package.json declares them; hidden from the palette: they act on a tree item). */
export const MARK_MINE = 'dmarc.markSourceMine';
export const MARK_NOT_MINE = 'dmarc.markSourceNotMine';
export const CLEAR_MARK = 'dmarc.clearSourceMark';

type MarkNode = NodeOf<'marks' | 'markedSource'>;
const KINDS: ReadonlySet<Node['kind']> = new Set(['marks', 'markedSource']);

/** What ends a marked source's context value: the menus offer the marks it does not have, and Clear Mark. */
export const markContext = (mark: SourceMark | undefined): string => (mark === 'mine' ? '.mine' : mark === 'not-mine' ? '.notMine' : '');

/** An item's description with the source's mark after it. */
export const markedDescription = (description: string, mark: SourceMark | undefined): string =>
  mark ? vscode.l10n.t('{0} · {1}', description, markLabel(mark)) : description;

/** The mark and what it does, in a source's tooltip. */
export function appendMark(md: vscode.MarkdownString, mark: SourceMark): void {
  md.appendMarkdown(`**${vscode.l10n.t('Mark')}:** `);
  md.appendText(`${markLabel(mark)}. ${markRule(mark)}`);
  md.appendMarkdown('\n\n');
}

/** The organization and source a mark command acts on, from the item it was run on. */
function targetOf(node: Node | undefined): { account: NodeOf<'source'>['account']; org: NodeOf<'source'>['org']; source: string } | undefined {
  switch (node?.kind) {
    case 'source':
      return { account: node.account, org: node.org, source: node.source.source };
    case 'healthSource':
      return { account: node.account, org: node.org, source: node.advice.source };
    case 'markedSource':
      return { account: node.account, org: node.org, source: node.source };
    default:
      return undefined;
  }
}

export class MarkTree implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[];

  /** `changed` re-renders the tree (after a mark changed). */
  constructor(
    readonly store: SourceMarks,
    private readonly text: SummaryText,
    changed: () => void,
  ) {
    this.disposables = [
      store.onDidChange(() => changed()),
      vscode.commands.registerCommand(MARK_MINE, (node?: Node) => this.mark(node, 'mine')),
      vscode.commands.registerCommand(MARK_NOT_MINE, (node?: Node) => this.mark(node, 'not-mine')),
      vscode.commands.registerCommand(CLEAR_MARK, (node?: Node) => this.mark(node, undefined)),
    ];
  }

  static owns(node: Node): node is MarkNode {
    return KINDS.has(node.kind);
  }

  /** The organization's marks. */
  of(accountId: string, organizationId: string): Marks {
    return this.store.get(accountId, organizationId);
  }

  /** The Marks item under a period's Health; none when the organization has no marks. */
  node(parent: NodeOf<'health'>): NodeOf<'marks'> | undefined {
    const { account, org, bucket } = parent;
    const marks = this.of(account.id, org.id);
    return marks.size ? { kind: 'marks', account, org, bucket, marks: markPairs(marks) } : undefined;
  }

  children(node: MarkNode): Node[] {
    if (node.kind !== 'marks') return [];
    const { account, org, bucket } = node;
    return node.marks.map(([source, mark]) => ({ kind: 'markedSource', account, org, bucket, source, mark }));
  }

  item(node: MarkNode): vscode.TreeItem {
    const at = `${node.account.id}/${node.org.id}/${node.bucket.id}`;
    if (node.kind === 'marks') {
      const n = node.marks.length;
      const item = new vscode.TreeItem(vscode.l10n.t('Marks'), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `hm/${at}`;
      item.description = n === 1 ? vscode.l10n.t('1 source') : vscode.l10n.t('{0} sources', this.text.count(n));
      const md = new vscode.MarkdownString();
      md.appendText(vscode.l10n.t('The sources you marked in {0}, in every period and in its records panels:', organizationLabel(node.org)));
      md.appendMarkdown('\n\n');
      for (const mark of ['mine', 'not-mine'] as const) {
        md.appendMarkdown('- ');
        md.appendText(markRule(mark));
        md.appendMarkdown('\n');
      }
      md.appendMarkdown('\n');
      md.appendText(vscode.l10n.t('Compliant mail is never changed by a mark. Clear Mark on a source undoes it.'));
      item.tooltip = md;
      item.iconPath = new vscode.ThemeIcon('bookmark');
      item.contextValue = 'marks';
      return item;
    }
    const item = new vscode.TreeItem(node.source || vscode.l10n.t('(unknown source)'), vscode.TreeItemCollapsibleState.None);
    item.id = `hm/${at}/${node.source}`;
    item.description = markLabel(node.mark);
    item.tooltip = `${node.source}\n${markRule(node.mark)}`;
    item.iconPath = new vscode.ThemeIcon(node.mark === 'mine' ? 'account' : 'circle-slash');
    item.contextValue = `markedSource${markContext(node.mark)}`;
    return item;
  }

  /** Marks the item's source (`undefined`: clears its mark); says what it did. */
  async mark(node: Node | undefined, mark: SourceMark | undefined): Promise<MarkOutcome | undefined> {
    const t = targetOf(node);
    if (!t) return undefined;
    const outcome = await this.store.set(t.account.id, t.org.id, t.source, mark);
    const name = revealBidi(t.source) || vscode.l10n.t('(unknown source)');
    if (outcome === 'full') void vscode.window.showWarningMessage(vscode.l10n.t('{0} has {1} marks already: clear some under Health → Marks first.', organizationLabel(t.org), MAX_MARKS));
    else if (outcome === 'invalid') void vscode.window.showWarningMessage(vscode.l10n.t('This source’s name is too long to be marked.'));
    else if (outcome === 'set')
      void vscode.window.setStatusBarMessage(
        mark === 'mine' ? vscode.l10n.t('Marked {0} as mine', name) : mark === 'not-mine' ? vscode.l10n.t('Marked {0} as not mine', name) : vscode.l10n.t('Cleared the mark on {0}', name),
        3000,
      );
    return outcome;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
