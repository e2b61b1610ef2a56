// Behaviours issue 15 found untested: settings wiring and clamping, several accounts in the tree
// and the pickers, a restored panel whose account is gone, malformed and unknown rows reported in
// the tree and the panel, and hostile text in tree items (labels, descriptions, tooltips).
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, HOSTILE_STRINGS, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { PANEL_VIEW_TYPE } from '../../src/panel/recordsPanel';
import { counted, extensionApi, removeAllAccounts, runScripted, ScriptedPrompter, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Node, NodeOf } from '../../src/tree/nodes';
import type { Account } from '../../src/accounts/accountStore';
import { rawOf } from '../../src/api/rawRow';
import { DiskCache } from '../../src/records/diskCache';
import { noticeNodes } from '../../src/tree/notices';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Bidirectional controls (src/shared/bidi.ts). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BIDI_ALL = new RegExp(BIDI.source, 'g');
const KEY_A = 'behaviour-key-a-51f0';
const KEY_B = 'behaviour-key-b-7c22';


/** A day `back` days ago, whole (UTC): each test its own, so no cached range is shared. */
function dayBack(back: number): { start: Date; end: Date } {
  const d = Math.floor(Date.now() / 86_400_000) - back;
  return { start: new Date(d * 86_400_000), end: new Date((d + 1) * 86_400_000 - 1) };
}

