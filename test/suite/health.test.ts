import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { periodHealth, type PeriodHealth } from '../../src/advice/health';
import { DEFAULT_THRESHOLDS, termOf, type AdviceThresholds, type RowClass } from '../../src/advice/vocabulary';
import type { DmarcRecord } from '../../src/api/types';
import { DAY_MS } from '../../src/records/buckets';
import { adviceThresholds, shareOf } from '../../src/tree/adviceSettings';
import { COPY_FIX_TEXT } from '../../src/tree/healthNodes';
import { extensionApi, removeAllAccounts, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Node, NodeOf } from '../../src/tree/nodes';
import type { Account } from '../../src/accounts/accountStore';
import type { HostMessage } from '../../src/shared/protocol';

const KEY = 'health-suite-key-7d2e1';
/** The sample organization with three Header From domains. */
const ORG = 'acme';
const CLASS_ORDER: RowClass[] = ['needs-fixing', 'forwarded', 'unauthenticated', 'compliant'];
const COLOURS: Record<RowClass, string> = { compliant: 'charts.green', 'needs-fixing': 'charts.yellow', forwarded: 'charts.blue', unauthenticated: 'charts.red' };
const PHRASES: Record<string, RegExp> = {
  'no-mail': /^No mail$/,
  losing: /^Legitimate mail being lost$/,
  fix: /^(Fix \d+ sources?|Nothing authenticates)$/,
  forwarded: /^Forwarded mail fails$/,
  quarantine: /^Ready for p=quarantine$/,
  reject: /^Ready for p=reject$/,
  enforced: /^Enforced$/,
};

