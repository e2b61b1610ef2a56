// Issue 43, item 1: a records panel in a background tab when its load fails. VS Code rebuilds a
// hidden panel's page when its tab comes forward (no retainContextWhenHidden) and drops what was
// posted to it while hidden, so the page said "Fetching records…" for ever after a wrong key was
// saved. Each panel, whatever tab it is in, must end in its rows or its error with Retry and
// Update API Key: the page says ready again when rebuilt, and is told its status after init.
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { extensionApi, removeAllAccounts, runScripted, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { RecordsPanel } from '../../src/panel/recordsPanel';
import { presetRange } from '../../src/records/dateInput';

const KEY = 'hidden-panel-key-51c7';
const ORG = 'org-hidden-1';

interface Watched {
  panel: RecordsPanel;
  /** What the page and the host said, in order: `ready` from the page, the host's message types and whether VS Code delivered them. */
  log: { from: 'page' | 'host'; type: string; partial?: number; canUpdateKey?: boolean; load?: number; last?: boolean; delivered?: boolean }[];
}

/** Records what the page says (its real messages, through the panel's handler) and what the host posts to it. */
function watch(panel: RecordsPanel): Watched {
  const w: Watched = { panel, log: [] };
  const handle = panel.handleMessage.bind(panel);
  panel.handleMessage = (m: unknown) => {
    const type = (m as { type?: unknown })?.type;
    if (type === 'ready') w.log.push({ from: 'page', type });
    return handle(m);
  };
  const webview = panel.panel.webview;
  const post = webview.postMessage.bind(webview);
  (webview as unknown as { postMessage: (m: Record<string, unknown>) => Thenable<boolean> }).postMessage = (m) => {
    const entry: Watched['log'][number] = { from: 'host', type: String(m.type) };
    if (m.type === 'error') Object.assign(entry, { canUpdateKey: m.canUpdateKey, ...(typeof m.partial === 'number' ? { partial: m.partial } : {}) });
    if (m.type === 'rows') Object.assign(entry, { load: m.load, last: m.last });
    w.log.push(entry);
    const sent = post(m);
    void Promise.resolve(sent).then((ok) => (entry.delivered = ok));
    return sent;
  };
  return w;
}

/** The entries after the page's last `ready`, once it has said ready at least `times` times. */
function sinceReady(w: Watched, times: number): Watched['log'] | undefined {
  const readies = w.log.flatMap((e, i) => (e.from === 'page' && e.type === 'ready' ? [i] : []));
  return readies.length >= times ? w.log.slice(readies.at(-1)! + 1) : undefined;
}

const readyCount = (w: Watched) => w.log.filter((e) => e.from === 'page' && e.type === 'ready').length;

/**
 * Until the page has said ready `times` times, then a moment for what it loads after (fonts,
 * Chart.js). The test host's webview service worker holds a new page for 30 s when the page
 * before it went away with a resource still on its way (VS Code's resolveTimeout): the wait is
 * long, and the pause keeps the next tab switch from doing that to the next page.
 */
async function pageReady(w: Watched, times: number, what: string): Promise<void> {
  await until(() => readyCount(w) >= times || undefined, what, 90_000);
  await new Promise((r) => setTimeout(r, 2_000));
}

describe('records panels in background tabs (extension host, local API server)', function () {
  this.timeout(360_000);
  let api: DmarcExplorerApi;
  let server: ApiServer;

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 20 });
    api = await extensionApi();
    await removeAllAccounts(api);
    const account = await api.accounts.add('Acme', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: ORG, name: 'Acme' });
  });
  after(async () => {
    for (const p of api.panels.all) p.panel.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await removeAllAccounts(api);
    await server.close();
  });

  it('after a wrong key is saved, the background panel shows the error with Update API Key when brought forward, and so does the other after a tab switch', async () => {
    const account = api.accounts.list()[0]!;
    const org = account.organizations[0]!;
    const now = new Date();
    const back = watch(api.panels.open({ account, org, ...presetRange('last7', now) }));
    await pageReady(back, 1, 'the Last 7 days page to say ready');
    // The second panel opens in the same group, in front: the first one's tab is in the background.
    const front = watch(api.panels.open({ account, org, ...presetRange('last30', now) }));
    // Its page is rebuilt later, when it comes forward again: it must have started first.
    await pageReady(front, 1, 'the Last 30 days page to say ready');
    await until(() => (!back.panel.panel.visible && front.panel.panel.visible) || undefined, 'Last 7 days to be in a background tab');
    const backReadies = readyCount(back);

    // Update API Key… with a wrong key, Save Anyway: both panels fetch again and are refused.
    await runScripted(api, Commands.updateApiKey, ['wrong-key-123', 'Save Anyway'], { kind: 'account', account });
    const refused = (w: Watched) => w.log.some((e) => e.type === 'error' && e.canUpdateKey === true) || undefined;
    await until(() => refused(front) && refused(back), 'both panels to be told of the 403');
    assert.equal(readyCount(back), backReadies, 'the background page was not rebuilt meanwhile');

    // Brought forward, the background page is rebuilt from its HTML and says ready again: it is
    // told its error right after init, and the message reaches it.
    back.panel.reveal();
    await pageReady(back, backReadies + 1, 'the background page, rebuilt, to say ready');
    const told = await until(() => {
      const after = sinceReady(back, backReadies + 1);
      const error = after?.find((e) => e.type === 'error');
      return error?.delivered !== undefined ? after : undefined;
    }, 'the rebuilt background page to be told its status', 10_000);
    assert.equal(told[0]!.type, 'init');
    assert.deepEqual(told.find((e) => e.type === 'error'), { from: 'host', type: 'error', canUpdateKey: true, delivered: true }, 'the 403 with Retry and Update API Key');

    // And the panel that showed the error in front: after a tab switch it still shows it.
    const frontReadies = readyCount(front);
    front.panel.reveal();
    await pageReady(front, frontReadies + 1, 'the front page, rebuilt, to say ready');
    const again = await until(() => sinceReady(front, frontReadies + 1)?.find((e) => e.type === 'error' && e.delivered !== undefined), 'the front page, rebuilt, to be told its error again', 10_000);
    assert.equal(again.canUpdateKey, true);
    assert.equal(again.delivered, true);
    await runScripted(api, Commands.updateApiKey, [KEY], { kind: 'account', account });
  });

  it('a load that failed after rows came: a page that asks for its rows again is told the error after them, so it keeps them with a note', async () => {
    const account = api.accounts.list()[0]!;
    const org = account.organizations[0]!;
    const day0 = Math.floor(Date.now() / 86_400_000) - 200;
    server.setFaults({ resetMidBody: true });
    const w = watch(api.panels.open({ account, org, start: new Date(day0 * 86_400_000), end: new Date((day0 + 90) * 86_400_000 - 1) }));
    try {
      await until(() => w.log.some((e) => e.type === 'error') || undefined, 'the load to fail');
      const failed = w.log.find((e) => e.type === 'error')!;
      assert.ok((failed.partial ?? 0) > 0, `rows came before the failure: ${JSON.stringify(failed)}`);
      const load = w.log.filter((e) => e.type === 'rows').at(-1)!.load!; // the last attempt's (a retry starts a new load)
      // A rebuilt page (as when its tab comes forward) says ready, then asks for every row again.
      await w.panel.handleMessage({ type: 'ready' });
      w.log.length = 0;
      await w.panel.handleMessage({ type: 'resend', load, from: 0 });
      const lastRows = () => w.log.findIndex((e) => e.type === 'rows' && e.last === true);
      await until(() => (lastRows() >= 0 && w.log.slice(lastRows()).some((e) => e.type === 'error')) || undefined, 'the error again after the rows');
      assert.deepEqual(w.log.slice(lastRows()).find((e) => e.type === 'error')?.partial, failed.partial);
    } finally {
      server.setFaults({});
      w.panel.panel.dispose();
    }
  });
});
