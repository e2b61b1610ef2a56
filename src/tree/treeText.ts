/** Pieces of tree items shared by their cases: a health colour, a Markdown table of counts (text escaped). */
import * as vscode from 'vscode';
import { health } from '../records/summary';
import { revealBidi } from '../shared/bidi';

export function healthColor(rate: number | undefined): vscode.ThemeColor | undefined {
  if (rate === undefined || Number.isNaN(rate)) return undefined;
  const h = health(rate);
  return new vscode.ThemeColor(h === 'good' ? 'charts.green' : h === 'warn' ? 'charts.yellow' : 'charts.red');
}

export function appendTable(md: vscode.MarkdownString, heading: string, counts: Record<string, number>, fmt: (n: number) => string): void {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  if (!entries.length) return;
  md.appendMarkdown(`| ${heading} | ${vscode.l10n.t('Emails')} |\n|---|---:|\n`);
  for (const [name, n] of entries) {
    md.appendMarkdown('| ');
    md.appendText(name || '(empty)');
    md.appendMarkdown(` | ${fmt(n)} |\n`);
  }
  md.appendMarkdown('\n');
}

/**
 * The item with bidirectional controls in its label, description and tooltip shown as escapes
 * (src/shared/bidi.ts): sources, IP addresses, rDNS names and domains come from report data.
 * Ids and commands are left alone: they are not shown.
 */
export function revealBidiIn(item: vscode.TreeItem): vscode.TreeItem {
  if (typeof item.label === 'string') item.label = revealBidi(item.label);
  if (typeof item.description === 'string') item.description = revealBidi(item.description);
  if (typeof item.tooltip === 'string') item.tooltip = revealBidi(item.tooltip);
  else if (item.tooltip instanceof vscode.MarkdownString) {
    const md = item.tooltip;
    const value = revealBidi(md.value);
    if (value !== md.value) {
      // The escape's backslash is an ordinary character in Markdown ("\u" is not an escape there).
      const safe = new vscode.MarkdownString(value, md.supportThemeIcons);
      safe.isTrusted = md.isTrusted;
      safe.supportHtml = md.supportHtml;
      item.tooltip = safe;
    }
  }
  return item;
}
