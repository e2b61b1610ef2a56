import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { extensionApi, removeAllAccounts } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Node, NodeOf } from '../../src/tree/nodes';
import type { Account } from '../../src/accounts/accountStore';
import type { HostMessage } from '../../src/shared/protocol';
import { periodHealth } from '../../src/advice/health';
import { DEFAULT_THRESHOLDS } from '../../src/advice/vocabulary';

const KEY = 'tree-days-suite-key-5d2e8';
const ORG = 'org-tree-days-1';

/** The server's rows, as sent: counted here with plain code, independently of src/records. */
interface WireRow { date: string; source: string; ipAddress: string; emails: number; alignedSpf: string; alignedDkim: string }

interface Tally { rows: number; emails: number; pass: number }

function tally(rows: WireRow[]): Tally {
  const t = { rows: rows.length, emails: 0, pass: 0 };
  for (const r of rows) {
    t.emails += r.emails;
    if (r.alignedSpf === 'pass' || r.alignedDkim === 'pass') t.pass += r.emails;
  }
  return t;
}

/**
 * Reads "92% pass · 1,234 emails" (or "0 emails") back into numbers, and checks the wording: the
 * pass rate first, "email" in the singular for one.
 */
function parseDescription(text: string): { percent: number | undefined; emails: number } {
  const m = /^(?:(\d+(?:\.\d)?)% pass · )?([\d,]+) (emails?)(?: · |$)/.exec(text);
  assert.ok(m, `"${text}" reads "<n>% pass · <n> emails"`);
  const emails = Number(m[2]!.replace(/,/g, ''));
  assert.equal(m[3], emails === 1 ? 'email' : 'emails', `"${text}": singular for one email`);
  return { percent: m[1] === undefined ? undefined : Number(m[1]), emails };
}

/** The description shows these emails and, within display rounding, this pass rate. */
function assertShows(text: string, expected: Tally, what: string): void {
  const got = parseDescription(text);
  assert.equal(got.emails, expected.emails, `${what}: emails`);
  if (expected.emails === 0) {
    assert.equal(got.percent, undefined, `${what}: no pass rate without emails`);
    return;
  }
  assert.ok(got.percent !== undefined, `${what}: a pass rate`);
  const exact = (100 * expected.pass) / expected.emails;
  assert.ok(Math.abs(got.percent - exact) <= 0.5, `${what}: ${got.percent}% shown for ${exact.toFixed(3)}%`);
}

function colorId(icon: vscode.TreeItem['iconPath']): string | undefined {
  assert.ok(icon instanceof vscode.ThemeIcon, 'a theme icon');
  return (icon.color as unknown as { id?: string } | undefined)?.id;
}

function expectedHealthColor(t: Tally): string {
  const rate = t.pass / t.emails;
  return rate >= 0.95 ? 'charts.green' : rate >= 0.8 ? 'charts.yellow' : 'charts.red';
}

