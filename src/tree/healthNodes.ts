/**
 * A period's Health in the tree: the first item of an expanded period whose rows are in. It says
 * the next step towards enforcement (src/advice/readiness.ts) in a few words, the whole of it in
 * its tooltip, and expands into the Header From domains' readiness (when there are two or more),
 * then the sources grouped by verdict: Needs fixing, Forwarded, Unauthenticated, Compliant. A
 * source there opens its records (as a source item's Open Records does) and has Copy Fix Text
 * and the mark commands; last, when the organization has marks, the Marks item (markNodes.ts).
 *
 * The health is memoised per records array and the organization's marks (healthMemo.ts); a
 * change of the `dmarc.advice.*` settings or of a mark judges every period again and re-renders
 * the tree.
 */
import * as vscode from 'vscode';
import type { DmarcRecord } from '../api/types';
import { termOf, type RowClass } from '../advice/vocabulary';
import { Commands } from '../commands';
import { perfMark } from '../perf';
import { DAY_MS, type Bucket } from '../records/buckets';
import type { SourceSummary } from '../records/summary';
import type { SummaryText } from '../records/summaryText';
import { revealBidi } from '../shared/bidi';
import { adviceThresholds, onAdviceThresholdsChange } from './adviceSettings';
import { HealthMemo, type HeldHealth } from './healthMemo';
import { appendSourceAdvice, readinessTooltip, stepIcon, stepPhrase, verdictColor } from './healthText';
import { appendMark, markContext, markedDescription, MarkTree } from './markNodes';
import type { SourceMarks } from './marks';
import type { Node, NodeOf } from './nodes';

export { appendSourceAdvice, mixLine, verdictColor, verdictLabel } from './healthText';

/** Copy Fix Text on a source under Health (package.json declares it; hidden from the palette). */
export const COPY_FIX_TEXT = 'dmarc.copyFixText';

/** The class groups, in the order they are listed: what asks for action first. */
export const HEALTH_CLASS_ORDER: readonly RowClass[] = ['needs-fixing', 'forwarded', 'unauthenticated', 'compliant'];

type HealthNode = NodeOf<'health' | 'healthDomain' | 'healthClass' | 'healthSource' | 'marks' | 'markedSource'>;
const KINDS: ReadonlySet<Node['kind']> = new Set(['health', 'healthDomain', 'healthClass', 'healthSource', 'marks', 'markedSource']);

/** Whole UTC days in a period (at least 1), for "over 30 days". */
export function bucketDays(bucket: Pick<Bucket, 'start' | 'end'>): number {
  return Math.max(1, Math.round((bucket.end.getTime() + 1 - bucket.start.getTime()) / DAY_MS));
}

export class HealthTree implements vscode.Disposable {
  private readonly memo: HealthMemo;
  readonly marks: MarkTree;
  private readonly disposables: vscode.Disposable[];
  /** Source summaries by name, per summaries array (for Open Records on a source under Health). */
  private readonly byName = new WeakMap<readonly SourceSummary[], Map<string, SourceSummary>>();

  /** `changed` re-renders the tree (after the thresholds or a mark changed). */
  constructor(
    private readonly text: SummaryText,
    changed: () => void,
    locale: string | undefined,
    marks: SourceMarks,
  ) {
    this.memo = new HealthMemo(adviceThresholds(), locale);
    this.marks = new MarkTree(marks, text, changed);
    this.disposables = [
      this.marks,
      onAdviceThresholdsChange((t) => {
        if (this.memo.setThresholds(t)) changed();
      }),
      vscode.commands.registerCommand(COPY_FIX_TEXT, (node?: Node) => (node?.kind === 'healthSource' ? this.copyFix(node) : undefined)),
    ];
  }

  static owns(node: Node): node is HealthNode {
    return KINDS.has(node.kind);
  }

  get thresholds() {
    return this.memo.thresholds;
  }

  /** The period's health from its records, with its organization's marks (memoised). */
  of(records: readonly DmarcRecord[], { account, org, bucket }: NodeOf<'bucket'>): HeldHealth {
    const t0 = performance.now();
    const held = this.memo.get(records, bucketDays(bucket), this.marks.of(account.id, org.id));
    const ms = performance.now() - t0;
    if (ms > 20) perfMark('treeHealth', { rows: records.length, ms: Math.round(ms) });
    return held;
  }

  /** The Health item of an expanded period. */
  node(parent: NodeOf<'bucket'>, held: HeldHealth, sources: readonly SourceSummary[]): NodeOf<'health'> {
    const { account, org, bucket } = parent;
    return { kind: 'health', account, org, bucket, health: held.health, sources };
  }

