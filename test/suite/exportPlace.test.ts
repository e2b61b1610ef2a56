// Issue 43, item 5: an export opened a group beside the records panel whatever its width, and a
// panel of ~1,100 px was left with ~520 (Source out of sight, 4 rows). Now the page says how wide
// it is: beside a wide panel only (the panel keeping the keyboard), else a tab of the panel's own
// group behind it, so that the panel stays in front and keeps its page (no rebuild, no rows sent
// again) and the page is told the tab's name.
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { closeUntitled, extensionApi, removeAllAccounts, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { RecordsPanel } from '../../src/panel/recordsPanel';
import { EXPORT_BESIDE_MIN_WIDTH } from '../../src/export/openExport';
import { presetRange } from '../../src/records/dateInput';
import { rawOf } from '../../src/api/rawRow';

const KEY = 'export-place-key-43e5';
const ORG = 'org-export-place';

describe('exports from a records panel open where they do not squeeze it (extension host, issue 43)', function () {
  this.timeout(120_000);
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let panel: RecordsPanel;
  /** What the host posted to the page, and how often the page said ready. */
  const posted: Record<string, unknown>[] = [];
  let readies = 0;

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 20 });
    api = await extensionApi();
    await removeAllAccounts(api);
    const account = await api.accounts.add('Place', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: ORG, name: 'Place Org' });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const added = api.accounts.list().find((a) => a.id === account.id)!;
    panel = api.panels.open({ account: added, org: added.organizations[0]!, ...presetRange('last7', new Date()) });
    const handle = panel.handleMessage.bind(panel);
    panel.handleMessage = (m: unknown) => {
      if ((m as { type?: unknown })?.type === 'ready') readies++;
      return handle(m);
    };
    const webview = panel.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: Record<string, unknown>) => Thenable<boolean> }).postMessage = (m) => (posted.push(m), post(m));
    await until(() => readies > 0 || undefined, 'the page to say ready', 60_000);
    await until(() => panel.rows.length > 2 || undefined, 'rows sent to the page');
  });
  after(async () => {
    panel?.panel.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await removeAllAccounts(api);
    await server.close();
  });

  const response = (requestId: number) => until(() => posted.find((m) => m.type === 'response' && m.requestId === requestId), `the answer to request ${requestId}`);
  const untitled = (name: string) => until(() => vscode.workspace.textDocuments.find((d) => d.isUntitled && d.uri.path === name && d.getText().length > 0), `the document ${name}`);
  /** The tabs of every group: the panel's, and texts by their untitled name. */
  const tabs = () => vscode.window.tabGroups.all.map((g) => g.tabs.map((t) => (t.input instanceof vscode.TabInputWebview ? 'panel' : t.input instanceof vscode.TabInputText ? t.input.uri.path : t.label)));
  const activeTab = (g: vscode.TabGroup) => (g.activeTab?.input instanceof vscode.TabInputWebview ? 'panel' : g.activeTab?.label);

  it(`a panel narrower than ${EXPORT_BESIDE_MIN_WIDTH} px: a tab of its own group, behind it; the panel stays in front and keeps its page`, async () => {
    const before = readies;
    await panel.handleMessage({ type: 'export', requestId: 1, format: 'json', indices: [0, 1], what: 'selected', pageWidth: 1_092 });
    const answer = (await response(1)) as { ok: boolean; result: { count: number; tab?: string } };
    assert.equal(answer.ok, true);
    assert.equal(answer.result.count, 2);
    assert.match(String(answer.result.tab), /^dmarc-Place-Org-\d+\.json$/, 'the page is told the tab\u2019s name');
    const doc = await untitled(answer.result.tab!);
    assert.deepEqual(JSON.parse(doc.getText()), [0, 1].map((i) => rawOf(panel.rows[i]!)));
    assert.deepEqual(tabs(), [['panel', answer.result.tab]], 'one group: the panel, then the export');
    assert.equal(activeTab(vscode.window.tabGroups.all[0]!), 'panel', 'the panel is the tab in front');
    assert.ok(panel.panel.visible, 'the panel is in sight');
    // Groups and the Advice follow the same rule; a page that sends no width (an older one) too.
    await panel.handleMessage({ type: 'exportGroups', requestId: 2, format: 'csv', title: 'Source', rows: [{ group: 'Google', rows: 2, emails: 5, share: 1, dmarcPass: 1, alignedSpf: 1, alignedDkim: 1, delivered: 5, quarantined: 0, rejected: 0, first: '2026-11-01', last: '2026-11-02' }] });
    const groups = (await response(2)) as { result: { tab?: string } };
    assert.match(String(groups.result.tab), /^dmarc-Place-Org-groups-\d+\.csv$/);
    // Each new tab opens right after the panel's (VS Code opens editors beside the active one).
    assert.deepEqual(tabs(), [['panel', groups.result.tab, answer.result.tab]]);
    assert.equal(activeTab(vscode.window.tabGroups.all[0]!), 'panel');
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(readies, before, 'the page was not built again');
    await closeUntitled(await untitled(groups.result.tab!));
    await closeUntitled(doc);
  });

  it(`a panel of ${EXPORT_BESIDE_MIN_WIDTH} px or more: beside it, and the panel keeps the keyboard`, async () => {
    await until(() => (vscode.window.tabGroups.all.length === 1 && panel.panel.active) || undefined, 'the panel alone, in front');
    await panel.handleMessage({ type: 'exportAdvice', requestId: 3, format: 'json', title: 'Ready for p=reject', pageWidth: EXPORT_BESIDE_MIN_WIDTH, rows: [{ source: 'Google', verdict: 'Compliant', reasons: '', emails: 5, failingEmails: 0, quarantinedOrRejected: 0, dmarcPass: 1, fix: '' }] });
    const answer = (await response(3)) as { ok: boolean; result: { count: number; tab?: string } };
    assert.deepEqual(answer.result, { count: 1 }, 'no tab to name: it is in sight');
    const doc = await until(() => vscode.window.visibleTextEditors.find((e) => /^dmarc-Place-Org-advice-\d+\.json$/.test(e.document.uri.path))?.document, 'the Advice export in sight');
    assert.equal(vscode.window.tabGroups.all.length, 2, 'a group beside the panel');
    assert.equal(activeTab(vscode.window.tabGroups.all[0]!), 'panel');
    assert.equal(activeTab(vscode.window.tabGroups.activeTabGroup), 'panel', 'the panel\u2019s group keeps the keyboard');
    await closeUntitled(doc);
  });
});
