/** Pieces of tree items shared by their cases: a health colour, a Markdown table of counts (text escaped). */
import * as vscode from 'vscode';
import { health } from '../records/summary';

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
