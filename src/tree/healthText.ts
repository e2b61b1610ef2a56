/**
 * How the tree words and colours the advice: verdict colours, the readiness step as a short
 * phrase and an icon, and the tooltips of a readiness (the Health item, a Header From domain) and
 * of a source. Data (source names, domains, fix texts, step texts naming sources) always goes in
 * as text (MarkdownString.appendText), never as Markdown.
 */
import * as vscode from 'vscode';
import type { SourceAdvice } from '../advice/health';
import type { Readiness } from '../advice/readiness';
import type { Mix } from '../advice/verdict';
import { ROW_CLASSES, termOf, type AdviceThresholds, type RowClass, type Verdict } from '../advice/vocabulary';
import type { SummaryText } from '../records/summaryText';

const VERDICT_COLORS: Readonly<Record<RowClass, string>> = {
  compliant: 'charts.green',
  'needs-fixing': 'charts.yellow',
  forwarded: 'charts.blue',
  unauthenticated: 'charts.red',
};

/** A source's, an IP's or a class's colour by its verdict; none without one. */
export function verdictColor(v: Verdict | undefined): vscode.ThemeColor | undefined {
  return v ? new vscode.ThemeColor(VERDICT_COLORS[v]) : undefined;
}

/** The verdict's short name ("Needs fixing"); "no verdict" for a group without emails. */
export function verdictLabel(v: Verdict | undefined): string {
  return (v && termOf(v)?.label) || vscode.l10n.t('no verdict');
}

/** The next step in a few words, for an item's description. */
export function stepPhrase(r: Readiness, text: SummaryText): string {
  switch (r.step.kind) {
    case 'no-mail':
      return vscode.l10n.t('No mail');
    case 'losing':
      return vscode.l10n.t('Legitimate mail being lost');
    case 'fix':
      if (r.share === undefined) return vscode.l10n.t('Nothing authenticates');
      return r.atRisk.sources === 1 ? vscode.l10n.t('Fix 1 source') : vscode.l10n.t('Fix {0} sources', text.count(r.atRisk.sources));
    case 'forwarded':
      return vscode.l10n.t('Forwarded mail fails');
    case 'quarantine':
      return vscode.l10n.t('Ready for p=quarantine');
    case 'reject':
      return vscode.l10n.t('Ready for p=reject');
    case 'enforced':
      return vscode.l10n.t('Enforced');
  }
}

/** The step's icon: error when mail is lost, warning when something needs doing, pass when ready. */
export function stepIcon(r: Readiness): vscode.ThemeIcon {
  switch (r.step.kind) {
    case 'no-mail':
      return new vscode.ThemeIcon('circle-slash');
    case 'losing':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('charts.red'));
    case 'fix':
    case 'forwarded':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('charts.yellow'));
    default:
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('charts.green'));
  }
}

/** Emails per class as a small table (the classes with emails, in the rules' order). */
export function appendMix(md: vscode.MarkdownString, mix: Readonly<Mix>, text: SummaryText): void {
  const rows = ROW_CLASSES.map((c, i) => [c, mix[i]!] as const).filter(([, n]) => n > 0);
  if (!rows.length) return;
  md.appendMarkdown(`| ${vscode.l10n.t('Class')} | ${vscode.l10n.t('Emails')} |\n|---|---:|\n`);
  for (const [c, n] of rows) {
    md.appendMarkdown('| ');
    md.appendText(termOf(c)!.label);
    md.appendMarkdown(` | ${text.count(n)} |\n`);
  }
  md.appendMarkdown('\n');
}

/** The mix on one line ("Compliant 12 · Needs fixing 3"), for plain-text tooltips. */
export function mixLine(mix: Readonly<Mix>, text: SummaryText): string {
  return ROW_CLASSES.map((c, i) => [c, mix[i]!] as const)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${termOf(c)!.label} ${text.count(n)}`)
    .join(' · ');
}

/** What a readiness says in full: the step, the legitimate mail's share, what enforcement would do, what receivers did. */
export function readinessTooltip(heading: string, r: Readiness, mix: Readonly<Mix> | undefined, bars: AdviceThresholds, text: SummaryText): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendMarkdown('**');
  md.appendText(heading);
  md.appendMarkdown('**\n\n');
  md.appendText(r.step.text);
  md.appendMarkdown('\n\n');
  const lines = [
    vscode.l10n.t('Legitimate mail passing DMARC: {0} ({1} of {2})', text.percent(r.share), text.count(r.legitimatePass), text.emails(r.legitimate)),
    r.atRisk.sources === 1
      ? vscode.l10n.t('At risk under enforcement: {0} of legitimate mail from 1 source', text.emails(r.atRisk.emails))
      : vscode.l10n.t('At risk under enforcement: {0} of legitimate mail from {1} sources', text.emails(r.atRisk.emails), text.count(r.atRisk.sources)),
    vscode.l10n.t('Enforcement would stop: {0} of unauthenticated mail', text.emails(r.stopped)),
    vscode.l10n.t('Receivers already quarantined {0} and rejected {1} of failing legitimate mail', text.emails(r.observed.quarantine), text.emails(r.observed.reject)),
  ];
  for (const l of lines) {
    md.appendMarkdown('- ');
    md.appendText(l);
    md.appendMarkdown('\n');
  }
  md.appendMarkdown('\n');
  if (mix) appendMix(md, mix, text);
  md.appendText(
    vscode.l10n.t(
      'Bars (settings): a source is Compliant from {0} passing; p=quarantine from {1} and p=reject from {2} of legitimate mail passing.',
      text.percent(bars.compliant), text.percent(bars.quarantine), text.percent(bars.reject),
    ),
  );
  return md;
}

/** A source's verdict, mix, fix and the verdict's rule, appended to its tooltip. */
export function appendSourceAdvice(md: vscode.MarkdownString, a: SourceAdvice, compliantBar: number, text: SummaryText): void {
  md.appendMarkdown(`**${vscode.l10n.t('Verdict')}:** `);
  md.appendText(verdictLabel(a.verdict));
  md.appendMarkdown('\n\n');
  appendMix(md, a.mix, text);
  if (a.fix) {
    md.appendMarkdown(`**${vscode.l10n.t('Fix')}:** `);
    md.appendText(a.fix);
    md.appendMarkdown('\n\n');
  }
  const rule = a.verdict ? termOf(a.verdict)?.rule : undefined;
  if (rule) {
    md.appendMarkdown(`**${vscode.l10n.t('Rule')}:** `);
    md.appendText(`${verdictLabel(a.verdict)}: ${rule}`);
    md.appendMarkdown('\n\n');
  }
  md.appendText(vscode.l10n.t('A source is Compliant when at least {0} of its emails pass DMARC; otherwise it takes the class holding most of its failing emails.', text.percent(compliantBar)));
}
