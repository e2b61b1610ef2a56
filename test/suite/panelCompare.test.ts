import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { extensionApi, removeAllAccounts, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import { previousPeriod } from '../../src/advice/compare';
import { S } from '../../src/shared/rowCodec';
import { chunkOf } from '../unit/rowsMessage';

const KEY = 'panel-compare-key-61d0';
const ORG = 'org-panel-compare';

/** `days` whole UTC days starting `back` days ago. */
function daysBack(back: number, days: number): { start: Date; end: Date } {
  const day0 = Math.floor(Date.now() / 86_400_000) - back;
  return { start: new Date(day0 * 86_400_000), end: new Date((day0 + days) * 86_400_000 - 1) };
}

describe('records panel Compare (extension host): the previous period, one request, cached', () => {
  let api: DmarcExplorerApi;
  let server: ApiServer;

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 30 });
    api = await extensionApi();
    await removeAllAccounts(api);
    const account = await api.accounts.add('Compare test', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: ORG, name: 'Compare Org' });
  });
  after(async () => {
    for (const p of api.panels.all) p.panel.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await removeAllAccounts(api);
    await server.close();
  });

  const requests = () => server.requests.filter((r) => r.path === '/api/public/dmarc-records');

  it('a source\'s panel gets that source\'s rows of the previous period, once; asked again it posts them again without a request; a refresh fetches again', async () => {
    const account = api.accounts.list()[0]!;
    const org = account.organizations[0]!;
    const range = daysBack(40, 7);
    const prev = previousPeriod(range.start, range.end);
    const first = api.panels.open({ account, org, ...range });
    await first.load(false);
    const source = first.rows[0]!.source;
    first.panel.dispose();
    const opened = api.panels.open({ account, org, ...range, source });
    const posted: Record<string, unknown>[] = [];
    const webview = opened.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: Record<string, unknown>) => Thenable<boolean> }).postMessage = (m) => {
      posted.push(m);
      return post(m);
    };
    try {
      await opened.load(false);
      await opened.handleMessage({ type: 'ready' }); // messages other than rows wait for it
      await new Promise((r) => setTimeout(r, 200));
      posted.length = 0;
      const own = opened.rows.length;
      server.resetRequests();
      await opened.handleMessage({ type: 'compare' });
      await until(() => (posted.some((m) => m.type === 'compareRows' && m.last) ? true : undefined), 'the previous period\'s rows');
      assert.equal(requests().length, 1, 'one request for the previous period');
      assert.equal(Date.parse(requests()[0]!.query.startDate!), prev.start.getTime());
      const rows = opened.previous.records;
      assert.ok(rows.length > 0);
      assert.ok(rows.every((r) => r.source === source && r.dateMs >= prev.start.getTime() && r.dateMs <= prev.end.getTime()), 'the source\'s rows of the previous period only');
      const chunks = posted.filter((m) => m.type === 'compareRows') as { offset: number; count: number; data: Uint8Array }[];
      assert.equal(chunks.reduce((n, m) => n + m.count, 0), rows.length);
      const chunk = chunkOf(chunks[0]!);
      assert.equal(chunk.strings[chunk.scalars[S.source]![0]!], source);
      assert.equal(opened.rows.length, own, 'the panel\'s rows stay as they were');
      assert.ok(opened.rows.every((r) => r.source === source && r.dateMs >= range.start.getTime()), 'and its own');

      // The page asks again (a reload, the switch on again): the rows held go again, no request.
      posted.length = 0;
      server.resetRequests();
      await opened.handleMessage({ type: 'compare' });
      await until(() => (posted.some((m) => m.type === 'compareRows' && m.last) ? true : undefined), 'the rows again');
      assert.equal(requests().length, 0, 'no request: the rows are held');
      assert.equal((posted.filter((m) => m.type === 'compareRows') as { count: number }[]).reduce((n, m) => n + m.count, 0), rows.length);

      // Retry (a refresh): the previous period is fetched again too.
      server.resetRequests();
      await opened.load(true);
      await until(() => (requests().length >= 2 ? true : undefined), 'the panel and its previous period fetched again');
      assert.deepEqual(requests().map((r) => Date.parse(r.query.startDate!)).sort(), [prev.start.getTime(), range.start.getTime()].sort());
    } finally {
      opened.panel.dispose();
    }
  });

  it('a failed fetch is one sentence for the page, never a stack, and the panel\'s rows stay', async () => {
    const account = api.accounts.list()[0]!;
    const org = account.organizations[0]!;
    const opened = api.panels.open({ account, org, ...daysBack(120, 3) });
    const posted: Record<string, unknown>[] = [];
    const webview = opened.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: Record<string, unknown>) => Thenable<boolean> }).postMessage = (m) => {
      posted.push(m);
      return post(m);
    };
    try {
      await opened.load(false);
      await opened.handleMessage({ type: 'ready' });
      const rows = opened.rows.length;
      server.setFaults({ error400: true });
      await opened.handleMessage({ type: 'compare' });
      const status = await until(() => posted.find((m) => m.type === 'compareStatus' && m.state === 'error') as { message: string } | undefined, 'the error');
      assert.match(status.message, /400/);
      assert.doesNotMatch(status.message, /\n\s+at /, 'no stack');
      assert.equal(opened.rows.length, rows);
      assert.ok(!posted.some((m) => m.type === 'error'), 'the panel itself did not fail');
    } finally {
      server.setFaults({});
      opened.panel.dispose();
    }
  });
});
