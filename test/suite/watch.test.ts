// The watch in the real extension host against the local API server telling its week-over-week
// story (test/server/story.ts): off it sends nothing; on, one request per organization per run;
// the story's findings in Needs Attention; the view's badge counts the unseen ones; Show opens
// the rows and marks it seen; Mute this is never raised again; a forbidden organization is one
// log line and one tree item; unfocused, a due run waits for focus.
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { extensionApi, removeAllAccounts, ScriptedPrompter } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Account } from '../../src/accounts/accountStore';
import type { Node, NodeOf } from '../../src/tree/nodes';
import { SHOW_FINDING, MUTE_FINDING } from '../../src/tree/attentionNodes';
import type { RunOutcome } from '../../src/watch/watch';

const KEY = 'watch-suite-key-5a1e9';
const ORGS = ['acme', 'globex', 'initech', 'soylent', 'wayne'];
const FORBIDDEN = 'not-on-this-key';

describe('watch (extension host, local API server with the demo story)', function () {
  this.timeout(120_000);
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let account: Account;
  const config = () => vscode.workspace.getConfiguration('dmarc.watch');
  const dataRequests = () => server.requests.filter((r) => r.path === '/api/public/dmarc-records');
  const attention = async (): Promise<Node[]> => {
    const roots = (await api.tree.getChildren()) ?? [];
    const a = roots.find((n) => n.kind === 'attention');
    return a ? ((await api.tree.getChildren(a)) ?? []) : [];
  };
  const findings = async () => (await attention()).filter((n): n is NodeOf<'finding'> => n.kind === 'finding');
  const key = (n: NodeOf<'finding'>) => `${n.finding.orgId}:${n.finding.kind}:${n.finding.subject}`;

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: ORGS }, story: true });
    api = await extensionApi();
    await removeAllAccounts(api);
    account = await api.accounts.add('Watch test', server.url, KEY);
    for (const id of [...ORGS, FORBIDDEN]) await api.accounts.addOrganization(account.id, { id });
    account = api.accounts.get(account.id)!;
    api.watch.isFocused = () => true;
  });
  after(async () => {
    await config().update('enabled', undefined, vscode.ConfigurationTarget.Global);
    api.watch.isFocused = () => vscode.window.state.focused;
    await removeAllAccounts(api);
    await server.close();
  });

  it('off (the default), a due run sends nothing and raises nothing', async () => {
    assert.equal(config().get('enabled'), false, 'off by default');
    server.resetRequests();
    assert.equal(await api.watch.tick(), undefined);
    assert.equal(server.requests.length, 0);
    assert.equal((await findings()).length, 0);
    assert.equal(api.view.badge, undefined);
  });

  it('on: one request per organization; the story in Needs Attention; the badge counts; a forbidden organization is one line and one item', async () => {
    await config().update('enabled', true, vscode.ConfigurationTarget.Global);
    server.resetRequests();
    // Three notifications at most: the first muted, the others dismissed.
    const prompter = new ScriptedPrompter(['Mute this', undefined, undefined]);
    const restore = api.usePrompter(prompter);
    let out: RunOutcome | undefined;
    try {
      out = await api.watch.tick();
      // Notifications are answered after the run resolves.
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      restore();
    }
    assert.ok(out);
    const perOrg = new Map<string, number>();
    for (const r of dataRequests()) perOrg.set(String(r.query.organizationId), (perOrg.get(String(r.query.organizationId)) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(perOrg), Object.fromEntries([...ORGS, FORBIDDEN].map((o) => [o, 1])), 'one request per organization');
    assert.equal(out.checked, ORGS.length);
    assert.equal(out.failed, 1);

    const notified = prompter.asked.filter((a) => a.kind === 'notify:info');
    assert.equal(notified.length, Math.min(3, out.raised.length));
    assert.ok(notified.every((n) => n.actions?.join() === 'Show,Mute this'));
    const muted = out.raised[0]!;
    assert.ok(api.findings.isMuted(muted.id), 'Mute this mutes it');

    const raised = new Set(out.raised.map((f) => `${f.orgId}:${f.kind}:${f.subject}`));
    for (const want of ['acme:new-sender:Brevo', 'globex:pass-drop:Amazon SES', 'initech:volume-spike:', 'soylent:reports-stopped:']) assert.ok(raised.has(want), `${want} in ${[...raised].join(', ')}`);

    const listed = await findings();
    assert.deepEqual(new Set(listed.map(key)), new Set([...raised].filter((k) => k !== `${muted.orgId}:${muted.kind}:${muted.subject}`)), 'Needs Attention lists every finding but the muted one');
    assert.equal(api.view.badge?.value, listed.length, 'the badge counts the unseen findings');
    const failures = (await attention()).filter((n) => n.kind === 'watchFailure');
    assert.equal(failures.length, 1);
    assert.match(String(api.tree.getTreeItem(failures[0]!).label), new RegExp(`${FORBIDDEN} could not be checked`));
    assert.match(String(api.tree.getTreeItem(failures[0]!).description), /403/);
    const lines = api.watch.logged.filter((l) => l.includes('not checked'));
    assert.equal(lines.length, 1, 'one log line for the failed check');
    assert.ok(!lines[0]!.includes(KEY), 'the key is never logged');
  });

  it('Show opens the finding’s rows and marks it seen; the next run raises nothing again, muted or not', async () => {
    const before = await findings();
    const brevo = before.find((n) => n.finding.kind === 'new-sender' && n.finding.subject === 'Brevo') ?? before[0]!;
    const badge = api.view.badge?.value ?? 0;
    await vscode.commands.executeCommand(SHOW_FINDING, brevo);
    const panel = api.panels.all.find((p) => p.target.org.id === brevo.finding.orgId && p.target.source === (brevo.finding.subject || undefined));
    assert.ok(panel, 'a panel of the finding’s organization and source');
    assert.equal(panel.target.end.getTime(), brevo.finding.end);
    const after = await findings();
    assert.equal(after.find((n) => n.finding.id === brevo.finding.id)?.finding.seen, true);
    assert.equal(api.view.badge?.value ?? 0, badge - 1);
    assert.doesNotMatch(String(api.tree.getTreeItem(after.find((n) => n.finding.id === brevo.finding.id)!).description), /^new/);

    server.resetRequests();
    const prompter = new ScriptedPrompter([]);
    const restore = api.usePrompter(prompter);
    try {
      const out = await api.watch.run();
      assert.equal(out.raised.length, 0, 'the same findings are not raised twice');
    } finally {
      restore();
    }
    assert.equal(prompter.asked.filter((a) => a.kind.startsWith('notify')).length, 0, 'no notification');
    assert.equal(dataRequests().length, ORGS.length + 1, 'again one request per organization');
    // Mute from the tree's menu.
    const one = (await findings())[0]!;
    await vscode.commands.executeCommand(MUTE_FINDING, one);
    assert.ok(!(await findings()).some((n) => n.finding.id === one.finding.id));
    api.panels.all.forEach((p) => p.panel.dispose());
  });

  it('a run that comes due while the window is not focused waits for focus', async () => {
    server.resetRequests();
    api.watch.isFocused = () => false;
    assert.equal(await api.watch.tick(), undefined);
    assert.equal(server.requests.length, 0, 'nothing sent while unfocused');
    const last = api.findings.lastRun;
    api.watch.isFocused = () => true;
    api.watch.focusChanged(true);
    await new Promise<void>((resolve, reject) => {
      const t0 = Date.now();
      const poll = () => (api.findings.lastRun !== last ? resolve() : Date.now() - t0 > 30_000 ? reject(new Error('no run after focus')) : setTimeout(poll, 50));
      poll();
    });
    assert.equal(dataRequests().length, ORGS.length + 1, 'one run, one request per organization');
  });

  it('Check Now runs the watch and says what it found', async () => {
    const prompter = new ScriptedPrompter([]);
    const restore = api.usePrompter(prompter);
    try {
      const out = (await vscode.commands.executeCommand(Commands.watchNow)) as RunOutcome;
      assert.equal(out.checked, ORGS.length);
    } finally {
      restore();
    }
    assert.deepEqual(prompter.asked.map((a) => a.title), ['DMARC watch: nothing new']);
  });
});