describe('DMARC tree: days, IPs (extension host, local API server)', () => {
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let account: Account;
  /** Last month (complete, in the past) and every row the server has for it. */
  let month: NodeOf<'bucket'>;
  let monthRows: WireRow[];

  const children = async (node?: Node) => (await api.tree.getChildren(node)) ?? [];
  const dataRequests = () => server.requests.filter((r) => r.path === '/api/public/dmarc-records');

  async function rawRows(start: Date, end: Date): Promise<WireRow[]> {
    const url = new URL('/api/public/dmarc-records', server.url);
    url.searchParams.set('organizationId', ORG);
    url.searchParams.set('startDate', start.toISOString());
    url.searchParams.set('endDate', end.toISOString());
    const body = await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json();
    return Array.isArray(body) ? body : body.dmarcRecords;
  }

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 40 });
    // These tests count the requests of the buckets themselves: the previous period's (compare.test.ts) is off.
    await vscode.workspace.getConfiguration('dmarc').update('compare.previousPeriod', false, vscode.ConfigurationTarget.Global);
    api = await extensionApi();
    await removeAllAccounts(api);
    account = await api.accounts.add('Tree days test', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: ORG, name: 'Tree Days Org' });
    account = api.accounts.get(account.id)!;
    const org = (await children())[0];
    const months = (await children(org)).filter((n): n is NodeOf<'bucket'> => n.kind === 'bucket' && n.bucket.kind === 'month');
    month = months[1]!;
    monthRows = await rawRows(month.bucket.start, month.bucket.end);
    assert.ok(monthRows.length > 0);
  });
  beforeEach(async () => {
    await api.store.invalidate(account.id);
    server.resetRequests();
  });
  after(async () => {
    await vscode.workspace.getConfiguration('dmarc').update('compare.previousPeriod', undefined, vscode.ConfigurationTarget.Global);
    for (const p of api.panels.all) p.panel.dispose();
    await removeAllAccounts(api);
    await server.close();
  });

  it('a fetched month gives every day its emails and pass rate with one request in all', async () => {
    const items = await children(month);
    assert.equal(dataRequests().length, 1, 'the month: one request');
    const group = items.find((n): n is NodeOf<'group'> => n.kind === 'group');
    assert.ok(group, 'the month lists its days');
    const days = (await children(group)) as NodeOf<'bucket'>[];
    assert.equal(days.length, month.bucket.children!.length);
    let withRows = 0;
    for (const day of days) {
      const iso = day.bucket.start.toISOString().slice(0, 10);
      const expected = tally(monthRows.filter((r) => r.date.slice(0, 10) === iso));
      if (expected.rows > 0) withRows++;
      const item = api.tree.getTreeItem(day);
      assertShows(String(item.description), expected, iso);
      assert.equal((item.iconPath as vscode.ThemeIcon).id, 'calendar', 'a day is a date on the calendar, not the presets\u2019 history icon');
      if (expected.emails > 0) assert.equal(colorId(item.iconPath), expectedHealthColor(expected), `${iso} coloured by its health`);
      assert.match(String(item.tooltip), expected.rows === 1 ? /\b1 row\b/ : new RegExp(`\\b${expected.rows.toLocaleString('en')} rows\\b`));
      // Expanding the day is served from the month too, and its summary is the same count.
      const dayItems = await children(day);
      const summary = dayItems.find((n): n is NodeOf<'summary'> => n.kind === 'summary')!;
      assert.deepEqual([summary.summary.rows, summary.summary.emails, summary.summary.passEmails], [expected.rows, expected.emails, expected.pass], iso);
      assertShows(String(api.tree.getTreeItem(summary).label), expected, `${iso} summary`);
    }
    assert.ok(withRows >= 28, 'the sample data has rows on every day');
    assert.equal(dataRequests().length, 1, 'rendering and expanding every day made no request');
  });

  it('days of a month not fetched show nothing and fetch nothing', async () => {
    const org = (await children())[0];
    const other = (await children(org)).filter((n): n is NodeOf<'bucket'> => n.kind === 'bucket' && n.bucket.kind === 'month')[2]!;
    const group: NodeOf<'group'> = { kind: 'group', account: other.account, org: other.org, bucket: other.bucket, label: 'Days', children: other.bucket.children! };
    for (const day of (await children(group)) as NodeOf<'bucket'>[]) {
      assert.equal(api.tree.getTreeItem(day).description, undefined);
      assert.equal(colorId(api.tree.getTreeItem(day).iconPath), undefined, 'no colour without rows');
    }
    assert.equal(dataRequests().length, 0);
  });

  it('summaries are computed once per held range, and again after a refresh', async () => {
    const first = await children(month);
    const again = await children(month);
    const summaryOf = (list: Node[]) => list.find((n): n is NodeOf<'summary'> => n.kind === 'summary')!.summary;
    const sourcesOf = (list: Node[]) => list.filter((n): n is NodeOf<'source'> => n.kind === 'source').map((n) => n.source);
    assert.equal(summaryOf(again), summaryOf(first), 'the same summary object: not recomputed');
    assert.deepEqual(sourcesOf(again).map((s) => s.source), sourcesOf(first).map((s) => s.source));
    sourcesOf(again).forEach((s, i) => assert.equal(s, sourcesOf(first)[i]));
    await vscode.commands.executeCommand(Commands.refreshItem, month);
    const refreshed = await children(month);
    assert.equal(dataRequests().length, 2);
    assert.notEqual(summaryOf(refreshed), summaryOf(first), 'new data, new summary');
    assert.deepEqual({ ...summaryOf(refreshed), emailsByCategory: { ...summaryOf(refreshed).emailsByCategory }, emailsByDisposition: { ...summaryOf(refreshed).emailsByDisposition } },
      { ...summaryOf(first), emailsByCategory: { ...summaryOf(first).emailsByCategory }, emailsByDisposition: { ...summaryOf(first).emailsByDisposition } });
  });

  it('IP items show their pass rate and emails equal to a count of the rows, and their verdict\u2019s colour', async () => {
    const sources = (await children(month)).filter((n): n is NodeOf<'source'> => n.kind === 'source');
    assert.ok(sources.length > 1);
    // Sources and IPs are coloured by verdict (test/suite/health.test.ts), as the advice rules judge the same rows.
    const held = api.store.peekRecords({ accountId: account.id, organizationId: ORG }, month.bucket.start, month.bucket.end)!;
    const verdicts = periodHealth(held, { thresholds: DEFAULT_THRESHOLDS, days: 30 });
    const VERDICT_COLOURS: Record<string, string> = { compliant: 'charts.green', 'needs-fixing': 'charts.yellow', forwarded: 'charts.blue', unauthenticated: 'charts.red' };
    let checked = 0;
    const colours = new Set<string>();
    for (const source of sources) {
      // The hundred busiest (a busier source's others are counted by one "more" item: tree.test.ts).
      const ips = (await children(source)).filter((n): n is NodeOf<'ip'> => n.kind === 'ip');
      assert.ok(ips.length > 0 && ips.length === Math.min(100, source.source.ips.length));
      for (const ip of ips) {
        const expected = tally(monthRows.filter((r) => r.source === source.source.source && r.ipAddress === ip.ip.ipAddress));
        const item = api.tree.getTreeItem(ip);
        assert.equal(item.label, ip.ip.ipAddress);
        assert.equal(item.contextValue, 'ip');
        assertShows(String(item.description), expected, ip.ip.ipAddress);
        assert.equal(ip.ip.passEmails, expected.pass);
        const colour = colorId(item.iconPath);
        const verdict = verdicts.sources.find((v) => v.source === source.source.source)!.ips.get(ip.ip.ipAddress)!.verdict;
        assert.equal(colour, VERDICT_COLOURS[verdict], `${ip.ip.ipAddress}: ${verdict}'s colour`);
        colours.add(colour!);
        assert.match(String(item.tooltip), new RegExp(`${expected.emails === 1 ? '1 email' : `${expected.emails.toLocaleString('en')} emails`} in ${expected.rows === 1 ? '1 row' : `${expected.rows.toLocaleString('en')} rows`}`));
        checked++;
      }
    }
    assert.ok(checked >= 5, `${checked} IPs checked`);
    assert.ok(colours.size >= 2, `the sample data has IPs of different verdicts (${[...colours].join(', ')})`);
    assert.equal(dataRequests().length, 1);
  });

  it('Copy IP Address puts the IP on the clipboard', async () => {
    const source = (await children(month)).find((n): n is NodeOf<'source'> => n.kind === 'source')!;
    const ips = (await children(source)) as NodeOf<'ip'>[];
    for (const ip of ips.slice(0, 2)) {
      await vscode.env.clipboard.writeText('before');
      await vscode.commands.executeCommand(Commands.copyIpAddress, ip);
      assert.equal(await vscode.env.clipboard.readText(), ip.ip.ipAddress);
    }
  });

  it('Open Records on an IP opens its source\'s records searched for the IP, one panel per IP', async () => {
    const source = (await children(month)).find((n): n is NodeOf<'source'> => n.kind === 'source' && n.source.ips.length > 1)!;
    assert.ok(source, 'a source with two IPs');
    const [ipA, ipB] = (await children(source)) as NodeOf<'ip'>[];
    const before = api.panels.all.length;
    await vscode.commands.executeCommand(Commands.openRecords, ipA);
    const panel = api.panels.all.find((p) => p.target.initialSearch === ipA!.ip.ipAddress);
    assert.ok(panel, 'a panel for the IP');
    assert.equal(panel.target.source, source.source.source);
    assert.equal(panel.identity.start, month.bucket.start.toISOString());
    assert.equal(panel.identity.end, month.bucket.end.toISOString());
    assert.ok(panel.panel.title.endsWith(` · ${source.source.source} · ${ipA!.ip.ipAddress}`), panel.panel.title);

    // What the webview is told when it starts: the IP as its search.
    const posted: HostMessage[] = [];
    const webview = panel.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: HostMessage) => Thenable<boolean> }).postMessage = (m) => {
      posted.push(m);
      return post(m);
    };
    await panel.handleMessage({ type: 'ready' });
    const init = posted.find((m): m is Extract<HostMessage, { type: 'init' }> => m.type === 'init');
    assert.equal(init?.initialSearch, ipA!.ip.ipAddress);
    // Its rows are the source's (the search narrows them to the IP in the webview), from memory.
    assert.equal(panel.rows.length, source.source.rows);
    assert.ok(panel.rows.every((r) => r.source === source.source.source));
    assert.equal(panel.rows.filter((r) => r.ipAddress === ipA!.ip.ipAddress).length, ipA!.ip.rows);

    await vscode.commands.executeCommand(Commands.openRecords, ipB);
    assert.equal(api.panels.all.length, before + 2, 'another IP, another panel');
    await vscode.commands.executeCommand(Commands.openRecords, ipA);
    assert.equal(api.panels.all.length, before + 2, 'the same IP again reveals its panel');
    assert.equal(dataRequests().length, 1);
    for (const p of api.panels.all.slice(before)) p.panel.dispose();
  });
});