describe('behaviours: settings, several accounts, restore, reported rows, hostile tree text', () => {
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let a: Account;
  let b: Account;
  const config = () => vscode.workspace.getConfiguration('dmarc');
  const children = async (node?: Node) => (await api.tree.getChildren(node)) ?? [];

  before(async () => {
    server = await startApiServer({ keys: { [KEY_A]: ['org-a1', 'org-a2'], [KEY_B]: ['org-b1'] }, rowsPerDay: 12 });
    api = await extensionApi();
    await removeAllAccounts(api);
    a = await api.accounts.add('Alpha', server.url, KEY_A);
    await api.accounts.addOrganization(a.id, { id: 'org-a1', name: 'Alpha One' });
    await api.accounts.addOrganization(a.id, { id: 'org-a2' });
    b = await api.accounts.add('Beta', server.url, KEY_B);
    await api.accounts.addOrganization(b.id, { id: 'org-b1', name: 'Beta One' });
    a = api.accounts.get(a.id)!;
    b = api.accounts.get(b.id)!;
  });
  afterEach(async () => {
    server.setFaults({});
    for (const key of ['tree.months', 'tree.monthChildren', 'requestTimeoutSeconds', 'diskCacheMegabytes']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    for (const p of api.panels.all) p.panel.dispose();
    await removeAllAccounts(api);
    await server.close();
  });

  it('with several accounts the tree starts at the accounts, each with its organizations; Fetch Records asks for the organization among all', async () => {
    const all = await children();
    // Three organizations: the Overview's item comes first, then the accounts.
    assert.deepEqual(all.map((n) => n.kind), ['overviewLink', 'account', 'account']);
    assert.equal(api.tree.getTreeItem(all[0]!).label, 'Overview of All Organizations');
    const roots = all.slice(1);
    assert.deepEqual(roots.map((n) => api.tree.getTreeItem(n).label), ['Alpha', 'Beta']);
    assert.deepEqual((await children(roots[0])).map((n) => api.tree.getTreeItem(n).label), ['Alpha One', 'org-a2']);
    assert.deepEqual((await children(roots[1])).map((n) => api.tree.getTreeItem(n).label), ['Beta One']);
    const prompter = await runScripted(api, Commands.fetchRange, ['Beta One', undefined]);
    assert.deepEqual(prompter.asked.map((q) => [q.kind, q.title]), [['pick', 'Fetch Records: organization'], ['pick', 'Fetch Records of Beta One: range']]);
  });

  it('dmarc.tree.months and monthChildren reach the tree, clamped to 1–60 months', async () => {
    const org = (await children((await children()).find((n) => n.kind === 'account')))[0]!;
    const months = async () => (await children(org)).filter((n) => n.kind === 'bucket' && n.bucket.kind === 'month') as NodeOf<'bucket'>[];
    for (const [value, expected] of [[3, 3], [0, 1], [-5, 1], [100, 60], [2.7, 2]] as const) {
      await config().update('tree.months', value, vscode.ConfigurationTarget.Global);
      assert.equal((await months()).length, expected, `tree.months = ${value}`);
    }
    await config().update('tree.monthChildren', 'weeks', vscode.ConfigurationTarget.Global);
    const [thisMonth] = await months();
    assert.ok(thisMonth!.bucket.children!.every((c) => c.kind === 'week'), 'weeks');
    await config().update('tree.monthChildren', 'nonsense', vscode.ConfigurationTarget.Global);
    assert.ok((await months())[0]!.bucket.children!.every((c) => c.kind === 'day'), 'anything else reads as days');
  });

  it('dmarc.requestTimeoutSeconds reaches requests, and values under 5 s count as 5 s', async () => {
    const scope = { accountId: a.id, baseUrl: a.baseUrl, apiKey: KEY_A, organizationId: 'org-a2' };
    await config().update('requestTimeoutSeconds', 1, vscode.ConfigurationTarget.Global);
    server.setFaults({ latencyMs: 2500 });
    const day = dayBack(200);
    const data = await api.store.get(scope, day.start, day.end, { refresh: true });
    assert.ok(data.records.length > 0, 'a 2.5 s answer is waited for: 1 s was raised to 5 s');
    server.setFaults({ latencyMs: 6500 });
    const other = dayBack(201);
    const t0 = Date.now();
    await assert.rejects(api.store.get(scope, other.start, other.end, { refresh: true }), /within 5 s\./);
    const took = Date.now() - t0;
    assert.ok(took >= 4500 && took < 6400, `gave up after about 5 s (${took} ms)`);
  });

  it('a panel restored after a reload whose account was removed is closed, not shown empty', async () => {
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'restored', vscode.ViewColumn.Active, {});
    let disposed = false;
    panel.onDidDispose(() => (disposed = true));
    const day = dayBack(3);
    await api.panels.restore(panel, { identity: { accountId: 'removed-account', organizationId: 'org-a1', start: day.start.toISOString(), end: day.end.toISOString() } });
    assert.ok(disposed, 'closed');
    assert.ok(!api.panels.all.some((p) => p.panel === panel));
    // And a hostile blob instead of a state is the same: closed, nothing thrown.
    const junk = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'junk', vscode.ViewColumn.Active, {});
    let junkDisposed = false;
    junk.onDidDispose(() => (junkDisposed = true));
    await api.panels.restore(junk, { identity: { accountId: { toString: 1 }, __proto__: { polluted: true } }, view: 'x'.repeat(1000) });
    assert.ok(junkDisposed);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  it('malformed and unknown rows are said in the tree (items) and the panel (notices), and the good rows kept', async () => {
    server.setFaults({ badRows: 0.2, unknownEnums: 0.2 });
    // A week, not one day: the faults are drawn per row from each day's seed, and one day's 12 rows
    // can come without a bad or an unknown one (the test then failed on such days, as on 2026-11-24).
    const day = { start: dayBack(30).start, end: dayBack(24).end };
    const scope = { accountId: a.id, baseUrl: a.baseUrl, apiKey: KEY_A, organizationId: 'org-a1' };
    const data = await api.store.get(scope, day.start, day.end, { refresh: true });
    assert.ok(data.rejected.count > 0 && data.warnings.length > 0, 'the server sent both');
    // The tree: a custom bucket node of that day, expanded.
    const org = a.organizations.find((o) => o.id === 'org-a1')!;
    const node: NodeOf<'bucket'> = { kind: 'bucket', account: a, org, bucket: { id: 'custom:t', label: 'day', kind: 'custom', start: day.start, end: day.end, closed: true, tooltip: '' } };
    // Several notices fold into one collapsed "data warnings" node above the senders.
    const folded = (await children(node)).filter((n) => n.kind === 'notices') as NodeOf<'notices'>[];
    assert.equal(folded.length, 1, 'one node holds the notices');
    assert.equal(folded[0]!.label, `${1 + data.warnings.length} data warnings`);
    const items = (await children(folded[0]!)).filter((n) => n.kind === 'message') as NodeOf<'message'>[];
    assert.equal(items.length, 1 + data.warnings.length, 'each notice under it');
    // One notice alone shows as it is; none, nothing.
    assert.deepEqual(noticeNodes(node, { rejected: data.rejected, warnings: [] }).map((n) => n.kind), ['message']);
    assert.deepEqual(noticeNodes(node, { rejected: { count: 0, samples: [] }, warnings: data.warnings.slice(0, 1) }).map((n) => n.kind), ['message']);
    assert.deepEqual(noticeNodes(node, { rejected: { count: 0, samples: [] }, warnings: [] }), []);
    const leftOut = data.rejected.count === 1 ? '1 row in the response was malformed and left out' : `${data.rejected.count} rows in the response were malformed and left out`;
    assert.ok(items.some((m) => m.label === leftOut), items.map((m) => m.label).join(' | '));
    for (const w of data.warnings) assert.ok(items.some((m) => m.label === w.message && m.detail === `${counted(w.count, 'row')} kept with this value`), w.message);
    const summary = (await children(node)).find((n) => n.kind === 'summary') as NodeOf<'summary'>;
    assert.equal(summary.summary.rows, data.records.length, 'the good rows are all there');
    // The panel: the same, as notices.
    const opened = api.panels.open({ account: a, org, ...day });
    const notices: string[] = [];
    const webview = opened.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: { type: string; notices?: string[] }) => Thenable<boolean> }).postMessage = (m) => {
      if (m.type === 'notices') notices.push(...m.notices!);
      return post(m);
    };
    await opened.load(false);
    await until(() => (notices.length ? true : undefined), 'notices');
    const said = data.rejected.count === 1 ? '1 malformed row in the response was left out: #' : `${data.rejected.count} malformed rows in the response were left out. First: #`;
    assert.ok(notices.some((n) => n.startsWith(said)), notices.join(' | '));
    for (const w of data.warnings) assert.ok(notices.includes(w.message), w.message);
    opened.panel.dispose();
  });

  it('dmarc.diskCacheMegabytes reaches the disk cache: 0 keeps settled periods off disk, and lowering it to 0 removes what is there', async () => {
    const org = a.organizations.find((o) => o.id === 'org-a1')!;
    const scope = { accountId: a.id, baseUrl: a.baseUrl, apiKey: KEY_A, organizationId: org.id };
    const base = join(api.context.globalStorageUri.fsPath, 'records');
    const cache = new DiskCache(base);
    const file = (d: { start: Date; end: Date }) => join(cache.dir, cache.fileName(a.id, org.id, +d.start, +d.end));
    const off = dayBack(41);
    await config().update('diskCacheMegabytes', 0, vscode.ConfigurationTarget.Global);
    assert.ok((await api.store.get(scope, off.start, off.end, { refresh: true })).records.length > 0);
    await api.store.flush();
    assert.equal(existsSync(file(off)), false, 'not written with a limit of 0');
    await config().update('diskCacheMegabytes', undefined, vscode.ConfigurationTarget.Global);
    const on = dayBack(42);
    await api.store.get(scope, on.start, on.end, { refresh: true });
    await api.store.flush();
    assert.equal(existsSync(file(on)), true, 'written under the default limit');
    await config().update('diskCacheMegabytes', 0, vscode.ConfigurationTarget.Global);
    await until(() => (existsSync(file(on)) ? undefined : true), 'the file removed when the limit went to 0');
  });

  it('Clear Disk Cache removes every cached period from disk and says how much; then says there is nothing to clear', async () => {
    const org = a.organizations.find((o) => o.id === 'org-a1')!;
    const day = dayBack(43);
    await api.store.get({ accountId: a.id, baseUrl: a.baseUrl, apiKey: KEY_A, organizationId: org.id }, day.start, day.end, { refresh: true });
    await api.store.flush();
    const cache = new DiskCache(join(api.context.globalStorageUri.fsPath, 'records'));
    const before = await cache.usage();
    assert.ok(before.files >= 1 && before.bytes > 0);
    const first = await runScripted(api, Commands.clearDiskCache, [undefined]);
    assert.deepEqual(first.asked.map((q) => q.kind), ['notify:info']);
    assert.equal(first.asked[0]!.title, `Removed ${counted(before.files, 'cached period')} (${(before.bytes / 1048576).toFixed(1)} MB) from disk. Periods open now stay in memory; the others are fetched again when next opened.`);
    assert.deepEqual(await cache.usage(), { files: 0, bytes: 0 });
    // What is in memory is still served from there.
    assert.equal((await api.store.get({ accountId: a.id, baseUrl: a.baseUrl, apiKey: KEY_A, organizationId: org.id }, day.start, day.end)).fromCache, 'memory');
    const second = await runScripted(api, Commands.clearDiskCache, [undefined]);
    assert.deepEqual(second.asked.map((q) => [q.kind, q.title]), [['notify:info', 'The disk cache is empty: nothing to clear.']]);
  });

  it('hostile text in report fields stays text in tree items: labels as given (bidi controls as escapes), Markdown tooltips escaped', async () => {
    server.setFaults({ hostileStrings: true });
    const day = dayBack(31);
    const org = a.organizations.find((o) => o.id === 'org-a2')!;
    const node: NodeOf<'bucket'> = { kind: 'bucket', account: a, org, bucket: { id: 'custom:h', label: 'day', kind: 'custom', start: day.start, end: day.end, closed: true, tooltip: '' } };
    await api.store.get({ accountId: a.id, baseUrl: a.baseUrl, apiKey: KEY_A, organizationId: org.id }, day.start, day.end, { refresh: true });
    const sources = (await children(node)).filter((n) => n.kind === 'source') as NodeOf<'source'>[];
    assert.ok(sources.length > 0);
    let seen = 0;
    let bidi = 0;
    for (const s of sources) {
      const item = api.tree.getTreeItem(s);
      assert.equal(item.label, s.source.source.replace(BIDI_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`), 'the label is the plain string, bidi controls escaped');
      const md = item.tooltip as vscode.MarkdownString;
      assert.ok(!BIDI.test(`${item.label}${item.description}${md.value}`), 'no bidirectional control shown');
      if (s.source.source.includes('\u202egnp.exe')) {
        bidi++;
        assert.ok(md.value.includes('\\u202egnp.exe'), 'the override shown as its escape in the tooltip');
      }
      assert.ok(md instanceof vscode.MarkdownString);
      assert.ok(!md.isTrusted && !md.supportHtml, 'no commands, no HTML');
      for (const h of HOSTILE_STRINGS) {
        if (!s.source.source.includes(h)) continue;
        seen++;
        if (/[<>*_`[\]]/.test(h)) assert.ok(!md.value.includes(h), `escaped in the tooltip: ${h}`);
      }
      for (const ip of await children(s)) {
        const ipItem = api.tree.getTreeItem(ip);
        assert.equal(typeof ipItem.tooltip, 'string', 'IP tooltips are plain strings');
        assert.ok(!BIDI.test(`${ipItem.label}${ipItem.description}${ipItem.tooltip}`), 'no bidirectional control in an IP item');
      }
    }
    assert.ok(seen > 0, 'hostile source names reached the tree');
    assert.ok(bidi > 0, 'a source starting with U+202E reached the tree');
    // A panel on such a source: its title (the tab's) shows the escape too.
    const rlo = sources.find((n) => n.source.source.includes('\u202e'))!;
    await vscode.commands.executeCommand(Commands.openRecords, rlo);
    const panel = await until(() => api.panels.all.find((p) => p.target.source === rlo.source.source), 'the source\u2019s panel');
    assert.ok(!BIDI.test(panel.panel.title) && panel.panel.title.includes('\\u202e'), `the panel title: ${panel.panel.title}`);
    panel.panel.dispose();
  });

  it('the panel’s Retry fetches again, Update API Key asks for the key (masked) then fetches again, Copy JSON copies the row’s JSON', async () => {
    const org = a.organizations.find((o) => o.id === 'org-a1')!;
    const day = dayBack(40);
    server.setFaults({ error500: true });
    const opened = api.panels.open({ account: a, org, ...day });
    const posted: { type: string; canRetry?: boolean }[] = [];
    const webview = opened.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: { type: string }) => Thenable<boolean> }).postMessage = (m) => {
      posted.push(m);
      return post(m);
    };
    try {
      await opened.load(false);
      // Until its page has said ready the panel holds its status (recordsPanel.ts post): the error
      // goes out then, which can be after the load has ended.
      await until(() => (posted.some((m) => m.type === 'error' && m.canRetry === true) ? true : undefined), 'an error with Retry');
      server.setFaults({});
      server.resetRequests();
      await opened.handleMessage({ type: 'retry' });
      await until(() => (opened.rows.length > 0 ? true : undefined), 'rows after Retry');
      assert.equal(server.requests.filter((r) => r.path === '/api/public/dmarc-records').length, 1, 'Retry: one request');

      server.resetRequests();
      const prompter = new ScriptedPrompter([KEY_A]);
      const restore = api.usePrompter(prompter);
      try {
        await opened.handleMessage({ type: 'updateKey' });
      } finally {
        restore();
      }
      assert.deepEqual(prompter.asked.filter((q) => q.kind === 'input').map((q) => q.password), [true], 'one masked input');
      assert.equal(await api.accounts.getKey(a.id), KEY_A);
      assert.ok(server.requests.some((r) => r.path === '/api/public/dmarc-records' && r.query?.organizationId === 'org-a1' && r.query?.startDate === day.start.toISOString()), 'the panel fetched its range again');

      await vscode.env.clipboard.writeText('');
      await opened.handleMessage({ type: 'copyRow', requestId: 9, index: 1 });
      assert.equal(await vscode.env.clipboard.readText(), JSON.stringify(rawOf(opened.rows[1]!), null, 2));
    } finally {
      server.setFaults({});
      opened.panel.dispose();
    }
  });
});
