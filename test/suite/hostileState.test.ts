// Hostile stored state in the extension host (issue 14): accounts in globalState with unknown
// fields and wrong types, a SecretStorage that throws or gives nothing (a locked keychain), and
// records panels restored from hostile serialized state. Never a crash or a hang; accounts and
// keys are never lost; what cannot be used is dropped or said clearly.
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { extensionApi, removeAllAccounts } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import { AccountStore } from '../../src/accounts/accountStore';
import { PANEL_VIEW_TYPE } from '../../src/panel/recordsPanel';
import { leaksIn, lost, tried } from '../hostile/figures';

const KEY = 'hostile-state-key-0b7e';
const STATE_KEY = 'dmarc.accounts.v1';

class Memento implements vscode.Memento {
  constructor(private readonly values: Record<string, unknown>) {}
  keys(): readonly string[] {
    return Object.keys(this.values);
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return (key in this.values ? this.values[key] : fallback) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values[key] = value;
  }
}

function secrets(get: (key: string) => unknown, store: () => void = () => undefined): vscode.SecretStorage {
  const changed = new vscode.EventEmitter<vscode.SecretStorageChangeEvent>();
  return {
    get: async (k: string) => get(k) as string | undefined,
    store: async () => store(),
    delete: async () => undefined,
    onDidChange: changed.event,
  } as unknown as vscode.SecretStorage;
}

const good = (id: string, orgs: unknown[] = [{ id: 'o1', name: 'Org' }]) => ({ id, label: `L ${id}`, baseUrl: 'http://127.0.0.1:9', organizations: orgs });

/** globalState values for the accounts key, and the ids of the accounts in each that must survive. */
const STATES: [string, unknown, string[]][] = [
  ['undefined', undefined, []], ['null', null, []], ['a number', 5, []], ['a string', 'accounts', []], ['an object', { a: good('a') }, []],
  ['a list of junk', [null, 5, 'x', [], {}, { id: 5 }], []],
  ['an account missing its label', [good('a'), { id: 'b', baseUrl: 'x', organizations: [] }], ['a']],
  ['organizations not a list', [good('a'), { ...good('b'), organizations: 'o1' }], ['a']],
  ['organizations of junk', [good('a', [null, 5, 'o', { id: 7 }, { id: 'ok', name: 5 }, { id: 'o2' }])], ['a']],
  ['unknown fields', [{ ...good('a'), future: { v: 2 }, label2: [1] }], ['a']],
  ['__proto__ and constructor keys', JSON.parse(`[{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},${JSON.stringify(good('a')).slice(1)}]`), ['a']],
  ['duplicate ids', [good('a'), good('a')], ['a']],
  ['10,000 accounts', Array.from({ length: 10_000 }, (_, i) => good(`n${i}`)), ['n0', 'n9999']],
  ['a 1 MB label', [{ ...good('a'), label: 'x'.repeat(1 << 20) }], ['a']],
  ['deep organizations', [good('a', [JSON.parse('{"id":"d","x":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}')])], ['a']],
];

