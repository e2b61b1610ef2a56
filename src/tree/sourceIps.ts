/**
 * A source's sending IPs in the tree. A busy source can send from tens of thousands of addresses
 * in a range (a large provider's pool, or forwarders): one tree item each made the host build and
 * send them all, and the list unusable. The tree shows the most emails first, up to MAX_TREE_IPS,
 * then one item that says how many more there are and opens the source's records, where every IP
 * is in the table (and in Group by IP address).
 */
import * as vscode from 'vscode';
import { Commands } from '../commands';
import type { Node, NodeOf } from './nodes';
import type { SummaryText } from '../records/summaryText';

export const MAX_TREE_IPS = 100;

export function ipNodes(node: NodeOf<'source'>): Node[] {
  const { account, org, bucket, source } = node;
  const shown = source.ips.slice(0, MAX_TREE_IPS);
  const changes = node.ipChanges?.();
  const out: Node[] = shown.map((ip) => ({ kind: 'ip', account, org, bucket, source, ip, advice: node.advice, change: changes?.get(ip.ipAddress) }));
  const rest = source.ips.length - shown.length;
  if (rest > 0) {
    let emails = 0;
    for (let i = shown.length; i < source.ips.length; i++) emails += source.ips[i]!.emails;
    out.push({ kind: 'moreIps', account, org, bucket, source, count: rest, emails });
  }
  return out;
}

export function moreIpsItem(node: NodeOf<'moreIps'>, text: SummaryText): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('{0} more IP addresses', node.count.toLocaleString()), vscode.TreeItemCollapsibleState.None);
  item.id = `m/${node.account.id}/${node.org.id}/${node.bucket.id}/${node.source.source}`;
  item.description = text.emails(node.emails);
  item.tooltip = vscode.l10n.t('The {0} IP addresses with the most emails are listed; open the records to see every one.', MAX_TREE_IPS);
  item.iconPath = new vscode.ThemeIcon('ellipsis');
  const source: NodeOf<'source'> = { kind: 'source', account: node.account, org: node.org, bucket: node.bucket, source: node.source };
  item.command = { command: Commands.openRecords, title: vscode.l10n.t('Open Records'), arguments: [source] };
  item.contextValue = 'moreIps';
  return item;
}
