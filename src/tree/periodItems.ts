/**
 * The items of an expanded period's figures: its summary (pass rate, emails, rows, and what moved
 * against the previous period of equal length), a source's IPs, and the sources that stopped
 * sending since the previous period (periodCompare.ts).
 */
import * as vscode from 'vscode';
import { compareSums, previousPeriod, type Change } from '../advice/compare';
import type { DmarcRecord } from '../api/types';
import { lastDaysBucket } from '../records/buckets';
import type { RecordScope, RecordStore } from '../records/recordStore';
import type { Summary } from '../records/summary';
import type { SummaryText } from '../records/summaryText';
import { mixLine, verdictColor, verdictLabel } from './healthText';
import type { Node, NodeOf } from './nodes';
import { changeBadge, changeLines } from './periodCompare';
import { appendTable, healthColor } from './treeText';

export function summaryItem(node: NodeOf<'summary'>, text: SummaryText): vscode.TreeItem {
  const s = node.summary;
  const item = new vscode.TreeItem(text.passAndEmails(s.passRate, s.emails), vscode.TreeItemCollapsibleState.None);
  const badge = node.change && changeBadge(node.change, text);
  item.description = badge ? `${text.rows(s.rows)} · ${badge}` : text.rows(s.rows);
  item.iconPath = new vscode.ThemeIcon('graph', healthColor(s.passRate));
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${vscode.l10n.t('DMARC pass rate')}** ${text.percent(s.passRate)} ${vscode.l10n.t('(email-weighted: aligned SPF or aligned DKIM passes)')}\n\n`);
  if (node.change) md.appendMarkdown(`${changeLines(node.change, text, verdictLabel).join('  \n')}\n\n`);
  const count = (n: number) => text.count(n);
  appendTable(md, vscode.l10n.t('Category'), s.emailsByCategory, count);
  appendTable(md, vscode.l10n.t('Disposition'), s.emailsByDisposition, count);
  md.appendMarkdown(`\n${vscode.l10n.t('Boundaries in UTC.')}`);
  item.tooltip = md;
  item.contextValue = 'summary';
  return item;
}

export function ipItem(node: NodeOf<'ip'>, text: SummaryText): vscode.TreeItem {
  const ip = node.ip;
  const judged = node.advice?.ips.get(ip.ipAddress);
  const item = new vscode.TreeItem(ip.ipAddress, vscode.TreeItemCollapsibleState.None);
  item.id = `i/${node.account.id}/${node.org.id}/${node.bucket.id}/${node.source.source}/${ip.ipAddress}`;
  const badge = changeBadge(node.change, text);
  item.description = [text.passAndEmails(ip.passRate, ip.emails), badge, ip.rdns.length ? ip.rdns.join(', ') : vscode.l10n.t('no rDNS'), ip.ipCountryCode].filter(Boolean).join(' · ');
  item.tooltip = [
    ip.ipAddress,
    `${vscode.l10n.t('DMARC pass rate')}: ${text.percent(ip.passRate)}`,
    text.emailsInRows(ip.emails, ip.rows),
    ...(node.change ? changeLines(node.change, text, verdictLabel) : []),
    `${vscode.l10n.t('rDNS')}: ${ip.rdns.join(', ') || vscode.l10n.t('none')}`,
    `${vscode.l10n.t('Country')}: ${ip.ipCountryCode ?? vscode.l10n.t('unknown')}`,
    ...(judged ? [`${vscode.l10n.t('Verdict')}: ${verdictLabel(judged.verdict)}`, mixLine(judged.mix, text)] : []),
  ].join('\n');
  item.iconPath = new vscode.ThemeIcon('circle-filled', judged ? verdictColor(judged.verdict) : healthColor(ip.passRate));
  item.contextValue = 'ip';
  return item;
}

/** The sources that sent in the previous period and not in this one, as one item. */
export function goneItem(gone: readonly Change[], text: SummaryText): Node {
  const names = gone.map((c) => vscode.l10n.t('{0} ({1} before)', c.key || vscode.l10n.t('(unknown source)'), text.emails(c.before)));
  const label = gone.length === 1 ? vscode.l10n.t('1 source stopped sending: {0}', gone[0]!.key) : vscode.l10n.t('{0} sources stopped sending', gone.length);
  return { kind: 'message', label, detail: vscode.l10n.t('Sent in the previous period of equal length, not in this one:\n{0}', names.join('\n')), icon: 'debug-disconnect' };
}

/**
 * An organization's headline once its last 30 days are held (never fetches): the pass rate and,
 * when the 30 days before are held too, how it moved.
 */
export function orgHeadline(
  store: RecordStore, scope: Pick<RecordScope, 'accountId' | 'organizationId'>, now: Date, text: SummaryText, summaryOf: (r: readonly DmarcRecord[]) => Summary,
): { short: string; lines: string[] } | undefined {
  const b = lastDaysBucket(30, now);
  const records = store.peekRecords(scope, b.start, b.end);
  if (!records) return undefined;
  const s = summaryOf(records);
  const prev = previousPeriod(b.start, b.end);
  const earlier = store.peekRecords(scope, prev.start, prev.end);
  const p = earlier && summaryOf(earlier);
  const change = p && compareSums(new Map([['', { emails: s.emails, passing: s.passEmails }]]), new Map([['', { emails: p.emails, passing: p.passEmails }]])).get('');
  const badge = changeBadge(change, text);
  const rate = s.passRate === undefined ? text.emails(0) : vscode.l10n.t('{0} pass', text.percent(s.passRate));
  return {
    short: badge ? `${rate} ${badge}` : rate,
    lines: [vscode.l10n.t('Last 30 days: {0}', text.passAndEmails(s.passRate, s.emails)), ...(change ? changeLines(change, text, () => '') : [])],
  };
}
