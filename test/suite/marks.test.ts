// The owner's marks in the real extension host: Mark as Mine on an Unauthenticated source under
// Health makes it Needs fixing there (as periodHealth with that mark says), Mark as Not Mine on a
// source item makes a Needs fixing source Unauthenticated, the Marks item lists both, and the open
// panel of the organization is sent the marks (with init and on each change); Clear Mark restores
// everything. Junk in globalState reads as no marks, without a crash. The menus offer the
// commands by the items' context values.
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import manifest from '../../package.json';
import { startApiServer, type ApiServer } from '../server/server';
import { periodHealth, type PeriodHealth } from '../../src/advice/health';
import { marksFrom, type SourceMark } from '../../src/advice/marks';
import { DEFAULT_THRESHOLDS, type Verdict } from '../../src/advice/vocabulary';
import type { DmarcRecord } from '../../src/api/types';
import { DAY_MS } from '../../src/records/buckets';
import { CLEAR_MARK, MARK_MINE, MARK_NOT_MINE } from '../../src/tree/markNodes';
import { MARKS_KEY, marksOrgKey } from '../../src/tree/marks';
import type { RecordsPanel } from '../../src/panel/recordsPanel';
import { extensionApi, removeAllAccounts, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Node, NodeOf } from '../../src/tree/nodes';
import type { Account } from '../../src/accounts/accountStore';

const KEY = 'marks-suite-key-5c81a';
/** The sample organization: Unknown is Unauthenticated, Mailchimp and Salesforce Needs fixing. */
const ORG = 'acme';

type Sent = { type: string; marks?: unknown; thresholds?: unknown };

