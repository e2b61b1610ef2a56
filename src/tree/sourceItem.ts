/**
 * A source's item in an expanded period: its pass rate and emails, its verdict's colour, its
 * categories, verdict, mix and fix in the tooltip, and the owner's mark on it (markNodes.ts) in
 * its description, tooltip and context value (which mark commands its menu offers).
 */
import * as vscode from 'vscode';
import type { SourceMark } from '../advice/marks';
import type { SummaryText } from '../records/summaryText';
import { appendSourceAdvice, verdictColor, verdictLabel } from './healthText';
import { changeBadge, changeLines } from './periodCompare';
import { appendMark, markContext, markedDescription } from './markNodes';
import type { NodeOf } from './nodes';
import { appendTable, healthColor } from './treeText';

export function sourceItem(node: NodeOf<'source'>, text: SummaryText, compliantBar: number, mark: SourceMark | undefined): vscode.TreeItem {
  const s = node.source;
  const item = new vscode.TreeItem(s.source || vscode.l10n.t('(unknown source)'), s.ips.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = `s/${node.account.id}/${node.org.id}/${node.bucket.id}/${s.source}`;
  const badge = changeBadge(node.change, text);
  item.description = markedDescription(badge ? `${text.passAndEmails(s.passRate, s.emails)} · ${badge}` : text.passAndEmails(s.passRate, s.emails), mark);
  item.iconPath = new vscode.ThemeIcon('circle-filled', node.advice ? verdictColor(node.advice.verdict) : healthColor(s.passRate));
  const md = new vscode.MarkdownString();
  md.appendMarkdown('**');
  md.appendText(s.source);
  md.appendMarkdown(`**\n\n${vscode.l10n.t('{0} from {1}', text.emailsInRows(s.emails, s.rows), text.ips(s.ips.length))}  \n`);
  md.appendMarkdown(`${vscode.l10n.t('DMARC pass rate')}: ${text.percent(s.passRate)}\n\n`);
  if (node.change) md.appendMarkdown(`${changeLines(node.change, text, verdictLabel).join('  \n')}\n\n`);
  appendTable(md, vscode.l10n.t('Category'), s.byCategory, (n) => text.count(n));
  if (mark) appendMark(md, mark);
  if (node.advice) appendSourceAdvice(md, node.advice, compliantBar, text);
  item.tooltip = md;
  item.contextValue = `source${markContext(mark)}`;
  return item;
}
