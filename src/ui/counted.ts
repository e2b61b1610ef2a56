/**
 * Counts in words for the host's messages: "1 report", "6 reports", never "6 report(s)". Each form
 * is a literal `l10n.t` call of its own, which `npm run l10n` can read and a translation can word
 * as its language needs. Messages with a count of their own (a verb that agrees with it) choose
 * between two literal sentences where they are written; `englishCount` is for log lines, which
 * are not translated.
 */
import * as vscode from 'vscode';

export function reportsText(n: number): string {
  return n === 1 ? vscode.l10n.t('1 report') : vscode.l10n.t('{0} reports', n);
}

export function filesText(n: number): string {
  return n === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', n);
}

export function problemsText(n: number): string {
  return n === 1 ? vscode.l10n.t('1 problem') : vscode.l10n.t('{0} problems', n);
}

export { englishCount } from '../shared/englishCount';