/** A Markdown tooltip's text as read: without emphasis markers, and data without the escapes appendText gave it. */
function plain(tooltip: vscode.TreeItem['tooltip']): string {
  const v = tooltip instanceof vscode.MarkdownString ? tooltip.value : String(tooltip ?? '');
  // Bold and italic markers first (an escaped `\*` from data is not one), then the escapes.
  return v.replace(/(?<!\\)\*{1,2}/g, '').replace(/\\([\\`*_{}[\]()#+\-.!~|<>])/g, '$1').replace(/&nbsp;/g, ' ');
}

function colorId(icon: vscode.TreeItem['iconPath']): string | undefined {
  assert.ok(icon instanceof vscode.ThemeIcon, 'a theme icon');
  return (icon.color as unknown as { id?: string } | undefined)?.id;
}

describe('DMARC tree: Health (extension host, local API server)', () => {
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let account: Account;

  const children = async (node?: Node) => (await api.tree.getChildren(node)) ?? [];
  const config = () => vscode.workspace.getConfiguration('dmarc.advice');

  async function last30(): Promise<NodeOf<'bucket'>> {
    const found = (await children((await children())[0])).find((n) => n.kind === 'bucket' && n.bucket.label === 'Last 30 days');
    assert.ok(found, 'Last 30 days');
    return found as NodeOf<'bucket'>;
  }

  /** The expanded period's items, its records as the tree holds them, and their health computed here. */
  async function period(bars: AdviceThresholds = DEFAULT_THRESHOLDS): Promise<{ bucket: NodeOf<'bucket'>; items: Node[]; records: readonly DmarcRecord[]; expected: PeriodHealth }> {
    const bucket = await last30();
    const items = await children(bucket);
    const records = api.store.peekRecords({ accountId: account.id, organizationId: ORG }, bucket.bucket.start, bucket.bucket.end);
    assert.ok(records && records.length > 0, 'the period\u2019s rows are in memory');
    const days = Math.round((bucket.bucket.end.getTime() + 1 - bucket.bucket.start.getTime()) / DAY_MS);
    return { bucket, items, records, expected: periodHealth(records, { thresholds: bars, days, locale: vscode.env.language }) };
  }

  const healthOf = (items: Node[]) => {
    const h = items[0];
    assert.equal(h?.kind, 'health', 'Health is the first item');
    return h as NodeOf<'health'>;
  };

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 60 });
    api = await extensionApi();
    await removeAllAccounts(api);
    account = await api.accounts.add('Health test', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: ORG, name: 'Health Org' });
    account = api.accounts.get(account.id)!;
  });
  afterEach(async () => {
    for (const k of ['compliantShare', 'quarantineShare', 'rejectShare']) await config().update(k, undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(async () => {
    await removeAllAccounts(api);
    await server.close();
  });

  it('Health comes first in an expanded period; its domains and class groups equal periodHealth on the same records', async () => {
    const { items, expected } = await period();
    const health = healthOf(items);
    assert.equal(items[1]?.kind, 'summary', 'then the summary');
    const item = api.tree.getTreeItem(health);
    assert.equal(item.label, 'Health');
    assert.match(String(item.description), PHRASES[expected.readiness.step.kind]!, `${expected.readiness.step.kind}: ${item.description}`);
    const tip = plain(item.tooltip);
    assert.ok(tip.includes(expected.readiness.step.text), `the full step in the tooltip: ${tip}`);
    assert.match(tip, /Legitimate mail passing DMARC: /);
    assert.ok(tip.includes(`At risk under enforcement: ${expected.readiness.atRisk.emails.toLocaleString('en')} email`), tip);
    assert.ok(tip.includes(`Enforcement would stop: ${expected.readiness.stopped.toLocaleString('en')} email`), tip);
    assert.ok(tip.includes(`quarantined ${expected.readiness.observed.quarantine.toLocaleString('en')} email`), tip);
    assert.ok(['warning', 'error', 'pass'].includes((item.iconPath as vscode.ThemeIcon).id));

    const kids = await children(health);
    const domains = kids.filter((n): n is NodeOf<'healthDomain'> => n.kind === 'healthDomain');
    assert.ok(expected.domains.length >= 2, 'the sample organization has several Header From domains');
    assert.deepEqual(domains.map((d) => d.domain.domain), expected.domains.map((d) => d.domain));
    for (const d of domains) {
      const di = api.tree.getTreeItem(d);
      const want = expected.domains.find((e) => e.domain === d.domain.domain)!.readiness;
      assert.match(String(di.description), PHRASES[want.step.kind]!);
      assert.ok(plain(di.tooltip).includes(want.step.text));
    }
    const groups = kids.filter((n): n is NodeOf<'healthClass'> => n.kind === 'healthClass');
    assert.equal(kids.length, domains.length + groups.length, 'domains, then class groups');
    const wanted = CLASS_ORDER.map((cls) => ({ cls, sources: expected.sources.filter((s) => s.verdict === cls).map((s) => s.source) })).filter((g) => g.sources.length);
    assert.deepEqual(groups.map((g) => g.cls), wanted.map((g) => g.cls), 'non-empty groups in order');
    assert.ok(groups.length >= 2, `several verdicts in the sample data: ${groups.map((g) => g.cls).join(', ')}`);
    for (const [i, g] of groups.entries()) {
      assert.equal(api.tree.getTreeItem(g).label, `${termOf(g.cls)!.label} (${wanted[i]!.sources.length})`);
      const listed = (await children(g)) as NodeOf<'healthSource'>[];
      assert.deepEqual(listed.map((s) => s.advice.source), wanted[i]!.sources, `${g.cls}: its sources`);
      for (const s of listed) {
        const want = expected.sources.find((e) => e.source === s.advice.source)!;
        assert.deepEqual([s.advice.mix, s.advice.emails, s.advice.fix], [want.mix, want.emails, want.fix]);
        const si = api.tree.getTreeItem(s);
        assert.match(String(si.description), /emails?$/);
        assert.equal(colorId(si.iconPath), COLOURS[g.cls]);
        assert.ok(plain(si.tooltip).includes(termOf(g.cls)!.rule), 'the verdict\u2019s rule');
      }
    }
    // Rendered again: the same health object (memoised per records array).
    assert.equal(healthOf(await children(await last30())).health, health.health);
  });

  it('a Needs fixing source shows its fix, Copy Fix Text copies it, and a click opens its records', async () => {
    const { items, expected } = await period();
    const group = (await children(healthOf(items))).find((n): n is NodeOf<'healthClass'> => n.kind === 'healthClass' && n.cls === 'needs-fixing');
    assert.ok(group, 'the sample data has a Needs fixing source');
    const [source] = (await children(group)) as NodeOf<'healthSource'>[];
    const want = expected.sources.find((s) => s.source === source!.advice.source)!;
    assert.ok(want.fix.length > 0);
    const item = api.tree.getTreeItem(source!);
    assert.equal(item.contextValue, 'healthSource.fix');
    assert.ok(plain(item.tooltip).includes(want.fix), `the fix in the tooltip: ${plain(item.tooltip)}`);
    assert.ok(plain(item.tooltip).includes('Needs fixing'));

    await vscode.env.clipboard.writeText('before');
    await vscode.commands.executeCommand(COPY_FIX_TEXT, source);
    assert.equal(await vscode.env.clipboard.readText(), want.fix);

    assert.equal(item.command?.command, Commands.openRecords);
    const [arg] = item.command!.arguments as [NodeOf<'healthSource'>];
    assert.equal(arg, source);
    await vscode.commands.executeCommand(item.command!.command, ...item.command!.arguments!);
    const panel = api.panels.active;
    assert.equal(panel?.identity.source, want.source, 'the source\u2019s records open');
    // …filtered to the rows of its verdict's class, and titled so.
    assert.deepEqual(panel?.target.initialClasses, ['needs-fixing']);
    assert.ok(panel?.panel.title.endsWith(`${want.source} · Needs fixing`), panel?.panel.title);
    const posted: HostMessage[] = [];
    const webview = panel!.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: HostMessage) => Thenable<boolean> }).postMessage = (m) => {
      posted.push(m);
      return post(m);
    };
    await panel!.handleMessage({ type: 'ready' });
    const init = posted.find((m): m is Extract<HostMessage, { type: 'init' }> => m.type === 'init');
    assert.deepEqual(init?.initialClasses, ['needs-fixing']);
    // The source's own item still opens all its rows, in another panel.
    await vscode.commands.executeCommand(Commands.openRecords, { kind: 'source', account: arg.account, org: arg.org, bucket: arg.bucket, source: arg.source });
    assert.notEqual(api.panels.active, panel);
    assert.equal(api.panels.active?.target.initialClasses, undefined);
  });

  it('sources and IPs are coloured by verdict, with the verdict and mix in their tooltips', async () => {
    const { items, expected } = await period();
    const sources = items.filter((n): n is NodeOf<'source'> => n.kind === 'source');
    assert.equal(sources.length, expected.sources.length);
    const seen = new Set<string>();
    for (const s of sources) {
      const want = expected.sources.find((e) => e.source === s.source.source)!;
      const item = api.tree.getTreeItem(s);
      assert.equal(colorId(item.iconPath), COLOURS[want.verdict as RowClass], s.source.source);
      seen.add(colorId(item.iconPath)!);
      const tip = plain(item.tooltip);
      assert.ok(tip.includes(`Verdict: ${termOf(want.verdict)!.label}`), tip);
      assert.ok(tip.includes('DMARC pass rate'), 'what was there stays');
      for (const ip of ((await children(s)).filter((n) => n.kind === 'ip') as NodeOf<'ip'>[]).slice(0, 20)) {
        const judged = want.ips.get(ip.ip.ipAddress)!;
        const ii = api.tree.getTreeItem(ip);
        assert.equal(colorId(ii.iconPath), COLOURS[judged.verdict as RowClass], ip.ip.ipAddress);
        assert.match(String(ii.tooltip), new RegExp(`Verdict: ${termOf(judged.verdict)!.label}`));
        assert.match(String(ii.tooltip), /DMARC pass rate/);
      }
    }
    assert.ok(seen.size >= 2, [...seen].join(', '));
  });

  it('the settings change the verdicts: compliantShare 0 makes every source Compliant, 100 only those without a failing email', async () => {
    await config().update('compliantShare', 0, vscode.ConfigurationTarget.Global);
    const zero = await until(async () => {
      const p = await period({ ...DEFAULT_THRESHOLDS, compliant: 0 });
      const groups = (await children(healthOf(p.items))).filter((n): n is NodeOf<'healthClass'> => n.kind === 'healthClass');
      return groups.length === 1 ? { p, groups } : undefined;
    }, 'the tree to judge again with compliantShare 0');
    assert.equal(zero.groups[0]!.cls, 'compliant');
    assert.equal(api.tree.getTreeItem(zero.groups[0]!).label, `Compliant (${zero.p.expected.sources.filter((s) => s.emails > 0).length})`);
    for (const s of zero.p.items.filter((n): n is NodeOf<'source'> => n.kind === 'source')) assert.equal(colorId(api.tree.getTreeItem(s).iconPath), 'charts.green');

    await config().update('compliantShare', 100, vscode.ConfigurationTarget.Global);
    const strict = { ...DEFAULT_THRESHOLDS, compliant: 1 };
    const hundred = await until(async () => {
      const p = await period(strict);
      return healthOf(p.items).health.sources.every((s) => s.verdict === p.expected.sources.find((e) => e.source === s.source)!.verdict) ? p : undefined;
    }, 'the tree to judge again with compliantShare 100');
    const compliant = (await children(healthOf(hundred.items))).find((n): n is NodeOf<'healthClass'> => n.kind === 'healthClass' && n.cls === 'compliant');
    const want = hundred.expected.sources.filter((s) => s.verdict === 'compliant').map((s) => s.source);
    assert.deepEqual(compliant ? ((await children(compliant)) as NodeOf<'healthSource'>[]).map((s) => s.advice.source) : [], want);
    for (const s of hundred.expected.sources.filter((x) => x.verdict === 'compliant')) assert.equal(s.mix[1] + s.mix[2] + s.mix[3], 0);
  });

  it('reads the thresholds as percents, clamped, with the defaults for anything else', async () => {
    assert.deepEqual(adviceThresholds(), DEFAULT_THRESHOLDS);
    await config().update('rejectShare', 150, vscode.ConfigurationTarget.Global);
    await config().update('quarantineShare', 90, vscode.ConfigurationTarget.Global);
    assert.deepEqual(adviceThresholds(), { compliant: 0.98, quarantine: 0.9, reject: 1 });
    assert.equal(shareOf(-3, 0.5), 0);
    assert.equal(shareOf('95', 0.5), 0.5);
    assert.equal(shareOf(Number.NaN, 0.5), 0.5);
    assert.equal(shareOf(undefined, 0.98), 0.98);
  });
});