  children(node: HealthNode): Node[] {
    if (MarkTree.owns(node)) return this.marks.children(node);
    const { account, org, bucket } = node;
    switch (node.kind) {
      case 'health': {
        const h = node.health;
        const out: Node[] = h.domains.length >= 2 ? h.domains.map((domain) => ({ kind: 'healthDomain', account, org, bucket, domain })) : [];
        for (const cls of HEALTH_CLASS_ORDER) {
          const advice = h.sources.filter((s) => s.verdict === cls);
          if (advice.length) out.push({ kind: 'healthClass', account, org, bucket, cls, advice, sources: node.sources });
        }
        const marks = this.marks.node(node);
        if (marks) out.push(marks);
        return out;
      }
      case 'healthClass':
        return node.advice.map((advice) => ({ kind: 'healthSource', account, org, bucket, advice, source: this.summaryOf(node.sources, advice.source) }));
      default:
        return [];
    }
  }

  item(node: HealthNode): vscode.TreeItem {
    if (MarkTree.owns(node)) return this.marks.item(node);
    const C = vscode.TreeItemCollapsibleState;
    const at = `${node.account.id}/${node.org.id}/${node.bucket.id}`;
    switch (node.kind) {
      case 'health': {
        const h = node.health;
        const marked = this.marks.of(node.account.id, node.org.id).size > 0;
        const item = new vscode.TreeItem(vscode.l10n.t('Health'), h.sources.length || marked ? C.Collapsed : C.None);
        item.id = `h/${at}`;
        item.description = stepPhrase(h.readiness, this.text);
        item.tooltip = readinessTooltip(vscode.l10n.t('Health'), h.readiness, h.mix, this.thresholds, this.text);
        item.iconPath = stepIcon(h.readiness);
        item.contextValue = 'health';
        return item;
      }
      case 'healthDomain': {
        const { domain, readiness } = node.domain;
        const item = new vscode.TreeItem(domain || vscode.l10n.t('(no Header From)'), C.None);
        item.id = `hd/${at}/${domain}`;
        item.description = stepPhrase(readiness, this.text);
        item.tooltip = readinessTooltip(domain, readiness, undefined, this.thresholds, this.text);
        item.iconPath = stepIcon(readiness);
        item.contextValue = 'healthDomain';
        return item;
      }
      case 'healthClass': {
        const term = termOf(node.cls)!;
        const item = new vscode.TreeItem(vscode.l10n.t('{0} ({1})', term.label, this.text.count(node.advice.length)), C.Collapsed);
        item.id = `hc/${at}/${node.cls}`;
        item.description = this.text.emails(node.advice.reduce((n, a) => n + a.emails, 0));
        item.tooltip = vscode.l10n.t('Sources whose verdict is {0}. A row is {0} when {1}.', term.label, term.rule);
        item.iconPath = new vscode.ThemeIcon('circle-filled', verdictColor(node.cls));
        item.contextValue = 'healthClass';
        return item;
      }
      case 'healthSource': {
        const a = node.advice;
        const item = new vscode.TreeItem(a.source || vscode.l10n.t('(unknown source)'), C.None);
        item.id = `hs/${at}/${a.source}`;
        item.description = markedDescription(this.text.passAndEmails(a.passRate, a.emails), a.mark);
        item.iconPath = new vscode.ThemeIcon('circle-filled', verdictColor(a.verdict));
        const md = new vscode.MarkdownString();
        md.appendMarkdown('**');
        md.appendText(a.source);
        md.appendMarkdown(`**\n\n${this.text.emailsInRows(a.emails, a.rows)}\n\n`);
        if (a.mark) appendMark(md, a.mark);
        appendSourceAdvice(md, a, this.thresholds.compliant, this.text);
        item.tooltip = md;
        // Open Records: the source's rows of the classes its verdict stands for.
        if (node.source) item.command = { command: Commands.openRecords, title: vscode.l10n.t('Open Records'), arguments: [node] };
        item.contextValue = `${a.fix ? 'healthSource.fix' : 'healthSource'}${markContext(a.mark)}`;
        return item;
      }
    }
  }

  /** Copy Fix Text: the source's fix on the clipboard (nothing for a source with none). */
  async copyFix(node: NodeOf<'healthSource'>): Promise<string | undefined> {
    const { fix, source } = node.advice;
    if (!fix) return undefined;
    await vscode.env.clipboard.writeText(fix);
    void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied the fix for {0}', revealBidi(source)), 3000);
    return fix;
  }

  private summaryOf(sources: readonly SourceSummary[], name: string): SourceSummary | undefined {
    let m = this.byName.get(sources);
    if (!m) this.byName.set(sources, (m = new Map(sources.map((s) => [s.source, s]))));
    return m.get(name);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
