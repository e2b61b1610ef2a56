import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { extensionApi, removeAllAccounts, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import { fetchDmarcRecords } from '../../src/api';
import { RecordStore, type RecordScope } from '../../src/records/recordStore';
import { RecordsPanels } from '../../src/panel/recordsPanels';

const KEY = 'panel-memory-key-5c1d';
const ORG = 'org-panel-memory';

/** Whole UTC days starting `back` days ago. */
function daysBack(back: number, days: number): { start: Date; end: Date } {
  const day0 = Math.floor(Date.now() / 86_400_000) - back;
  return { start: new Date(day0 * 86_400_000), end: new Date((day0 + days) * 86_400_000 - 1) };
}

/**
 * Real panels over a record store whose memory cap is one row (the extension's is 300,000): what
 * a closed panel showed leaves memory, what an open one shows stays.
 */
describe('records panels: a closed panel\u2019s rows leave memory (extension host, local API server)', () => {
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let panels: RecordsPanels;
  let log: vscode.LogOutputChannel;

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 20 });
    api = await extensionApi();
    await removeAllAccounts(api);
    log = vscode.window.createOutputChannel('DMARC panel memory test', { log: true });
  });
  after(async () => {
    panels?.dispose();
    log.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await removeAllAccounts(api);
    await server.close();
  });

  it('closing a panel drops its range over the cap; a range another open panel shows stays until that one closes', async () => {
    const account = await api.accounts.add('Memory test', server.url, KEY);
    const org = await api.accounts.addOrganization(account.id, { id: ORG, name: 'Memory Org' }).then(() => api.accounts.get(account.id)!.organizations[0]!);
    const dropped: string[] = [];
    const store = new RecordStore({
      fetch: (scope, start, end, signal, onRows) => fetchDmarcRecords({ baseUrl: scope.baseUrl, apiKey: scope.apiKey, organizationId: scope.organizationId, startDate: start, endDate: end }, { signal, onRows }),
      maxRecords: 1,
      log: (l) => dropped.push(l),
    });
    panels = new RecordsPanels({
      extensionUri: api.context.extensionUri,
      accounts: { get: (id) => api.accounts.get(id), getKey: (id) => api.accounts.getKey(id), ready: async () => undefined },
      store,
      log,
    });
    const scope: RecordScope = { accountId: account.id, baseUrl: account.baseUrl, apiKey: KEY, organizationId: org.id };
    const a = daysBack(30, 3);
    const b = daysBack(20, 2);
    const first = panels.open({ account, org, ...a });
    await until(() => first.rows.length > 0 || undefined, 'the first panel\u2019s rows');
    const second = panels.open({ account, org, ...b });
    await until(() => second.rows.length > 0 || undefined, 'the second panel\u2019s rows');
    // Fetching the second range, over the cap, already dropped the first (the store's own rule);
    // the first panel keeps showing its rows, which it holds itself.
    await until(() => store.peek(scope, b.start, b.end), 'the second range kept once it is in');
    assert.equal(store.peek(scope, a.start, a.end), undefined);
    // Opened again on a day of the second range: that panel shows part of it.
    const inside = { start: b.start, end: new Date(b.start.getTime() + 86_400_000 - 1) };
    const third = panels.open({ account, org, ...inside });
    await until(() => third.rows.length > 0 || undefined, 'the third panel\u2019s rows');
    const before = dropped.length;
    second.panel.dispose();
    assert.ok(store.peek(scope, b.start, b.end), 'still held: the third panel shows a day of it');
    assert.equal(dropped.length, before, dropped.join('\n'));
    third.panel.dispose();
    await until(() => store.peek(scope, b.start, b.end) === undefined || undefined, 'the range to leave memory');
    assert.match(dropped.slice(before).join('\n'), /memory cache: dropped a range of \d+ rows \(over 1\)/);
    assert.equal(first.rows.length > 0, true, 'an open panel\u2019s rows are its own');
    first.panel.dispose();
  });
});
