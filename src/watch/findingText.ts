/**
 * A watch finding in words: a title for its notification and tree item, a short description and
 * the figures behind it for its tooltip. Source names come from report data: callers show them
 * as text.
 */
import * as vscode from 'vscode';
import type { StoredFinding } from './findingStore';

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const n = (x: number): string => x.toLocaleString('en-US');
const pct = (x: number | undefined): string => (x === undefined ? '–' : `${x}%`);

export function findingText(f: StoredFinding): { title: string; description: string; detail: string } {
  const days = f.start + 86_400_000 - 1 >= f.end ? day(f.start) : `${day(f.start)} – ${day(f.end)}`;
  switch (f.kind) {
    case 'new-sender':
      return {
        title: vscode.l10n.t('{0}: new sender {1} fails DMARC', f.orgLabel, f.subject || vscode.l10n.t('(unknown source)')),
        description: vscode.l10n.t('{0} emails, {1} pass', n(f.emails), pct(f.passNow)),
        detail: vscode.l10n.t('{0} sent {1} emails as {2} on {3} ({4} passing DMARC) and none in the days before.', f.subject, n(f.emails), f.orgLabel, days, pct(f.passNow)),
      };
    case 'pass-drop':
      return f.subject
        ? {
            title: vscode.l10n.t('{0}: {1} pass rate fell from {2} to {3}', f.orgLabel, f.subject, pct(f.passBefore), pct(f.passNow)),
            description: vscode.l10n.t('{0} emails', n(f.emails)),
            detail: vscode.l10n.t('DMARC pass rate of {0} on {1}: {2} of {3} emails, against {4} of {5} emails in the days before.', f.subject, days, pct(f.passNow), n(f.emails), pct(f.passBefore), n(f.before)),
          }
        : {
            title: vscode.l10n.t('{0}: pass rate fell from {1} to {2}', f.orgLabel, pct(f.passBefore), pct(f.passNow)),
            description: vscode.l10n.t('{0} emails', n(f.emails)),
            detail: vscode.l10n.t('DMARC pass rate of {0} on {1}: {2} of {3} emails, against {4} of {5} emails in the days before.', f.orgLabel, days, pct(f.passNow), n(f.emails), pct(f.passBefore), n(f.before)),
          };
    case 'volume-spike':
      return {
        title: vscode.l10n.t('{0}: volume spike, {1} emails', f.orgLabel, n(f.emails)),
        description: vscode.l10n.t('{0} a day before', n(f.before)),
        detail: vscode.l10n.t('{0} emails on {1}, against {2} a day in the days before.', n(f.emails), days, n(f.before)),
      };
    case 'reports-stopped':
      return {
        title: vscode.l10n.t('{0}: no reports since {1}', f.orgLabel, day(f.start)),
        description: vscode.l10n.t('{0} emails before', n(f.before)),
        detail: vscode.l10n.t('No report rows from {0} to {1}, though the days before had {2} emails. Check that the DMARC record still sends aggregate reports (rua) to the service.', day(f.start), day(f.end), n(f.before)),
      };
  }
}
