/**
 * What a range's response said about its rows, as tree nodes: rows left out (malformed) and
 * values outside the documented sets (rows kept). One such notice shows as it is; several fold
 * into one collapsed "Data warnings" node, so the senders stay in view: a server that sends a
 * dozen unknown values (case variants, new results) put a dozen lines above them.
 */
import * as vscode from 'vscode';
import type { RangeData } from '../records/storeTypes';
import type { Node, NodeOf } from './nodes';

export function noticeNodes(parent: NodeOf<'bucket'>, data: Pick<RangeData, 'rejected' | 'warnings'>): Node[] {
  const items: NodeOf<'message'>[] = [];
  if (data.rejected.count > 0) {
    items.push({
      kind: 'message',
      icon: 'warning',
      label: data.rejected.count === 1
        ? vscode.l10n.t('1 row in the response was malformed and left out')
        : vscode.l10n.t('{0} rows in the response were malformed and left out', data.rejected.count),
      detail: data.rejected.samples.map((s) => `#${s.index}: ${s.reason}`).join('\n'),
    });
  }
  for (const w of data.warnings) {
    const detail = w.count === 1 ? vscode.l10n.t('1 row kept with this value') : vscode.l10n.t('{0} rows kept with this value', w.count);
    items.push({ kind: 'message', icon: 'warning', label: w.message, detail });
  }
  if (items.length <= 1) return items;
  const parts: string[] = [];
  if (data.rejected.count > 0) parts.push(data.rejected.count === 1 ? vscode.l10n.t('1 row left out') : vscode.l10n.t('{0} rows left out', data.rejected.count));
  if (data.warnings.length > 0) parts.push(data.warnings.length === 1 ? vscode.l10n.t('1 unknown value kept') : vscode.l10n.t('{0} unknown values kept', data.warnings.length));
  const { account, org, bucket } = parent;
  return [{ kind: 'notices', account, org, bucket, label: vscode.l10n.t('{0} data warnings', items.length), detail: parts.join(' · '), items }];
}

export function noticesItem(node: NodeOf<'notices'>): vscode.TreeItem {
  const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `n/${node.account.id}/${node.org.id}/${node.bucket.id}`;
  item.description = node.detail;
  item.tooltip = node.items.map((m) => m.label).join('\n');
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  item.contextValue = 'notices';
  return item;
}