describe('DMARC tree: the owner’s marks on sources (extension host, local API server)', function () {
  this.timeout(120_000);
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let account: Account;
  let panel: RecordsPanel | undefined;
  const posted: Sent[] = [];

  const children = async (node?: Node) => (await api.tree.getChildren(node)) ?? [];

  async function last30(): Promise<NodeOf<'bucket'>> {
    const roots = await children();
    const org = roots.find((n) => n.kind === 'org' && n.org.id === ORG) ?? roots[0];
    const found = (await children(org)).find((n) => n.kind === 'bucket' && n.bucket.label === 'Last 30 days');
    assert.ok(found, 'Last 30 days');
    return found as NodeOf<'bucket'>;
  }

  /** The period's items as the tree gives them now, its Health's children, and its health as periodHealth gives it with `marks`. */
  async function period(marks: [string, SourceMark][] = []): Promise<{ bucket: NodeOf<'bucket'>; items: Node[]; health: NodeOf<'health'>; kids: Node[]; records: readonly DmarcRecord[]; expected: PeriodHealth }> {
    const bucket = await last30();
    const items = await children(bucket);
    const health = items[0] as NodeOf<'health'>;
    assert.equal(health?.kind, 'health');
    const records = api.store.peekRecords({ accountId: account.id, organizationId: ORG }, bucket.bucket.start, bucket.bucket.end);
    assert.ok(records && records.length > 0);
    const days = Math.round((bucket.bucket.end.getTime() + 1 - bucket.bucket.start.getTime()) / DAY_MS);
    const opts = { thresholds: DEFAULT_THRESHOLDS, days, locale: vscode.env.language };
    return { bucket, items, health, kids: await children(health), records, expected: periodHealth(records, marks.length ? { ...opts, marks: new Map(marks) } : opts) };
  }

  /** Each source under Health with its verdict (its class group's). */
  async function verdicts(kids: Node[]): Promise<Map<string, Verdict>> {
    const out = new Map<string, Verdict>();
    for (const g of kids.filter((n): n is NodeOf<'healthClass'> => n.kind === 'healthClass'))
      for (const s of (await children(g)) as NodeOf<'healthSource'>[]) out.set(s.advice.source, g.cls);
    return out;
  }

  async function healthSource(kids: Node[], source: string): Promise<NodeOf<'healthSource'>> {
    for (const g of kids.filter((n): n is NodeOf<'healthClass'> => n.kind === 'healthClass')) {
      const found = ((await children(g)) as NodeOf<'healthSource'>[]).find((s) => s.advice.source === source);
      if (found) return found;
    }
    throw new Error(`${source} is not under Health`);
  }

  const marksSent = () => posted.filter((m) => m.type === 'advice' && m.marks !== undefined).map((m) => m.marks);

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 30 });
    api = await extensionApi();
    await removeAllAccounts(api);
    account = await api.accounts.add('Marks test', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: ORG, name: 'Marks Org' });
    account = api.accounts.get(account.id)!;
    const bucket = await last30();
    panel = api.panels.open({ account, org: account.organizations[0]!, start: bucket.bucket.start, end: bucket.bucket.end });
    const webview = panel.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: unknown) => Thenable<boolean> }).postMessage = (m) => {
      if ((m as Sent).type !== 'rows') posted.push(m as Sent);
      return post(m);
    };
    await panel.load(false);
  });
  after(async () => {
    await api.context.globalState.update(MARKS_KEY, undefined);
    panel?.panel.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await removeAllAccounts(api);
    await server?.close();
  });

  it('without marks: no Marks item, and init tells the panel there are none', async () => {
    const { kids, expected } = await period();
    assert.ok(!kids.some((n) => n.kind === 'marks'));
    const before = await verdicts(kids);
    assert.equal(before.get('Unknown'), 'unauthenticated');
    assert.equal(before.get('Mailchimp'), 'needs-fixing');
    assert.deepEqual([...before].sort(), expected.sources.filter((s) => s.verdict).map((s) => [s.source, s.verdict]).sort());
    const init = await until(() => posted.find((m) => m.type === 'init'), 'init posted');
    assert.deepEqual(init.marks, []);
  });

  it('Mark as Mine on an Unauthenticated source under Health: Needs fixing in the tree, and the panel is sent the mark', async () => {
    const { kids } = await period();
    const unknown = await healthSource(kids, 'Unknown');
    assert.equal(api.tree.getTreeItem(unknown).contextValue, 'healthSource.fix');
    assert.equal(await vscode.commands.executeCommand(MARK_MINE, unknown), 'set');

    const after = await period([['Unknown', 'mine']]);
    const v = await verdicts(after.kids);
    assert.equal(v.get('Unknown'), 'needs-fixing');
    const want = after.expected.sources.find((s) => s.source === 'Unknown')!;
    assert.equal(want.verdict, 'needs-fixing');
    const node = await healthSource(after.kids, 'Unknown');
    assert.deepEqual([node.advice.mix, node.advice.fix, node.advice.mark], [want.mix, want.fix, 'mine']);
    assert.match(want.fix, /SPF record does not list this sender’s IPs|No DKIM signature for/);
    assert.deepEqual(after.health.health.readiness, after.expected.readiness, 'readiness follows the mark');
    const item = api.tree.getTreeItem(node);
    assert.equal(item.contextValue, 'healthSource.fix.mine');
    assert.match(String(item.description), / · Mine$/);
    // The source's own item in the period shows it too.
    const src = after.items.find((n): n is NodeOf<'source'> => n.kind === 'source' && n.source.source === 'Unknown')!;
    const si = api.tree.getTreeItem(src);
    assert.equal(si.contextValue, 'source.mine');
    assert.match(String(si.description), / · Mine$/);
    assert.match((si.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' '), /\*\*Mark:\*\* Mine\\?\. Marked as mine: its Unauthenticated mail counts as Needs fixing/);

    // The panel of the organization is sent the marks; judged on its rows with them, Unknown is Needs fixing.
    const sent = await until(() => marksSent().find((m) => JSON.stringify(m) === JSON.stringify([['Unknown', 'mine']])), 'the marks posted to the panel', 10_000);
    const rows = panel!.rows;
    assert.ok(rows.length > 0);
    const judged = periodHealth(rows, { thresholds: DEFAULT_THRESHOLDS, days: 30, marks: marksFrom(sent) });
    assert.equal(judged.sources.find((s) => s.source === 'Unknown')!.verdict, 'needs-fixing');
    assert.equal(periodHealth(rows, { thresholds: DEFAULT_THRESHOLDS, days: 30 }).sources.find((s) => s.source === 'Unknown')!.verdict, 'unauthenticated');
  });

  it('Mark as Not Mine on a source item: a Needs fixing source turns Unauthenticated; Marks lists both', async () => {
    const { items } = await period([['Unknown', 'mine']]);
    const mailchimp = items.find((n): n is NodeOf<'source'> => n.kind === 'source' && n.source.source === 'Mailchimp')!;
    assert.equal(api.tree.getTreeItem(mailchimp).contextValue, 'source');
    assert.equal(await vscode.commands.executeCommand(MARK_NOT_MINE, mailchimp), 'set');
    const marks: [string, SourceMark][] = [['Mailchimp', 'not-mine'], ['Unknown', 'mine']];
    const after = await period(marks);
    const v = await verdicts(after.kids);
    assert.equal(v.get('Mailchimp'), 'unauthenticated');
    assert.equal(v.get('Unknown'), 'needs-fixing');
    assert.deepEqual(after.health.health.readiness, after.expected.readiness);
    assert.deepEqual(after.health.health.mix, after.expected.mix);
    const list = after.kids.at(-1) as NodeOf<'marks'>;
    assert.equal(list.kind, 'marks', 'Marks comes last under Health');
    const li = api.tree.getTreeItem(list);
    assert.deepEqual([li.label, li.description, li.contextValue], ['Marks', '2 sources', 'marks']);
    const listed = (await children(list)) as NodeOf<'markedSource'>[];
    assert.deepEqual(listed.map((n) => { const i = api.tree.getTreeItem(n); return [i.label, i.description, i.contextValue]; }), [
      ['Mailchimp', 'Not mine', 'markedSource.notMine'],
      ['Unknown', 'Mine', 'markedSource.mine'],
    ]);
    await until(() => marksSent().some((m) => JSON.stringify(m) === JSON.stringify(marks)) || undefined, 'both marks posted', 10_000);
    // Kept per organization in globalState.
    assert.deepEqual(api.context.globalState.get<Record<string, unknown>>(MARKS_KEY)?.[marksOrgKey(account.id, ORG)], marks);
  });

  it('Clear Mark (under Marks, on a source item) restores the verdicts; the Marks item goes with the last mark', async () => {
    const { kids, items } = await period([['Mailchimp', 'not-mine'], ['Unknown', 'mine']]);
    const listed = (await children(kids.at(-1))) as NodeOf<'markedSource'>[];
    assert.equal(await vscode.commands.executeCommand(CLEAR_MARK, listed.find((n) => n.source === 'Mailchimp')), 'set');
    const unknown = items.find((n): n is NodeOf<'source'> => n.kind === 'source' && n.source.source === 'Unknown')!;
    assert.equal(await vscode.commands.executeCommand(CLEAR_MARK, unknown), 'set');
    assert.equal(await vscode.commands.executeCommand(CLEAR_MARK, unknown), 'unchanged');
    const after = await period();
    assert.ok(!after.kids.some((n) => n.kind === 'marks'));
    const v = await verdicts(after.kids);
    assert.deepEqual([v.get('Unknown'), v.get('Mailchimp')], ['unauthenticated', 'needs-fixing']);
    assert.deepEqual(after.health.health.readiness, after.expected.readiness);
    assert.equal(api.tree.getTreeItem(await healthSource(after.kids, 'Unknown')).contextValue, 'healthSource.fix');
    await until(() => JSON.stringify(marksSent().at(-1)) === '[]' || undefined, 'no marks posted', 10_000);
  });

  it('junk in globalState reads as no marks (or the well-formed ones), without a crash', async () => {
    const key = marksOrgKey(account.id, ORG);
    for (const junk of [7, 'mine', [['Unknown', 'mine']], { [key]: 'mine' }, { [key]: [[1, 2]] }, { [key]: { Unknown: 'mine' } }, null]) {
      await api.context.globalState.update(MARKS_KEY, junk);
      api.tree.refresh();
      const { kids } = await period();
      assert.ok(!kids.some((n) => n.kind === 'marks'), JSON.stringify(junk));
      assert.equal((await verdicts(kids)).get('Unknown'), 'unauthenticated', JSON.stringify(junk));
    }
    await api.context.globalState.update(MARKS_KEY, { other: 5, [key]: [['Unknown', 'mine'], 'x', ['Mailchimp', 'bogus'], ['Salesforce']] });
    const { kids } = await period([['Unknown', 'mine']]);
    assert.equal((await verdicts(kids)).get('Unknown'), 'needs-fixing');
    assert.deepEqual((kids.at(-1) as NodeOf<'marks'>).marks, [['Unknown', 'mine']]);
    // Marking again writes only what was well formed.
    const mailchimp = (await period([['Unknown', 'mine']])).items.find((n): n is NodeOf<'source'> => n.kind === 'source' && n.source.source === 'Mailchimp')!;
    assert.equal(await vscode.commands.executeCommand(MARK_NOT_MINE, mailchimp), 'set');
    assert.deepEqual(api.context.globalState.get(MARKS_KEY), { [key]: [['Mailchimp', 'not-mine'], ['Unknown', 'mine']] });
    await api.context.globalState.update(MARKS_KEY, undefined);
  });

  it('the menus offer each mark command where it changes something, by the items’ context values', () => {
    const menus = (manifest.contributes.menus as unknown as Record<string, { command: string; when?: string; group?: string }[]>)['view/item/context']!;
    const palette = (manifest.contributes.menus as unknown as Record<string, { command: string; when?: string }[]>).commandPalette!;
    const offered = (contextValue: string): string[] =>
      menus
        .filter((m) => !m.group?.startsWith('inline'))
        .filter((m) => {
          const re = /viewItem =~ \/(.+)\/$/.exec(m.when ?? '')?.[1];
          const eq = /viewItem == (\S+)/.exec(m.when ?? '')?.[1];
          return re ? new RegExp(re).test(contextValue) : eq === contextValue;
        })
        .map((m) => m.command);
    const marksOf = (v: string) => offered(v).filter((c) => [MARK_MINE, MARK_NOT_MINE, CLEAR_MARK].includes(c));
    assert.deepEqual(marksOf('source'), [MARK_MINE, MARK_NOT_MINE]);
    assert.deepEqual(marksOf('source.mine'), [MARK_NOT_MINE, CLEAR_MARK]);
    assert.deepEqual(marksOf('healthSource.fix.notMine'), [MARK_MINE, CLEAR_MARK]);
    assert.deepEqual(marksOf('healthSource'), [MARK_MINE, MARK_NOT_MINE]);
    assert.deepEqual(marksOf('markedSource.mine'), [MARK_NOT_MINE, CLEAR_MARK]);
    assert.deepEqual(marksOf('ip'), []);
    // What was offered before still is.
    assert.ok(offered('source.notMine').includes('dmarc.openRecords'));
    assert.ok(offered('healthSource.fix.mine').includes('dmarc.copyFixText'));
    assert.ok(!offered('healthSource.mine').includes('dmarc.copyFixText'));
    for (const c of [MARK_MINE, MARK_NOT_MINE, CLEAR_MARK]) {
      assert.equal(palette.find((m) => m.command === c)?.when, 'false', `${c} is hidden from the palette`);
      assert.ok(manifest.contributes.commands.find((m) => m.command === c)?.category, `${c} has a category`);
    }
  });
});