describe('hostile: stored state (extension host)', function () {
  this.timeout(120_000);
  let api: DmarcExplorerApi;
  let server: ApiServer;
  before(async () => {
    server = await startApiServer({ keys: { [KEY]: ['org-s'] }, rowsPerDay: 5 });
    api = await extensionApi();
    await removeAllAccounts(api);
  });
  after(async () => {
    for (const p of api.panels.all) p.panel.dispose();
    await removeAllAccounts(api);
    await server?.close();
  });

  it('accounts in globalState of every wrong shape: listed without a crash, valid accounts kept through every change', async () => {
    for (const [what, value, keep] of STATES) {
      tried('states');
      const store = new AccountStore(new Memento({ [STATE_KEY]: value }), secrets(() => KEY));
      try {
        const ids = () => store.list().map((a) => a.id);
        for (const id of keep) assert.ok(ids().includes(id), `${what}: ${id} listed`);
        for (const a of store.list()) for (const o of a.organizations) assert.equal(typeof o.id, 'string', `${what}: an organization without an id`);
        const first = keep[0];
        if (first) {
          await store.addOrganization(first, { id: 'new-org' });
          await store.renameOrganization(first, 'o1', 'Renamed');
          await store.removeOrganization(first, 'o2');
          await store.rename(first, 'Renamed account');
          assert.ok(store.get(first)?.organizations.some((o) => o.id === 'new-org'), `${what}: the change kept`);
        }
        await store.add('Added', 'http://127.0.0.1:9', KEY);
        for (const id of keep) assert.ok(ids().includes(id), `${what}: ${id} still listed after changes`);
        assert.equal(({} as Record<string, unknown>).polluted, undefined, `${what}: Object.prototype polluted`);
      } catch (e) {
        lost('crashes', `globalState ${what}: ${String(e)}`);
        throw e;
      }
    }
  });

  it('the real tree over hostile accounts state: every level lists without a crash', async () => {
    const real = api.accounts as unknown as { state: vscode.Memento };
    const saved = real.state;
    try {
      for (const [what, value] of STATES) {
        tried('states');
        real.state = new Memento({ [STATE_KEY]: value });
        const walk = async (node?: unknown, depth = 0): Promise<number> => {
          if (depth > 2) return 0;
          const children = ((await api.tree.getChildren(node as never)) ?? []) as unknown[];
          let n = children.length;
          for (const c of children.slice(0, 3)) {
            api.tree.getTreeItem(c as never);
            n += await walk(c, depth + 1);
          }
          return n;
        };
        await walk().catch((e: unknown) => {
          lost('crashes', `tree over ${what}: ${String(e)}`);
          throw new Error(`${what}: ${String(e)}`);
        });
      }
    } finally {
      real.state = saved;
    }
  });

  it('a SecretStorage that throws, gives nothing or gives a non-string: the key reads as missing; storing that throws lists no account', async () => {
    for (const [what, get] of [
      ['throws (keychain locked)', () => { throw new Error(`keychain locked for ${KEY}`); }],
      ['gives undefined', () => undefined],
      ['gives a number', () => 42],
      ['gives an object', () => ({ key: KEY })],
    ] as [string, () => unknown][]) {
      tried('states');
      const store = new AccountStore(new Memento({ [STATE_KEY]: [good('a')] }), secrets(get));
      assert.equal(await store.getKey('a'), undefined, what);
      assert.deepEqual(store.list().map((a) => a.id), ['a'], `${what}: the account kept`);
    }
    tried('states');
    const failing = new AccountStore(new Memento({ [STATE_KEY]: [good('a')] }), secrets(() => KEY, () => { throw new Error('keychain locked'); }));
    await assert.rejects(failing.add('New', 'http://127.0.0.1:9', KEY));
    assert.deepEqual(failing.list().map((a) => a.id), ['a'], 'no account without its key; the old one kept');
  });

  it('a records panel whose key cannot be read (keychain locked) says the key is missing, instead of loading forever', async () => {
    tried('states');
    const account = await api.accounts.add('Locked', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: 'org-s' });
    const real = api.accounts as unknown as { secrets: vscode.SecretStorage };
    const saved = real.secrets;
    real.secrets = secrets(() => { throw new Error('keychain locked'); });
    const posted: string[] = [];
    try {
      const day0 = Math.floor(Date.now() / 86_400_000) - 60;
      const panel = api.panels.open({ account: api.accounts.get(account.id)!, org: { id: 'org-s' }, start: new Date(day0 * 86_400_000), end: new Date((day0 + 1) * 86_400_000 - 1) });
      const post = panel.panel.webview.postMessage.bind(panel.panel.webview);
      (panel.panel.webview as unknown as { postMessage: (m: unknown) => Thenable<boolean> }).postMessage = (m) => {
        posted.push(JSON.stringify(m));
        return post(m);
      };
      await panel.handleMessage({ type: 'ready' });
      await panel.load(true);
      assert.ok(posted.some((p) => /"type":"error".*API key of Locked is missing/.test(p)), posted.join('\n').slice(0, 500));
      panel.panel.dispose();
    } finally {
      real.secrets = saved;
    }
    assert.equal(await api.accounts.getKey(account.id), KEY, 'the key itself is still there');
    assert.equal(leaksIn(KEY, posted, 'panel state'), 0);
  });

  it('records panels restored from hostile serialized state: each disposed with a log line, or opened on its own range', async () => {
    // The account of the test before, or one made here when this test runs alone.
    const account = api.accounts.list().find((a) => a.label === 'Locked') ?? (await api.accounts.add('Locked', server.url, KEY));
    if (!account.organizations.some((o) => o.id === 'org-s')) await api.accounts.addOrganization(account.id, { id: 'org-s' });
    const identity = { accountId: account.id, organizationId: 'org-s', start: '2025-06-01T00:00:00.000Z', end: '2025-06-01T23:59:59.999Z' };
    const states: unknown[] = [
      undefined, null, 5, 'state', [], {}, { identity: null }, { identity: 'x' }, { identity: { ...identity, accountId: 'gone' } },
      { identity: { ...identity, organizationId: 'gone' } }, { identity: { ...identity, start: 'yesterday' } }, { identity: { ...identity, start: '+275760-09-13T00:00:00.000Z' } },
      { identity: { ...identity, accountId: 'x'.repeat(1 << 20) } },
      JSON.parse(`{"__proto__":{"identity":${JSON.stringify(identity)}}}`),
      { identity, view: { search: 5, facets: { x: [1] }, sort: 'up', scrollTop: -1 } },
      { identity, view: JSON.parse('['.repeat(10_000) + ']'.repeat(10_000)) },
      { identity: { ...identity, source: { $gt: '' } } },
    ];
    for (const state of states) {
      tried('states');
      const before = api.panels.all.length;
      const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'restored', vscode.ViewColumn.Active, { enableScripts: true });
      let disposed = false;
      panel.onDidDispose(() => (disposed = true));
      try {
        await api.panels.restore(panel, state);
      } catch (e) {
        lost('crashes', `restore: ${String(e)}`);
        throw e;
      }
      const adopted = api.panels.all.length > before;
      assert.ok(disposed !== adopted, `state ${states.indexOf(state)}: disposed or adopted, one of them`);
      if (adopted) {
        const p = api.panels.all.find((x) => x.panel === panel)!;
        assert.equal(p.identity.accountId, account.id);
        p.panel.dispose();
      }
    }
  });
});
