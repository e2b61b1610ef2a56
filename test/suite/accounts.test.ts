import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startApiServer, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { extensionApi, removeAllAccounts, runScripted } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Account } from '../../src/accounts/accountStore';

const KEY = 'suite-secret-key-7f3a9c2e51';

/** Waits until `check` holds (10 s at most). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function filesUnder(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(filesUnder(p));
    else out.push(p);
  }
  return out;
}

describe('accounts and keys (extension host, local API server)', () => {
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let orgId: string;

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: ['org-suite-1', 'org-suite-2'] } });
    orgId = 'org-suite-1';
    api = await extensionApi();
    await removeAllAccounts(api);
  });
  after(async () => {
    await removeAllAccounts(api);
    await server.close();
  });

  /** The account the first test adds through the palette; made directly when a test runs without it (alone, or in another order). */
  async function acme(): Promise<Account> {
    const found = api.accounts.list()[0];
    if (found) return found;
    const made = await api.accounts.add('Acme mail', server.url, KEY);
    await api.accounts.addOrganization(made.id, { id: orgId, name: 'Acme' });
    return api.accounts.get(made.id)!;
  }

  it('Add Account stores the key in SecretStorage and nowhere else', async () => {
    const prompter = await runScripted(api, Commands.addAccount, ['Acme mail', server.url, KEY, orgId, 'Acme']);
    assert.equal(prompter.asked[2].password, true, 'the key is asked in a password box');
    const [account] = api.accounts.list();
    assert.equal(account.label, 'Acme mail');
    assert.equal(account.baseUrl, server.url);
    assert.deepEqual(account.organizations, [{ id: orgId, name: 'Acme' }]);
    assert.equal(await api.context.secrets.get(`dmarc.apiKey.${account.id}`), KEY);

    // globalState: every key and value.
    const state = api.context.globalState.keys().map((k) => JSON.stringify(api.context.globalState.get(k)));
    assert.ok(state.length > 0);
    assert.ok(!state.some((v) => v.includes(KEY)), 'globalState holds no key');
    // Settings: every value VS Code resolves, and the user settings file.
    const config = JSON.stringify(vscode.workspace.getConfiguration());
    assert.ok(!config.includes(KEY), 'no setting holds the key');
    assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('dmarc')).includes(KEY));
    // The log output channel's file (in the extension host's log folder).
    const logs = filesUnder(dirname(api.context.logUri.fsPath)).filter((f) => /DMARC Explorer/.test(f));
    assert.ok(logs.length > 0, 'found the output channel log');
    const text = logs.map((f) => readFileSync(f, 'utf8')).join('\n');
    assert.match(text, /account "Acme mail" added/);
    assert.ok(!text.includes(KEY), 'the log holds no key');
    // The access check really went to the server, with the key as a Bearer token.
    assert.ok(server.requests.some((r) => r.query.organizationId === orgId && r.status === 200));
  });

  it('input boxes say why a value is refused', async () => {
    const { validateApiKey, validateLabel, validateOrganizationId } = await import('../../src/accounts/accountCommands');
    const { checkBaseUrl } = await import('../../src/api');
    assert.ok(validateLabel('   '));
    assert.match(validateApiKey('abc def') ?? '', /spaces/);
    assert.ok(validateOrganizationId(''));
    assert.match(checkBaseUrl('http://example.com') ?? '', /https/i);
    assert.equal(checkBaseUrl('http://127.0.0.1:8787'), undefined);
    assert.equal(checkBaseUrl('https://www.suped.com'), undefined);
    await assert.rejects(runScripted(api, Commands.addAccount, ['x', 'http://example.com']), /rejected the answer/);
  });

  it('Add Organization refused (403): said at the ID step, before any display name; Edit Organization ID keeps the typed value and says why', async () => {
    const account = await acme();
    const before = account.organizations.length;
    const prompter = await runScripted(api, Commands.addOrganization, ['org-not-held', 'Edit Organization ID', 'org-suite-2', 'Second'], { kind: 'account', account });
    // The check runs on the ID alone: no display name is asked for an ID already refused.
    assert.deepEqual(prompter.asked.map((a) => [a.kind, a.title]), [
      ['input', 'Add Organization to Acme mail (1/2)'],
      ['notify:error', prompter.asked[1]!.title],
      ['input', 'Add Organization to Acme mail (1/2)'],
      ['input', 'Add Organization to Acme mail (2/2)'],
    ]);
    const said = prompter.asked.find((a) => a.kind === 'notify:error');
    assert.deepEqual(said?.actions, ['Edit Organization ID', 'Update API Key']);
    assert.match(said?.title ?? '', /A 403 means a wrong API key, or an organization ID this key cannot read/);
    assert.match(said?.title ?? '', /"org-not-held" \(HTTP 403\)/, 'the one wording of a 403');
    // Edit Organization ID asks again with what was typed, the box saying why it was refused.
    const inputs = prompter.asked.filter((a) => a.kind === 'input');
    assert.deepEqual(inputs.map((a) => a.value), [undefined, 'org-not-held', undefined]);
    assert.match(inputs[1]!.shown ?? '', /"org-not-held" \(HTTP 403\)/);
    assert.deepEqual(api.accounts.list()[0].organizations.map((o) => o.id).slice(before), ['org-suite-2']);
    assert.ok(server.requests.some((r) => r.query.organizationId === 'org-not-held' && r.status === 403));
    await api.accounts.removeOrganization(account.id, 'org-suite-2');
  });

  it('a 403 reads the same in a notification and in the tree\u2019s error item', async () => {
    const account = await acme();
    const prompter = await runScripted(api, Commands.addOrganization, ['org-not-held', undefined], { kind: 'account', account });
    const notified = prompter.asked.find((a) => a.kind === 'notify:error')?.title ?? '';
    // The same organization in the tree (added without the check): its range fails with the same 403.
    await api.accounts.addOrganization(account.id, { id: 'org-not-held' });
    try {
      const orgNode = (await api.tree.getChildren())!.find((n) => n.kind === 'org' && n.org.id === 'org-not-held')!;
      const last7 = (await api.tree.getChildren(orgNode))![0]!;
      const [error] = (await api.tree.getChildren(last7))!;
      assert.equal(error!.kind, 'error');
      const shown = String(api.tree.getTreeItem(error!).label);
      assert.match(shown, /\(HTTP 403\)/);
      assert.ok(notified.includes(shown), `notification "${notified}" says what the tree says: "${shown}"`);
    } finally {
      await api.accounts.removeOrganization(account.id, 'org-not-held');
    }
  });

  it('Update API Key checks the new key first: refused everywhere → Edit Key (the primary button, typed value kept) or Save Anyway', async () => {
    const account = await acme();
    const secret = () => api.context.secrets.get(`dmarc.apiKey.${account.id}`);
    server.resetRequests();
    // A refused key, edited into the right one: only the right one is saved.
    let prompter = await runScripted(api, Commands.updateApiKey, ['garbage-key-123', 'Edit Key', KEY], { kind: 'account', account });
    const refused = prompter.asked.find((a) => a.kind === 'notify:error');
    assert.match(refused?.title ?? '', /^The new key was refused for every organization of Acme mail: .*\(HTTP 403\)/);
    // VS Code draws a notification's first action as its primary button: the safe one, not Save Anyway.
    assert.deepEqual(refused?.actions, ['Edit Key', 'Save Anyway']);
    assert.deepEqual(prompter.asked.filter((a) => a.kind === 'input').map((a) => a.value), [undefined, 'garbage-key-123']);
    assert.equal(await secret(), KEY);
    assert.ok(server.requests.some((r) => r.status === 403) && server.requests.some((r) => r.status === 200), 'both keys were tried');
    // Dismissing the question saves nothing; Save Anyway saves what was typed.
    await runScripted(api, Commands.updateApiKey, ['garbage-key-456', undefined], { kind: 'account', account });
    assert.equal(await secret(), KEY);
    prompter = await runScripted(api, Commands.updateApiKey, ['garbage-key-789', 'Save Anyway'], { kind: 'account', account });
    assert.equal(await secret(), 'garbage-key-789');
    await runScripted(api, Commands.updateApiKey, [KEY], { kind: 'account', account });
    assert.equal(await secret(), KEY, 'a key that reads the organizations is saved without a question');
  });

  it('Test Connection checks every organization of the account; success is a status bar word, not a pop-up', async () => {
    server.resetRequests();
    const account = await acme();
    const prompter = await runScripted(api, Commands.testConnection, [], { kind: 'account', account });
    assert.equal(server.requests.filter((r) => r.status === 200).length, account.organizations.length);
    assert.deepEqual(prompter.asked.map((a) => a.kind), ['status']);
    const n = account.organizations.length;
    assert.equal(prompter.asked[0]!.title, n === 1 ? `${account.label}: connected, the key reads its organization.` : `${account.label}: connected, the key reads all ${n} organizations.`);
  });

  it('cached records are dropped (memory and disk) on Update API Key, Remove Organization and Remove Account', async () => {
    const account = await api.accounts.add('Cache drop', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: 'org-suite-1', name: 'One' });
    await api.accounts.addOrganization(account.id, { id: 'org-suite-2', name: 'Two' });
    // A closed range (20 days ago): the disk cache keeps it as well.
    const day0 = Math.floor(Date.now() / 86_400_000) - 20;
    const start = new Date(day0 * 86_400_000);
    const end = new Date((day0 + 1) * 86_400_000 - 1);
    const scope = (organizationId: string) => ({ accountId: account.id, baseUrl: server.url, apiKey: KEY, organizationId });
    const fetchBoth = async () => {
      for (const o of ['org-suite-1', 'org-suite-2']) await api.store.get(scope(o), start, end);
    };
    const held = (o: string) => api.store.peek(scope(o), start, end) !== undefined;
    /** Served again without a request to the API? Then memory or disk still had it. */
    const fromNetwork = async (o: string) => {
      server.resetRequests();
      await api.store.get(scope(o), start, end);
      return server.requests.some((r) => r.path.endsWith('/dmarc-records'));
    };
    try {
      await fetchBoth();
      assert.ok(held('org-suite-1') && held('org-suite-2'));
      assert.equal(await fromNetwork('org-suite-1'), false, 'held: no request');
      // A new key (the same one, accepted without a question): nothing of the old key's reads stays.
      await runScripted(api, Commands.updateApiKey, [KEY], { kind: 'account', account });
      await until(() => !held('org-suite-1') && !held('org-suite-2'));
      assert.equal(await fromNetwork('org-suite-1'), true, 'fetched again: not from memory, not from disk');
      await fetchBoth();
      // One organization removed: its rows go, the other's stay.
      const org1 = api.accounts.list().find((a) => a.id === account.id)!.organizations.find((o) => o.id === 'org-suite-1')!;
      await runScripted(api, Commands.removeOrganization, [true], { kind: 'org', account, org: org1 });
      await until(() => !held('org-suite-1'));
      assert.ok(held('org-suite-2'));
      assert.equal(await fromNetwork('org-suite-1'), true);
      // The account removed: everything of it goes.
      await runScripted(api, Commands.removeAccount, [true], { kind: 'account', account: api.accounts.list().find((a) => a.id === account.id)! });
      await until(() => !held('org-suite-2'));
      assert.equal(await fromNetwork('org-suite-2'), true);
    } finally {
      await api.store.invalidate(account.id);
      if (api.accounts.list().some((a) => a.id === account.id)) await runScripted(api, Commands.removeAccount, [true], { kind: 'account', account });
    }
  });

  it('Rename, Copy ID and Remove Organization; Remove Account deletes the secret', async () => {
    const account = await acme();
    const org = account.organizations[0];
    await runScripted(api, Commands.renameOrganization, ['Acme Corp'], { kind: 'org', account, org });
    assert.equal(api.accounts.list()[0].organizations[0].name, 'Acme Corp');
    await vscode.commands.executeCommand(Commands.copyOrganizationId, { kind: 'org', account, org });
    assert.equal(await vscode.env.clipboard.readText(), org.id);
    await runScripted(api, Commands.renameAccount, ['Acme'], { kind: 'account', account });
    assert.equal(api.accounts.list()[0].label, 'Acme');
    await runScripted(api, Commands.removeOrganization, [false], { kind: 'org', account, org });
    assert.equal(api.accounts.list()[0].organizations.length, 1, 'declined confirmation keeps it');
    await runScripted(api, Commands.removeOrganization, [true], { kind: 'org', account, org });
    assert.equal(api.accounts.list()[0].organizations.length, 0);
    await runScripted(api, Commands.removeAccount, [true], { kind: 'account', account });
    assert.equal(api.accounts.list().length, 0);
    assert.equal(await api.context.secrets.get(`dmarc.apiKey.${account.id}`), undefined);
  });
});
