import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { API_PATH, startApiServer, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { lastDaysBucket } from '../../src/records/buckets';
import { previousPeriod } from '../../src/advice/compare';
import { summarize } from '../../src/records/summary';
import { extensionApi, removeAllAccounts, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Account } from '../../src/accounts/accountStore';
import type { Node, NodeOf } from '../../src/tree/nodes';
import type { OverviewRow } from '../../src/shared/overviewProtocol';
import { REPORT_FILES_ID } from '../../src/reportFiles/reportFiles';

const KEY = 'overview-suite-key-3c1f';
const OTHER_KEY = 'overview-suite-key-2-88ad';
/** acme and globex are sample organizations with several sources; ov-locked is one the key cannot read. */
const ORGS = ['acme', 'globex', 'ov-locked'];

describe('Overview of all organizations (extension host, local API server)', () => {
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let main: Account;
  let other: Account;
  let broken: Account;

  const records = () => server.requests.filter((r) => r.path.endsWith(API_PATH));
  const row = (name: string): OverviewRow => {
    const r = api.overview.currentRows.find((x) => x.name === name);
    assert.ok(r, `a row for ${name}: ${api.overview.currentRows.map((x) => x.name).join(', ')}`);
    return r;
  };
  async function openOverview(): Promise<void> {
    await vscode.commands.executeCommand(Commands.openOverview);
    await api.overview.settled();
  }

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: ['acme', 'globex'], [OTHER_KEY]: ['initech'] }, rowsPerDay: 25 });
    api = await extensionApi();
    await removeAllAccounts(api);
    main = await api.accounts.add('Overview main', server.url, KEY);
    for (const id of ORGS) await api.accounts.addOrganization(main.id, { id, name: `Org ${id}` });
    other = await api.accounts.add('Overview other', server.url, OTHER_KEY);
    await api.accounts.addOrganization(other.id, { id: 'initech', name: 'Org initech' });
    // A server that fails every request of this account with a 500 (retried, then given up).
    broken = await api.accounts.add('Overview broken', `${server.url}/_faults/error500`, OTHER_KEY);
    await api.accounts.addOrganization(broken.id, { id: 'initech', name: 'Org initech (500)' });
    main = api.accounts.get(main.id)!;
  });
  after(async () => {
    api.overview.webviewPanel?.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await removeAllAccounts(api);
    await server.close();
  });

  it('one request per organization covers this period and the one before; a forbidden one and a 500 say so in their rows, the others load', async function () {
    this.timeout(60_000);
    server.resetRequests();
    await openOverview();
    assert.ok(api.overview.webviewPanel, 'the Overview panel is open');
    assert.equal(api.overview.webviewPanel.title, 'DMARC Overview');
    const rows = api.overview.currentRows;
    assert.deepEqual(rows.map((r) => r.name), ['Org acme', 'Org globex', 'Org ov-locked', 'Org initech', 'Org initech (500)'], 'every organization of every account, in order');
    for (const name of ['Org acme', 'Org globex', 'Org initech']) assert.equal(row(name).state, 'loaded', name);
    const locked = row('Org ov-locked');
    assert.equal(locked.state, 'error');
    assert.match(locked.error ?? '', /403/);
    assert.match(locked.error ?? '', /organization ID/i, 'in words: check the key and the organization ID');
    const failed = row('Org initech (500)');
    assert.equal(failed.state, 'error');
    assert.match(failed.error ?? '', /500/);

    const bucket = lastDaysBucket(30, new Date());
    const prev = previousPeriod(bucket.start, bucket.end);
    const good = records().filter((r) => !r.path.includes('_faults'));
    assert.deepEqual(good.map((r) => r.query.organizationId).sort(), ['acme', 'globex', 'initech', 'ov-locked'], 'one request per organization');
    for (const r of good) {
      assert.equal(Date.parse(r.query.startDate!), prev.start.getTime(), 'from the first day of the previous period');
      assert.equal(Date.parse(r.query.endDate!), bucket.end.getTime(), 'to the end of today');
    }
    const acme = row('Org acme').figures!;
    assert.ok(acme.emails > 0 && acme.before > 0, 'mail in both periods');
    assert.equal(acme.daily.length, 30);
    assert.equal(acme.lastDay, new Date().toISOString().slice(0, 10));
    assert.equal(acme.deltaEmails, acme.emails - acme.before);
  });

  it('its figures are the tree\u2019s for Last 30 days, which opens from the same cache without a request', async function () {
    this.timeout(60_000);
    await openOverview();
    server.resetRequests();
    const top = (await api.tree.getChildren()) ?? [];
    const acmeNode = (await Promise.all(top.map(async (a) => ((await api.tree.getChildren(a)) ?? []).find((n) => n.kind === 'org' && n.org.id === 'acme')))).find(Boolean) as Node;
    assert.ok(acmeNode, 'acme in the tree');
    const last30 = ((await api.tree.getChildren(acmeNode)) ?? []).find((n): n is NodeOf<'bucket'> => n.kind === 'bucket' && n.bucket.label === 'Last 30 days');
    assert.ok(last30);
    const items = (await api.tree.getChildren(last30)) ?? [];
    const health = items.find((n): n is NodeOf<'health'> => n.kind === 'health');
    assert.ok(health, 'the period\u2019s Health, from what the Overview fetched');
    assert.equal(records().length, 0, 'no request: the Overview\u2019s range covers the tree\u2019s bucket');
    const f = row('Org acme').figures!;
    const h = health.health;
    assert.equal(f.needsFixing, h.sources.filter((s) => s.verdict === 'needs-fixing').length, 'sources to fix');
    assert.equal(f.unauthenticated, h.mix[3], 'unauthenticated emails');
    assert.equal(f.readiness.kind, h.readiness.step.kind);
    assert.equal(f.readiness.text, h.readiness.step.text);
    const held = api.store.peekRecords({ accountId: main.id, organizationId: 'acme' }, last30.bucket.start, last30.bucket.end)!;
    const s = summarize(held);
    assert.equal(f.emails, s.emails, 'emails');
    assert.ok(Math.abs((f.passRate ?? -1) - s.passRate!) < 1e-12, 'pass rate');
  });

  it('a second open within the cache\u2019s life sends no request for what loaded (the failed are asked again); 7 days is inside what is held; an invalid message is ignored', async function () {
    this.timeout(60_000);
    await openOverview();
    const before = api.overview.currentRows;
    api.overview.webviewPanel!.dispose();
    server.resetRequests();
    await openOverview();
    assert.deepEqual(records().filter((r) => !r.path.includes('_faults')).map((r) => r.query.organizationId), ['ov-locked'], 'only the organization that failed is asked again');
    assert.deepEqual(api.overview.currentRows.filter((r) => r.state === 'loaded'), before.filter((r) => r.state === 'loaded'), 'the same rows, from memory');
    server.resetRequests();
    await api.overview.handleMessage({ type: 'setPeriod', days: 7 });
    await api.overview.settled();
    assert.equal(records().filter((r) => !r.path.includes('_faults')).length, 1, 'only the forbidden organization again: 7 days and the 7 before are inside the 60 days held');
    assert.equal(row('Org acme').figures!.daily.length, 7);
    await api.overview.handleMessage({ type: 'setPeriod', days: 30 });
    await api.overview.settled();
    // Untrusted messages: a wrong shape, an unknown type, a key that names no row.
    await api.overview.handleMessage({ type: 'setPeriod', days: 365 });
    await api.overview.handleMessage({ type: 'open', key: 5 });
    await api.overview.handleMessage({ type: 'nuke' });
    await api.overview.handleMessage({ type: 'open', key: JSON.stringify(['nobody', 'acme']) });
    assert.equal(api.panels.all.length, 0, 'nothing opened');
    assert.equal(row('Org acme').figures!.daily.length, 30);
  });

  it('choosing a row opens that organization\u2019s records for the period, from the cache', async function () {
    this.timeout(60_000);
    await openOverview();
    server.resetRequests();
    await api.overview.handleMessage({ type: 'open', key: row('Org globex').key });
    const panel = await until(() => api.panels.all.find((p) => p.target.org.id === 'globex'), 'the records panel of globex');
    const bucket = lastDaysBucket(30, new Date());
    assert.equal(panel.identity.start, bucket.start.toISOString());
    assert.equal(panel.identity.end, bucket.end.toISOString());
    await until(() => panel.rows.length > 0 || undefined, 'its rows');
    assert.equal(panel.rows.reduce((a, r) => a + r.emails, 0), row('Org globex').figures!.emails, 'the same emails as its row');
    assert.equal(records().length, 0, 'no request');
    panel.panel.dispose();
  });

  it('a missing key says so in its row; Refresh fetches every organization again, one request each', async function () {
    this.timeout(60_000);
    await openOverview();
    await api.context.secrets.delete(`dmarc.apiKey.${other.id}`);
    server.resetRequests();
    await api.overview.handleMessage({ type: 'refresh' });
    await api.overview.settled();
    assert.match(row('Org initech').error ?? '', /API key of Overview other is missing/);
    const good = records().filter((r) => !r.path.includes('_faults'));
    assert.deepEqual(good.map((r) => r.query.organizationId).sort(), ['acme', 'globex', 'ov-locked'], 'one request each; none without a key');
    assert.equal(row('Org acme').state, 'loaded');
    await api.context.secrets.store(`dmarc.apiKey.${other.id}`, OTHER_KEY);
  });

  it('exports the rows in the order asked, as CSV with column names as words', async function () {
    this.timeout(60_000);
    await openOverview();
    const order = [row('Org globex').key, row('Org acme').key];
    await api.overview.handleMessage({ type: 'export', requestId: 1, format: 'csv', order });
    const doc = await until(() => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'untitled' && /dmarc-overview-30d/.test(d.uri.path)), 'the export tab');
    const lines = doc.getText().split(/\r?\n/);
    assert.match(lines[0]!, /^Organization,Organization ID,Account,Emails,DMARC pass,/);
    assert.match(lines[1]!, /^Org globex,globex,Overview main,\d+,/);
    assert.match(lines[2]!, /^Org acme,acme,/);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('report-files domains are rows too, read from the files with no request', async function () {
    this.timeout(60_000);
    const folder = join(__dirname, '..', '..', 'test', 'fixtures', 'reports');
    await api.reportFiles.add([folder]);
    try {
      const domains = api.reportFiles.library.domains().map((d) => d.domain);
      assert.ok(domains.length >= 1, `the fixtures' policy domains: ${domains}`);
      await openOverview();
      server.resetRequests();
      await until(() => domains.every((d) => api.overview.currentRows.some((r) => r.reportFiles && r.organizationId === d && r.state === 'loaded')) || undefined, 'a loaded row per domain');
      const rows = api.overview.currentRows.filter((r) => r.reportFiles);
      assert.deepEqual(rows.map((r) => r.organizationId).sort(), [...domains].sort());
      assert.ok(rows.every((r) => r.key === JSON.stringify([REPORT_FILES_ID, r.organizationId]) && r.account === 'Report Files'));
      await api.overview.settled();
      assert.deepEqual(records().filter((r) => domains.includes(r.query.organizationId ?? '')), [], 'no request for them');
    } finally {
      await api.reportFiles.remove(folder);
    }
  });

  it('with concurrency 1 and a slow server, requests go one at a time; stopping the load keeps what came in and marks the rest', async function () {
    this.timeout(60_000);
    const config = vscode.workspace.getConfiguration('dmarc');
    await config.update('overview.concurrency', 1, vscode.ConfigurationTarget.Global);
    server.setFaults({ latencyMs: 400 });
    try {
      await openOverview();
      server.resetRequests();
      void api.overview.handleMessage({ type: 'refresh' });
      await until(() => api.overview.currentRows.some((r) => r.state === 'loaded') || undefined, 'the first organization in', 10_000);
      assert.ok(records().length <= 2, `one at a time: ${records().length} requests so far`);
      // What Cancel on the notification does: abort the load (the panel's own close does the same).
      api.overview.webviewPanel!.dispose();
      await api.overview.settled();
      const states = api.overview.currentRows.map((r) => r.state);
      assert.ok(states.includes('loaded'), `rows already in stay: ${states}`);
      assert.ok(states.includes('cancelled'), `the rest say they were not loaded: ${states}`);
      assert.ok(!states.includes('loading'));
    } finally {
      server.setFaults({});
      await config.update('overview.concurrency', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
