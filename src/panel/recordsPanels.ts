/** The open records panels (src/panel/recordsPanel.ts): opening, restoring, finding and closing them. */
import * as vscode from 'vscode';
import { panelIdentitySchema, viewStateSchema, type ViewState } from '../shared/protocol';
import { panelKey, showsRange, titleOf, type PanelTarget } from './panelIdentity';
import { PANEL_VIEW_TYPE, RecordsPanel, type PanelDeps } from './recordsPanel';

/** All open records panels, one per organization + range (+ source, + initial search). */
export class RecordsPanels implements vscode.Disposable {
  private readonly panels = new Map<string, RecordsPanel>();
  private activePanel: RecordsPanel | undefined;

  constructor(private readonly deps: PanelDeps) {
    deps.store.setViews((...range) => [...this.panels.values()].some(({ target }) => showsRange(target, ...range)));
  }

  /** The open panel for this organization + range (+ source), if any. */
  find(target: PanelTarget): RecordsPanel | undefined {
    return this.panels.get(panelKey(target));
  }

  open(target: PanelTarget): RecordsPanel {
    const existing = this.find(target);
    if (existing) {
      existing.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, titleOf(target), vscode.ViewColumn.Active, this.webviewOptions());
    return this.adopt(panel, target, undefined);
  }

  /** The serializer's half: a panel VS Code restored after a window reload, with its saved state. */
  async restore(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const saved = (state ?? {}) as { identity?: unknown; view?: unknown };
    await this.deps.accounts.ready(); // the report files' domains are known once they were read
    const identity = panelIdentitySchema.safeParse(saved.identity);
    const account = identity.success ? this.deps.accounts.get(identity.data.accountId) : undefined;
    const org = identity.success ? account?.organizations.find((o) => o.id === identity.data.organizationId) : undefined;
    if (!identity.success || !account || !org) {
      this.deps.log.info('a records panel from the last session could not be restored: its account or organization is gone');
      panel.dispose();
      return;
    }
    const view = viewStateSchema.safeParse(saved.view);
    panel.webview.options = this.webviewOptions();
    const target: PanelTarget = { account, org, start: new Date(identity.data.start), end: new Date(identity.data.end), source: identity.data.source };
    panel.title = titleOf(target);
    this.adopt(panel, target, view.success ? view.data : undefined);
  }

  get active(): RecordsPanel | undefined {
    return this.activePanel;
  }

  /** After an account's key changed: its open panels fetch again with the new key, and say so. */
  reloadAccount(accountId: string, notice?: string): void {
    for (const p of this.panels.values()) {
      if (p.target.account.id === accountId) void p.load(true, [notice ?? vscode.l10n.t('Fetched again with the new API key of {0}.', p.target.account.label)]);
    }
  }

  get all(): RecordsPanel[] {
    return [...this.panels.values()];
  }

  private webviewOptions(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableFindWidget: false,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, 'dist')],
    };
  }

  private adopt(panel: vscode.WebviewPanel, target: PanelTarget, view: ViewState | undefined): RecordsPanel {
    const key = panelKey(target);
    const rp = new RecordsPanel(panel, target, this.deps, view);
    this.panels.set(key, rp);
    this.activePanel = rp;
    // Menus and keybindings use VS Code's own activeWebviewPanelId, so no context key is set here.
    panel.onDidChangeViewState(() => {
      if (panel.active) this.activePanel = rp;
    });
    panel.onDidDispose(() => {
      if (this.panels.get(key) === rp) this.panels.delete(key);
      if (this.activePanel === rp) this.activePanel = undefined;
      rp.dispose();
      // Its rows may leave memory now (over the store's cap; what the other panels show stays).
      this.deps.store.release();
    });
    return rp;
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
  }
}
