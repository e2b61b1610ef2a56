// What changed, in the tree (src/tree/periodCompare.ts), in the real extension host against the
// local API server telling the demo's story: a period fetches its previous period of equal length
// once, in the background; then its sources say new / ▲ / ▼ with figures equal to a count of the
// server's rows; the organization's item shows its 30-day headline; the setting turns it off.
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import type { WireRow } from '../server/data';
import { extensionApi, removeAllAccounts, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Account } from '../../src/accounts/accountStore';
import type { Node, NodeOf } from '../../src/tree/nodes';

const KEY = 'compare-suite-key-93d1f';

describe('tree: what changed since the previous period (extension host, local API server)', function () {
  this.timeout(120_000);
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let account: Account;
  const children = async (node?: Node) => (await api.tree.getChildren(node)) ?? [];
  const dataRequests = () => server.requests.filter((r) => r.path === '/api/public/dmarc-records');
  const org = async (id: string) => (await children()).find((n): n is NodeOf<'org'> => n.kind === 'org' && n.org.id === id)!;
  const bucket = async (orgId: string, label: string) => (await children(await org(orgId))).find((n): n is NodeOf<'bucket'> => n.kind === 'bucket' && n.bucket.label === label)!;
  const sources = async (b: Node) => (await children(b)).filter((n): n is NodeOf<'source'> => n.kind === 'source');

  async function rawRows(orgId: string, start: Date, end: Date): Promise<WireRow[]> {
    const url = new URL('/api/public/dmarc-records', server.url);
    url.searchParams.set('organizationId', orgId);
    url.searchParams.set('startDate', start.toISOString());
    url.searchParams.set('endDate', end.toISOString());
    const body = await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json();
    return Array.isArray(body) ? body : body.dmarcRecords;
  }
  /** Naive: a source's emails and pass rate in rows. */
  function naive(rows: WireRow[], source: string): { emails: number; rate: number | undefined } {
    let emails = 0;
    let pass = 0;
    for (const r of rows) {
      if (r.source !== source) continue;
      emails += r.emails;
      if (r.alignedSpf === 'pass' || r.alignedDkim === 'pass') pass += r.emails;
    }
    return { emails, rate: emails ? pass / emails : undefined };
  }

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: ['acme', 'globex'] }, story: true });
    api = await extensionApi();
    await removeAllAccounts(api);
    account = await api.accounts.add('Compare test', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: 'acme', name: 'Acme' });
    await api.accounts.addOrganization(account.id, { id: 'globex', name: 'Globex' });
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

  it('a period fetches the previous one once; its sources then say new, ▲ or ▼, equal to a count of the rows', async () => {
    const last7 = await bucket('acme', 'Last 7 days');
    const first = await sources(last7);
    assert.ok(first.length > 0);
    const prevStart = new Date(last7.bucket.start.getTime() - 7 * 86_400_000);
    await until(() => dataRequests().some((r) => r.query.startDate === prevStart.toISOString()) || undefined, 'the previous period fetched');
    const list = await until(async () => {
      const s = await sources(last7);
      return s.some((n) => n.change) ? s : undefined;
    }, 'sources compared');
    assert.equal(dataRequests().length, 2, 'the period and its previous one, nothing more');
    const [now, before] = await Promise.all([rawRows('acme', last7.bucket.start, last7.bucket.end), rawRows('acme', prevStart, new Date(last7.bucket.start.getTime() - 1))]);
    const brevo = list.find((n) => n.source.source === 'Brevo');
    assert.ok(brevo?.change, 'the story’s new sender is listed and compared');
    assert.equal(brevo.change.status, 'new');
    assert.match(String(api.tree.getTreeItem(brevo).description), /· new$/);
    assert.match((api.tree.getTreeItem(brevo).tooltip as vscode.MarkdownString).value, /New: no emails in the previous period/);
    for (const n of list) {
      const [a, b] = [naive(now, n.source.source), naive(before, n.source.source)];
      assert.equal(n.change!.emails, a.emails, n.source.source);
      assert.equal(n.change!.before, b.emails, n.source.source);
      if (a.rate !== undefined && b.rate !== undefined) assert.ok(Math.abs(n.change!.deltaPass! - (a.rate - b.rate) * 100) < 1e-9, n.source.source);
    }
    const summary = (await children(last7)).find((n): n is NodeOf<'summary'> => n.kind === 'summary')!;
    assert.ok(summary.change, 'the period’s summary is compared too');
    assert.match((api.tree.getTreeItem(summary).tooltip as vscode.MarkdownString).value, /Previous period: /);
    const seen = dataRequests().length;
    await sources(last7);
    assert.equal(dataRequests().length, seen, 'shown again: no request');
  });

  it('a source whose pass rate fell says ▼ with its points; the organization shows its 30-day headline', async () => {
    const last30 = await bucket('globex', 'Last 7 days');
    await sources(last30);
    const list = await until(async () => {
      const s = await sources(last30);
      return s.some((n) => n.change) ? s : undefined;
    }, 'sources compared');
    const ses = list.find((n) => n.source.source === 'Amazon SES');
    assert.ok(ses?.change?.deltaPass !== undefined && ses.change.deltaPass < -20, `SES fell: ${ses?.change?.deltaPass}`);
    assert.match(String(api.tree.getTreeItem(ses).description), /▼\d+ pts$/);
    // The organization's item: nothing before its 30 days are held, then the pass rate and how it moved.
    assert.doesNotMatch(String(api.tree.getTreeItem(await org('globex')).description ?? ''), /pass/);
    const month = await bucket('globex', 'Last 30 days');
    await sources(month);
    const item = await until(() => {
      const d = String(api.tree.getTreeItem({ kind: 'org', account, org: account.organizations.find((o) => o.id === 'globex')! }).description ?? '');
      return /pass .*pts|pass .*(new|gone)/.test(d) ? d : undefined;
    }, 'the headline with its change');
    assert.match(item, /^globex · \d+(\.\d+)?% pass [▲▼±]/);
  });

  it('dmarc.compare.previousPeriod off: no second request and no change shown', async () => {
    await vscode.workspace.getConfiguration('dmarc').update('compare.previousPeriod', false, vscode.ConfigurationTarget.Global);
    const last7 = await bucket('acme', 'Last 7 days');
    const list = await sources(last7);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(dataRequests().length, 1);
    assert.ok(list.every((n) => !n.change));
  });
});
