// The records panel's Advice judges by the user's dmarc.advice settings: the host sends them
// with init and again whenever they change, to every open panel; copyText and exportAdvice, the
// Advice's two messages, do what they say in the real extension host.
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { extensionApi, removeAllAccounts, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { RecordsPanel } from '../../src/panel/recordsPanel';

const KEY = 'advice-thresholds-key-3b1f';
const ORG = 'org-advice-thresholds';

describe('the records panel and the advice settings (extension host)', function () {
  this.timeout(120_000);
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let panel: RecordsPanel;
  const posted: { type: string; thresholds?: unknown; published?: unknown }[] = [];
  const config = () => vscode.workspace.getConfiguration('dmarc.advice');

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 10 });
    api = await extensionApi();
    await removeAllAccounts(api);
    const account = await api.accounts.add('Advice settings', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: ORG, name: 'Advice Org' });
    const day0 = Math.floor(Date.now() / 86_400_000) - 10;
    panel = api.panels.open({ account: api.accounts.list()[0]!, org: { id: ORG, name: 'Advice Org' }, start: new Date(day0 * 86_400_000), end: new Date((day0 + 3) * 86_400_000 - 1) });
    const webview = panel.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: unknown) => Thenable<boolean> }).postMessage = (m) => {
      const t = (m as { type: string }).type;
      if (t !== 'rows') posted.push(m as { type: string });
      return post(m);
    };
    await panel.load(false);
  });
  after(async () => {
    for (const k of ['compliantShare', 'quarantineShare', 'rejectShare']) await config().update(k, undefined, vscode.ConfigurationTarget.Global);
    panel?.panel.dispose();
    await removeAllAccounts(api);
    await server?.close();
  });

  it('init carries the thresholds the settings give (the defaults when unset)', async () => {
    await until(() => posted.some((m) => m.type === 'init') || undefined, 'init posted');
    assert.deepEqual(posted.find((m) => m.type === 'init')!.thresholds, { compliant: 0.98, quarantine: 0.95, reject: 0.99 });
  });

  it('a change to a dmarc.advice setting is sent to the open panel at once, as fractions', async () => {
    await config().update('compliantShare', 50, vscode.ConfigurationTarget.Global);
    await until(() => posted.some((m) => m.type === 'advice' && m.thresholds) || undefined, 'thresholds posted', 10_000);
    assert.deepEqual(posted.filter((m) => m.type === 'advice' && m.thresholds).at(-1)!.thresholds, { compliant: 0.5, quarantine: 0.95, reject: 0.99 });
    // Out of range: clamped, as the tree reads it.
    await config().update('rejectShare', 250, vscode.ConfigurationTarget.Global);
    await until(() => (posted.filter((m) => m.type === 'advice' && m.thresholds).at(-1)!.thresholds as { reject: number }).reject === 1 || undefined, 'clamped', 10_000);
  });

  it('API rows state no published policy: the panel is told so once its rows are in', async () => {
    await until(() => posted.some((m) => m.type === 'advice' && m.published) || undefined, 'published posted');
    assert.deepEqual(posted.find((m) => m.type === 'advice' && m.published)!.published, { fromReports: false });
  });

  it('copyText writes the text to the clipboard and answers; exportAdvice opens the list as JSON', async () => {
    await panel.handleMessage({ type: 'copyText', requestId: 71, text: 'Signed by `d=esp.example` only: set up DKIM for `acme.com`.' });
    assert.equal(await vscode.env.clipboard.readText(), 'Signed by `d=esp.example` only: set up DKIM for `acme.com`.');
    assert.ok(posted.some((m) => m.type === 'response' && (m as unknown as { requestId: number; ok: boolean }).requestId === 71 && (m as unknown as { ok: boolean }).ok));
    const row = { source: 'ESP', verdict: 'Needs fixing', reasons: 'Signed only by another domain', emails: 10, failingEmails: 7, quarantinedOrRejected: 2, dmarcPass: 0.3, fix: '=HYPERLINK("x")' };
    // No page width in these messages: each export waits in a tab behind the panel (issue 43), the
    // one the answer names.
    const exported = (requestId: number): vscode.TextDocument => {
      const answer = posted.find((m) => m.type === 'response' && (m as unknown as { requestId: number }).requestId === requestId) as unknown as { result: { tab: string } };
      return vscode.workspace.textDocuments.find((d) => d.isUntitled && d.uri.path === answer.result.tab)!;
    };
    await panel.handleMessage({ type: 'exportAdvice', requestId: 72, format: 'json', title: 'Fix 1 source first', rows: [row] });
    const doc = exported(72);
    assert.equal(doc.languageId, 'json');
    assert.deepEqual(JSON.parse(doc.getText()), { advice: 'Fix 1 source first', sources: [row] });
    await panel.handleMessage({ type: 'exportAdvice', requestId: 73, format: 'csv', title: 't', rows: [row] });
    const csv = exported(73).getText();
    assert.equal(csv, 'Source,Verdict,Reasons,Emails,Failing emails,Quarantined or rejected,DMARC pass,Fix\r\nESP,Needs fixing,Signed only by another domain,10,7,2,0.3,"\'=HYPERLINK(""x"")"\r\n');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
