import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { extensionApi, removeAllAccounts, runScripted } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Node, NodeOf } from '../../src/tree/nodes';
import type { Account } from '../../src/accounts/accountStore';
import { refreshReport } from '../../src/tree/refreshRound';

const KEY = 'tree-suite-key-0c41d';
const ORG = 'org-tree-1';

describe('DMARC tree (extension host, local API server)', () => {
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let account: Account;

  const children = async (node?: Node) => (await api.tree.getChildren(node)) ?? [];
  const dataRequests = () => server.requests.filter((r) => r.path === '/api/public/dmarc-records');
  async function bucket(label: string | RegExp, parent?: Node): Promise<NodeOf<'bucket'>> {
    const list = await children(parent ?? (await children())[0]);
    const found = list.find((n) => n.kind === 'bucket' && (typeof label === 'string' ? n.bucket.label === label : label.test(n.bucket.label)));
    assert.ok(found, `bucket ${label}`);
    return found as NodeOf<'bucket'>;
  }

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 40 });
    // These tests count the requests of the buckets themselves: the previous period's (compare.test.ts) is off.
    await vscode.workspace.getConfiguration('dmarc').update('compare.previousPeriod', false, vscode.ConfigurationTarget.Global);
    api = await extensionApi();
    await removeAllAccounts(api);
    account = await api.accounts.add('Tree test', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: ORG, name: 'Tree Org' });
    account = api.accounts.get(account.id)!;
  });
  beforeEach(async () => {
    await api.store.invalidate(account.id);
    server.resetRequests();
  });
  after(async () => {
    await vscode.workspace.getConfiguration('dmarc').update('compare.previousPeriod', undefined, vscode.ConfigurationTarget.Global);
    await removeAllAccounts(api);
    await server.close();
  });

  it('lists the organization (single account: no account level) and its UTC buckets', async () => {
    const roots = await children();
    assert.equal(roots.length, 1);
    assert.equal(roots[0].kind, 'org');
    const item = api.tree.getTreeItem(roots[0]);
    assert.equal(item.label, 'Tree Org');
    const buckets = await children(roots[0]);
    const labels = buckets.map((b) => (b.kind === 'bucket' ? b.bucket.label : ''));
    assert.deepEqual(labels.slice(0, 2), ['Last 7 days', 'Last 30 days']);
    assert.equal(buckets.length, 2 + 13, 'Last 7, Last 30 and 13 months by default');
    assert.match(String(api.tree.getTreeItem(buckets[0]).tooltip), /UTC/);
    assert.equal(dataRequests().length, 0, 'listing buckets fetches nothing');
  });

  it('expanding a bucket issues exactly one request; again none; Refresh one', async () => {
    const last7 = await bucket('Last 7 days');
    const first = await children(last7);
    assert.equal(dataRequests().length, 1);
    const q = dataRequests()[0].query;
    assert.equal(q.organizationId, ORG);
    assert.equal(q.startDate, last7.bucket.start.toISOString());
    assert.equal(q.endDate, last7.bucket.end.toISOString());
    assert.match(q.startDate, /T00:00:00\.000Z$/);
    assert.match(q.endDate, /T23:59:59\.999Z$/);
    assert.deepEqual(first.slice(0, 2).map((n) => n.kind), ['health', 'summary'], 'Health, then the summary');
    assert.ok(first.some((n) => n.kind === 'source'));

    await children(last7);
    assert.equal(dataRequests().length, 1, 'expanding again is served from memory');
    // Selecting an item only asks for its TreeItem.
    api.tree.getTreeItem(first[1]);
    assert.equal(dataRequests().length, 1);

    await vscode.commands.executeCommand(Commands.refreshItem, last7);
    await children(last7);
    assert.equal(dataRequests().length, 2, 'Refresh re-fetches once');
  });

  it('Refresh re-fetches the expanded ranges at once, marks their items, and says what changed', async () => {
    const last7 = await bucket('Last 7 days');
    await children(last7);
    assert.equal(dataRequests().length, 1);
    api.tree.setExpanded(last7, true);
    try {
      const running = vscode.commands.executeCommand<string>(Commands.refresh);
      // VS Code renders the tree again: the expanded range's item says it is refreshing, and its
      // children are fetched anew.
      const again = await bucket('Last 7 days');
      const during = api.tree.getTreeItem(again);
      assert.equal(during.description, 'Refreshing…');
      assert.equal((during.iconPath as vscode.ThemeIcon).id, 'sync~spin');
      await children(again);
      assert.equal(await running, 'Refreshed Last 7 days: no change.');
      assert.equal(dataRequests().length, 2, 'one new request for the expanded range');
      assert.notEqual(api.tree.getTreeItem(again).description, 'Refreshing…', 'the item no longer says so');
      await children(again);
      assert.equal(dataRequests().length, 2, 'rendering it again after the refresh fetches nothing');

      // A refresh that fails says which range and why.
      server.setFaults({ error400: true });
      const failing = vscode.commands.executeCommand<string>(Commands.refresh);
      await children(await bucket('Last 7 days'));
      assert.match(await failing, /^Refresh of Last 7 days failed: \S/);
    } finally {
      server.setFaults({});
      api.tree.setExpanded(last7, false);
    }
  });

  it('the refresh outcome counts rows in their singular or plural form, never "row(s)"', () => {
    const said = (before: number, after: number) => refreshReport([{ label: 'Last 7 days', before, after }]);
    assert.deepEqual([said(5, 6), said(5, 8), said(5, 4), said(5, 2)], [
      'Refreshed Last 7 days: 1 new row.', 'Refreshed Last 7 days: 3 new rows.', 'Refreshed Last 7 days: 1 row fewer.', 'Refreshed Last 7 days: 3 rows fewer.',
    ]);
  });

  it('two expansions of the same range at once share one request', async () => {
    const last30 = await bucket('Last 30 days');
    await Promise.all([children(last30), children(last30)]);
    assert.equal(dataRequests().length, 1);
  });

  it('a day inside a fetched month needs no request, and its rows are exactly that UTC day', async () => {
    const org = (await children())[0];
    const months = (await children(org)).filter((n): n is NodeOf<'bucket'> => n.kind === 'bucket' && n.bucket.kind === 'month');
    const lastMonth = months[1];
    const monthChildren = await children(lastMonth);
    assert.equal(dataRequests().length, 1);
    const q = dataRequests()[0].query;
    assert.equal(q.startDate, lastMonth.bucket.start.toISOString());
    assert.equal(q.endDate, lastMonth.bucket.end.toISOString());
    const group = monthChildren.find((n) => n.kind === 'group');
    assert.ok(group, 'a month lists its days');
    const days = (await children(group)) as NodeOf<'bucket'>[];
    assert.ok(days.length >= 28 && days.length <= 31);
    const day = days[3];
    await children(day);
    assert.equal(dataRequests().length, 1, 'the day is served from the month');
    const scope = { accountId: account.id, organizationId: ORG };
    const data = api.store.peek(scope, day.bucket.start, day.bucket.end)!;
    assert.ok(data.records.length > 0);
    for (const r of data.records) assert.ok(r.dateMs >= day.bucket.start.getTime() && r.dateMs <= day.bucket.end.getTime());
    const month = api.store.peek(scope, lastMonth.bucket.start, lastMonth.bucket.end)!;
    const expected = month.records.filter((r) => r.date.slice(0, 10) === day.bucket.start.toISOString().slice(0, 10)).length;
    assert.equal(data.records.length, expected);
  });

  it('the summary equals an independent computation over the same records', async () => {
    const last30 = await bucket('Last 30 days');
    const items = await children(last30);
    const summary = items.find((n): n is NodeOf<'summary'> => n.kind === 'summary')!;
    // Independently: the raw response over HTTP, counted with plain code.
    const url = new URL('/api/public/dmarc-records', server.url);
    url.searchParams.set('organizationId', ORG);
    url.searchParams.set('startDate', last30.bucket.start.toISOString());
    url.searchParams.set('endDate', last30.bucket.end.toISOString());
    const body = await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json();
    const rows: { emails: number; alignedSpf: string; alignedDkim: string; category: string; source: string }[] = Array.isArray(body) ? body : body.dmarcRecords;
    let emails = 0;
    let pass = 0;
    const byCategory: Record<string, number> = {};
    const bySource = new Map<string, number>();
    for (const r of rows) {
      emails += r.emails;
      if (r.alignedSpf === 'pass' || r.alignedDkim === 'pass') pass += r.emails;
      byCategory[r.category] = (byCategory[r.category] ?? 0) + r.emails;
      bySource.set(r.source, (bySource.get(r.source) ?? 0) + r.emails);
    }
    assert.equal(summary.summary.rows, rows.length);
    assert.equal(summary.summary.emails, emails);
    assert.equal(summary.summary.passEmails, pass);
    assert.ok(Math.abs(summary.summary.passRate! - pass / emails) < 1e-12);
    assert.deepEqual({ ...summary.summary.emailsByCategory }, byCategory);
    const sources = items.filter((n): n is NodeOf<'source'> => n.kind === 'source');
    assert.deepEqual(sources.map((s) => s.source.emails), [...bySource.values()].sort((a, b) => b - a));
    const top = api.tree.getTreeItem(sources[0]);
    assert.match(String(top.description), /emails/);
    assert.ok(top.iconPath instanceof vscode.ThemeIcon && top.iconPath.color instanceof vscode.ThemeColor, 'health icon from theme colours');
    const ips = await children(sources[0]);
    // Its IPs, the busiest first; past the hundredth, one item counts the rest (and their emails).
    const listed = ips.filter((n) => n.kind === 'ip');
    const more = ips.filter((n): n is NodeOf<'moreIps'> => n.kind === 'moreIps');
    assert.ok(listed.length > 0 && listed.length <= 100 && more.length <= 1 && listed.length + more.length === ips.length);
    assert.equal(listed.length + (more[0]?.count ?? 0), sources[0].source.ips.length);
    assert.equal(ips.reduce((n, i) => n + (i.kind === 'ip' ? i.ip.emails : i.kind === 'moreIps' ? i.emails : 0), 0), sources[0].source.emails);
  });

  it('a wrong key gives a 403 item; Update API Key then Retry recovers', async () => {
    await api.accounts.setKey(account.id, 'wrong-key');
    const last7 = await bucket('Last 7 days');
    const failed = await children(last7);
    assert.equal(failed.length, 1);
    assert.equal(failed[0].kind, 'error');
    const item = api.tree.getTreeItem(failed[0]);
    assert.equal(item.contextValue, 'error.forbidden');
    assert.ok(!String(item.label).includes('wrong-key'), 'the key is not shown');
    // The rest of the tree keeps working.
    assert.equal((await children((await children())[0])).length, 15);

    await runScripted(api, Commands.updateApiKey, [KEY], { kind: 'account', account });
    await vscode.commands.executeCommand(Commands.retry, failed[0]);
    const recovered = await children(last7);
    assert.deepEqual(recovered.slice(0, 2).map((n) => n.kind), ['health', 'summary']);
  });

  it('a failed refresh keeps the old data and says so', async () => {
    const last7 = await bucket('Last 7 days');
    const before = await children(last7);
    assert.deepEqual(before.slice(0, 2).map((n) => n.kind), ['health', 'summary']);
    server.setFaults({ error500: true });
    try {
      await vscode.commands.executeCommand(Commands.refreshItem, last7);
      const after = await children(last7);
      assert.equal(after[0].kind, 'message');
      assert.match(String(api.tree.getTreeItem(after[0]).label), /Refresh failed/);
      assert.deepEqual(after.slice(1, 3).map((n) => n.kind), ['health', 'summary']);
      assert.deepEqual((after[2] as NodeOf<'summary'>).summary, (before[1] as NodeOf<'summary'>).summary);
    } finally {
      server.setFaults({});
    }
  });
  it('lists a source\'s 100 busiest IPs, then one item for the rest that opens the source\'s records', async function () {
    this.timeout(120_000);
    const last30 = await bucket('Last 30 days');
    const real = (await children(last30)).find((n) => n.kind === 'source') as NodeOf<'source'>;
    // The same source sending from 250 more addresses, fewer emails each than any real one.
    const extra = Array.from({ length: 250 }, (_, i) => ({ ...real.source.ips[0]!, ipAddress: `198.51.100.${i}`, emails: 0, rows: 1, passEmails: 0, passRate: undefined }));
    const ips = [...real.source.ips, ...extra];
    const node: NodeOf<'source'> = { ...real, source: { ...real.source, ips } };
    const list = await children(node);
    assert.equal(list.filter((n) => n.kind === 'ip').length, 100, 'a hundred listed');
    assert.deepEqual(list.slice(0, 100).map((n) => (n as NodeOf<'ip'>).ip.ipAddress), ips.slice(0, 100).map((ip) => ip.ipAddress), 'the busiest, in order');
    const more = list.at(-1) as NodeOf<'moreIps'>;
    assert.equal(more.kind, 'moreIps');
    assert.equal(more.count, ips.length - 100);
    assert.equal(more.emails, ips.slice(100).reduce((a, ip) => a + ip.emails, 0));
    const item = api.tree.getTreeItem(more);
    assert.equal(item.label, `${(ips.length - 100).toLocaleString()} more IP addresses`);
    assert.equal(item.command?.command, Commands.openRecords);
    await vscode.commands.executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    assert.equal(api.panels.active?.identity.source, real.source.source, 'the source\'s records open');
    // A source with few addresses lists them all, with no such item.
    const few = await children({ ...real, source: { ...real.source, ips: real.source.ips.slice(0, 3) } });
    assert.deepEqual(few.map((n) => n.kind), real.source.ips.slice(0, 3).map(() => 'ip'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
