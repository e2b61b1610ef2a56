/**
 * The watch wired to the editor: its state in globalState, the Needs Attention item in the tree,
 * the count of unseen findings as a badge on the DMARC view, the Check Now, Show and Mute this
 * commands, and findings forgotten with their organization.
 */
import * as vscode from 'vscode';
import type { AccountStore } from '../accounts/accountStore';
import { Commands } from '../commands';
import type { RecordsPanels } from '../panel/recordsPanels';
import type { RecordStore } from '../records/recordStore';
import { AttentionTree, MUTE_FINDING, SHOW_FINDING } from '../tree/attentionNodes';
import type { DmarcTreeProvider } from '../tree/dmarcTree';
import type { Node } from '../tree/nodes';
import type { Prompter } from '../ui/prompter';
import { FindingStore, type StoredFinding } from './findingStore';
import { Watch } from './watch';

export interface WatchWiringDeps {
  context: vscode.ExtensionContext;
  accounts: AccountStore;
  store: RecordStore;
  panels: RecordsPanels;
  tree: DmarcTreeProvider;
  view: vscode.TreeView<Node>;
  log: vscode.LogOutputChannel;
  prompter: () => Prompter;
}

export function registerWatch(deps: WatchWiringDeps): { watch: Watch; findings: FindingStore; disposables: vscode.Disposable[] } {
  const findings = new FindingStore(deps.context.globalState);
  deps.tree.attention = new AttentionTree(findings);
  const changed = (): void => {
    const n = findings.unseenCount();
    deps.view.badge = n ? { value: n, tooltip: n === 1 ? vscode.l10n.t('1 new finding needs attention') : vscode.l10n.t('{0} new findings need attention', n) } : undefined;
    deps.tree.refresh();
  };
  const show = (f: StoredFinding): void => {
    const account = deps.accounts.get(f.accountId);
    const org = account?.organizations.find((o) => o.id === f.orgId);
    // Seen at once (the badge drops now); saved in the background.
    void findings.markSeen(f.id);
    changed();
    if (!account || !org) return;
    deps.panels.open({ account, org, start: new Date(f.windowStart), end: new Date(f.end), ...(f.subject ? { source: f.subject } : {}) });
  };
  const watch = new Watch({ accounts: deps.accounts, store: deps.store, findings, log: deps.log, prompter: deps.prompter, changed, show });
  changed();
  const disposables: vscode.Disposable[] = [
    watch,
    vscode.commands.registerCommand(Commands.watchNow, async () => {
      const out = await watch.run();
      deps.prompter().status(
        out.raised.length === 0 ? vscode.l10n.t('DMARC watch: nothing new') : out.raised.length === 1 ? vscode.l10n.t('DMARC watch: 1 new finding') : vscode.l10n.t('DMARC watch: {0} new findings', out.raised.length),
      );
      return out;
    }),
    vscode.commands.registerCommand(SHOW_FINDING, (node?: Node) => node?.kind === 'finding' && show(node.finding)),
    vscode.commands.registerCommand(MUTE_FINDING, async (node?: Node) => {
      if (node?.kind !== 'finding') return;
      await findings.mute(node.finding.id);
      changed();
    }),
    // Findings of a removed account or organization go with it.
    deps.accounts.onDidChange(async () => {
      const gone = [...findings.active(), ...findings.failures()].filter((f) => !deps.accounts.get(f.accountId)?.organizations.some((o) => o.id === f.orgId));
      for (const f of gone) await findings.forget(f.accountId, f.orgId);
      if (gone.length) changed();
    }),
  ];
  return { watch, findings, disposables };
}
