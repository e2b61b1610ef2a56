import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startApiServer, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { extensionApi, removeAllAccounts, runScripted } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';

const KEY = 'suite-secret-key-7f3a9c2e51';

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

  it('Add Organization with a refused key says so and adds nothing', async () => {
    const [account] = api.accounts.list();
    const before = account.organizations.length;
    const prompter = await runScripted(api, Commands.addOrganization, ['org-not-held', '', undefined], { kind: 'account', account });
    assert.equal(api.accounts.list()[0].organizations.length, before);
    const said = prompter.asked.find((a) => a.kind === 'notify:error');
    assert.match(said?.title ?? '', /refused for organization org-not-held \(403\)/);
    assert.ok(server.requests.some((r) => r.query.organizationId === 'org-not-held' && r.status === 403));
  });

  it('Test Connection checks every organization of the account', async () => {
    server.resetRequests();
    const [account] = api.accounts.list();
    await vscode.commands.executeCommand(Commands.testConnection, { kind: 'account', account });
    assert.equal(server.requests.filter((r) => r.status === 200).length, account.organizations.length);
  });

  it('Rename, Copy ID and Remove Organization; Remove Account deletes the secret', async () => {
    const [account] = api.accounts.list();
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
