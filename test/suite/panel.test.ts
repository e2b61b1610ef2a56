import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startApiServer, type ApiServer } from '../server/server';
import { Commands } from '../../src/commands';
import { closeUntitled, extensionApi, removeAllAccounts, runScripted, until } from './helpers';
import type { DmarcExplorerApi } from '../../src/extension';
import type { RecordsPanel } from '../../src/panel/recordsPanel';
import { presetRange, rangeLabel } from '../../src/records/dateInput';
import { S } from '../../src/shared/rowCodec';
import { chunkOf } from '../unit/rowsMessage';
import { rawOf } from '../../src/api/rawRow';

const KEY = 'panel-suite-key-93be';
const ORG = 'org-panel-1';


/** `days` whole UTC days starting `back` days ago: in the server's history, and no other test's range. */
function daysBack(back: number, days: number): { start: Date; end: Date } {
  const day0 = Math.floor(Date.now() / 86_400_000) - back;
  return { start: new Date(day0 * 86_400_000), end: new Date((day0 + days) * 86_400_000 - 1) };
}

function logText(api: DmarcExplorerApi): string {
  const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  return walk(dirname(api.context.logUri.fsPath)).filter((f) => /DMARC Explorer/.test(f)).map((f) => readFileSync(f, 'utf8')).join('\n');
}

describe('records panel (extension host, local API server)', () => {
  let api: DmarcExplorerApi;
  let server: ApiServer;
  let panel: RecordsPanel;

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 30 });
    api = await extensionApi();
    await removeAllAccounts(api);
    const account = await api.accounts.add('Panel test', server.url, KEY);
    await api.accounts.addOrganization(account.id, { id: ORG, name: 'Panel Org' });
  });
  after(async () => {
    for (const p of api.panels.all) p.panel.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await removeAllAccounts(api);
    await server.close();
  });

  /** The "Last 7 days" panel the first test opens; opened here when a test runs without it (alone, or in another order). */
  async function last7Panel(): Promise<RecordsPanel> {
    if (panel && api.panels.all.includes(panel) && panel.rows.length > 0) return panel;
    await runScripted(api, Commands.fetchRange, ['Last 7 days']);
    const expected = presetRange('last7', new Date());
    const p = await until(() => api.panels.all.find((x) => x.identity.start === expected.start.toISOString() && x.identity.end === expected.end.toISOString() && x.identity.source === undefined), 'the Last 7 days panel');
    await until(() => p.rows.length > 0 || undefined, 'rows sent to the webview');
    return p;
  }

  it('Fetch Records for Date Range: with one organization no pick, the range step names it; then the panel', async () => {
    server.resetRequests();
    const prompter = await runScripted(api, Commands.fetchRange, ['Last 7 days']);
    assert.deepEqual(prompter.asked.map((a) => [a.kind, a.title]), [['pick', 'Fetch Records of Panel Org: range']], 'the one organization is not asked for');
    assert.equal(api.panels.all.length, 1);
    panel = api.panels.all[0];
    const expected = presetRange('last7', new Date());
    assert.equal(panel.identity.start, expected.start.toISOString());
    assert.equal(panel.identity.end, expected.end.toISOString());
    assert.match(panel.panel.title, /^Panel Org · /);
    // The webview (running in the real workbench) asked for its rows; they came from the cache.
    await until(() => panel.rows.length > 0 || undefined, 'rows sent to the webview');
    assert.equal(server.requests.filter((r) => r.path === '/api/public/dmarc-records').length, 1, 'one request: the panel reuses the fetched range');
  });

  it('the panel opens while the records download, shows that it is loading, and waits for the same request', async () => {
    server.resetRequests();
    server.setFaults({ latencyMs: 3000 });
    try {
      const running = runScripted(api, Commands.fetchRange, ['Last 30 days']);
      const early = await until(() => api.panels.all.find((p) => p !== panel), 'the panel to open during the fetch', 2500);
      assert.equal(early.rows.length, 0, 'no rows yet: the request is still waiting for its answer');
      await running;
      await until(() => early.rows.length > 0 || undefined, 'rows sent to the webview');
      assert.equal(server.requests.filter((r) => r.path === '/api/public/dmarc-records').length, 1, 'the command and the panel shared one request');
      early.panel.dispose();
    } finally {
      server.setFaults({});
    }
  });

  it('closing a panel whose records are still downloading stops the request', async () => {
    server.resetRequests();
    server.setFaults({ bodyStallMs: 3000 });
    try {
      const account = api.accounts.list()[0];
      const org = account.organizations[0];
      const { start, end } = daysBack(40, 3);
      const opened = api.panels.open({ account, org, start, end });
      await until(() => server.requests.find((r) => r.path === '/api/public/dmarc-records'), 'the panel to request its rows');
      opened.panel.dispose();
      // Nobody waits for the range any more: the store gives it up, so asking again starts anew
      // instead of joining the stalled request.
      server.setFaults({});
      const t0 = Date.now();
      const data = await api.store.get({ accountId: account.id, baseUrl: account.baseUrl, apiKey: KEY, organizationId: org.id }, start, end);
      assert.ok(Date.now() - t0 < 2500, 'answered by a new request, not the stalled one');
      assert.ok(data.records.length > 0);
      assert.equal(server.requests.filter((r) => r.path === '/api/public/dmarc-records').length, 2);
    } finally {
      server.setFaults({});
    }
  });

  it('a new panel shows its loading state in the HTML itself, before any script runs', async () => {
    const account = api.accounts.list()[0];
    const org = account.organizations[0];
    const { start, end } = daysBack(50, 1);
    const opened = api.panels.open({ account, org, start, end });
    try {
      const html = opened.panel.webview.html;
      const root = /<div id="root">([\s\S]*?)<\/div><\/div>\n<script/.exec(html)?.[1] ?? '';
      assert.match(root, /role="status" data-testid="boot-loading"/);
      assert.ok(root.includes(`Fetching records for ${rangeLabel(start, end)}…`), root);
      assert.doesNotMatch(root, /<script/i, 'the loading state is plain markup');
      // Its tab icon has a light and a dark version (a currentColor SVG renders black on a dark tab bar).
      const icon = opened.panel.iconPath as { light: vscode.Uri; dark: vscode.Uri };
      assert.deepEqual([icon.light.path.split('/').pop(), icon.dark.path.split('/').pop()], ['panel-light.svg', 'panel-dark.svg']);
      const { escapeHtml } = await import('../../src/panel/recordsPanel');
      assert.equal(escapeHtml(`<img src=x onerror="a('b')">&`), '&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;');
    } finally {
      opened.panel.dispose();
    }
  });

  it('after its account\u2019s key changes, an open panel fetches its range again with the new key', async () => {
    const account = api.accounts.list()[0];
    const org = account.organizations[0];
    const { start, end } = daysBack(60, 2);
    const opened = api.panels.open({ account, org, start, end });
    try {
      await until(() => opened.rows.length > 0 || undefined, 'the panel\u2019s rows');
      server.resetRequests();
      await runScripted(api, Commands.updateApiKey, [KEY], { kind: 'account', account });
      const again = await until(
        () => server.requests.find((r) => r.path === '/api/public/dmarc-records' && r.query.startDate === start.toISOString() && r.status === 200),
        'the panel to fetch its range again',
      );
      assert.equal(again.query.endDate, end.toISOString());
      assert.equal(again.headers.authorization, `Bearer ${KEY}`);
    } finally {
      opened.panel.dispose();
    }
  });

  it('an error that came before the webview was ready reaches it, right after init', async () => {
    const account = api.accounts.list()[0];
    const org = account.organizations[0];
    server.setFaults({ error400: true });
    const opened = api.panels.open({ account, org, ...daysBack(90, 1) });
    try {
      await opened.load(false); // settles with the error held: the webview has not said ready
      const posted: string[] = [];
      const webview = opened.panel.webview;
      const post = webview.postMessage.bind(webview);
      (webview as unknown as { postMessage: (m: { type: string }) => Thenable<boolean> }).postMessage = (m) => {
        posted.push(m.type);
        return post(m);
      };
      await opened.handleMessage({ type: 'ready' });
      assert.deepEqual(posted.slice(0, 2), ['init', 'error']);
    } finally {
      server.setFaults({});
      opened.panel.dispose();
    }
  });

  it('rows go out before the webview says ready; init says how many; a resend posts them again from the row asked for', async () => {
    const account = api.accounts.list()[0];
    const org = account.organizations[0];
    const opened = api.panels.open({ account, org, ...daysBack(200, 2) });
    const posted: Record<string, unknown>[] = [];
    const webview = opened.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: Record<string, unknown>) => Thenable<boolean> }).postMessage = (m) => {
      posted.push(m);
      return post(m);
    };
    try {
      await opened.load(false);
      // The page in the test host may say ready on its own: only what went out before counts here.
      const readyAt = posted.findIndex((m) => m.type === 'init');
      const before = readyAt < 0 ? posted : posted.slice(0, readyAt);
      const rows = before.filter((m) => m.type === 'rows') as { load: number; offset: number; count: number; last: boolean }[];
      if (readyAt < 0) {
        assert.ok(rows.length > 0 && rows.at(-1)!.last, 'every row went out with no ready');
        assert.equal(rows.reduce((n, m) => n + m.count, 0), opened.rows.length);
      }
      assert.ok(rows.every((m) => m.load === rows[0]!.load), 'one load');
      posted.length = 0;
      await opened.handleMessage({ type: 'ready' });
      const init = posted.find((m) => m.type === 'init') as { rows?: { load: number; sent: number } } | undefined;
      assert.deepStrictEqual(init?.rows, { load: rows[0]!.load, sent: opened.rows.length });
      // The webview missed rows from 10 on: they come again, in order, and the end with them.
      assert.ok(opened.rows.length > 10);
      posted.length = 0;
      await opened.handleMessage({ type: 'resend', load: rows[0]!.load, from: 10 });
      await until(() => (posted.some((m) => m.type === 'rows' && m.last) ? true : undefined), 'the rows again');
      const again = posted.filter((m) => m.type === 'rows') as { offset: number; count: number; data: Uint8Array }[];
      assert.equal(again[0]!.offset, 10);
      assert.equal(again.reduce((n, m) => n + m.count, 0), opened.rows.length - 10);
      const chunk = chunkOf(again[0]!);
      assert.equal(chunk.strings[chunk.scalars[S.ipAddress]![0]!], opened.rows[10]!.ipAddress, 'row 10 first');
      // Another load's rows, or rows not sent yet, are not posted again.
      posted.length = 0;
      await opened.handleMessage({ type: 'resend', load: rows[0]!.load + 1, from: 0 });
      await opened.handleMessage({ type: 'resend', load: rows[0]!.load, from: opened.rows.length + 1 });
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(posted.filter((m) => m.type === 'rows').length, 0);
    } finally {
      opened.panel.dispose();
    }
  });

  it('the API key never reaches the webview: not in its page, its messages (rows, details, errors) or its state', async () => {
    const account = api.accounts.list()[0];
    const org = account.organizations[0];
    const opened = api.panels.open({ account, org, ...daysBack(150, 2) });
    const texts: string[] = [opened.panel.webview.html];
    let rows = 0;
    const webview = opened.panel.webview;
    const post = webview.postMessage.bind(webview);
    (webview as unknown as { postMessage: (m: Record<string, unknown>) => Thenable<boolean> }).postMessage = (m) => {
      // A rows chunk is binary: read back every string in it.
      if (m.type === 'rows' && m.data instanceof Uint8Array) {
        const chunk = chunkOf({ data: m.data, packed: m.packed === true });
        rows += chunk.count;
        texts.push(chunk.strings.join('\n'));
      }
      texts.push(JSON.stringify(m, (k, v) => (k === 'data' && v instanceof Uint8Array ? undefined : v)));
      return post(m);
    };
    try {
      await opened.handleMessage({ type: 'ready' });
      await opened.load(false);
      await until(() => (rows > 0 ? true : undefined), 'rows sent to the webview');
      for (let i = 0; i < 3; i++) await opened.handleMessage({ type: 'getRow', requestId: 100 + i, index: i });
      await opened.handleMessage({ type: 'saveState', state: { hiddenColumns: [] } });
      // And the errors a refused or failed request shows.
      server.setFaults({ error400: true });
      await opened.load(true);
      server.setFaults({});
      assert.equal(texts.filter((t) => t.includes('"type":"response"') && t.includes('"requestId":10') && t.includes('"ok":true')).length, 3, 'three rows\u2019 details were sent');
      assert.ok(texts.some((t) => t.includes('"error"')), 'an error was sent');
      for (const t of texts) assert.ok(!t.includes(KEY), `the key in: ${t.slice(0, 200)}`);
      for (const k of api.context.globalState.keys()) assert.ok(!JSON.stringify(api.context.globalState.get(k) ?? null).includes(KEY), `the key in global state ${k}`);
    } finally {
      server.setFaults({});
      opened.panel.dispose();
    }
  });

  it('opening the same organization and range again reveals the same panel', async () => {
    await runScripted(api, Commands.fetchRange, ['Last 7 days']);
    assert.equal(api.panels.all.length, 1);
    await runScripted(api, Commands.fetchRange, ['Yesterday']);
    assert.equal(api.panels.all.length, 2);
    api.panels.all.find((p) => p !== panel)!.panel.dispose();
    assert.equal(api.panels.all.length, 1);
  });

  it('custom range input is validated as typed', async () => {
    const future = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    await assert.rejects(runScripted(api, Commands.fetchRange, ['Custom range…', future]), /future/);
    await assert.rejects(runScripted(api, Commands.fetchRange, ['Custom range…', '2026-02-30']), /Not a date/);
    // Days relative to today, so the test reads the same whenever it runs.
    const day = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const dayBefore = new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10);
    await assert.rejects(runScripted(api, Commands.fetchRange, ['Custom range…', day, dayBefore]), /before the start/);
    await runScripted(api, Commands.fetchRange, ['Custom range…', `${day}T06:00:00+02:00`, day]);
    const custom = api.panels.all.find((p) => p !== panel)!;
    assert.equal(custom.identity.start, `${day}T04:00:00.000Z`);
    assert.equal(custom.identity.end, `${day}T23:59:59.999Z`);
    custom.panel.dispose();
  });

  it('exports the selected rows to an untitled JSON tab, exactly as received', async () => {
    panel = await last7Panel();
    const indices = [0, 2, Math.min(5, panel.rows.length - 1)];
    await panel.handleMessage({ type: 'export', requestId: 1, format: 'json', indices, what: 'selected' });
    const doc = await until(() => vscode.workspace.textDocuments.find((d) => d.isUntitled && d.languageId === 'json' && d.getText().length > 0), 'the JSON tab');
    assert.match(doc.uri.path, /^dmarc-Panel-Org-\d+\.json$/);
    const exported = JSON.parse(doc.getText());
    assert.deepEqual(exported, indices.map((i) => rawOf(panel.rows[i])));
    assert.equal(doc.lineCount, indices.length + 3, 'one record per line between [ and ], then the final line break');
    assert.equal(doc.lineAt(1).text, `${JSON.stringify(rawOf(panel.rows[indices[0]]))},`);
    // And the same bytes the server sent: every exported row is one of the server's rows verbatim.
    const url = new URL('/api/public/dmarc-records', server.url);
    url.searchParams.set('organizationId', ORG);
    url.searchParams.set('startDate', panel.identity.start);
    url.searchParams.set('endDate', panel.identity.end);
    const body = await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json();
    const serverRows = new Set((Array.isArray(body) ? body : body.dmarcRecords).map((r: unknown) => JSON.stringify(r)));
    for (const row of exported) assert.ok(serverRows.has(JSON.stringify(row)));
    assert.ok(!doc.getText().includes(KEY));
    await closeUntitled(doc);
  });

  it('exports CSV with a header and quoted, formula-safe fields', async () => {
    panel = await last7Panel();
    // A row with a reportId (an extra field the JSON keeps) and one without.
    const withId = panel.rows.findIndex((r) => typeof rawOf(r).reportId === 'string');
    const without = panel.rows.findIndex((r) => !('reportId' in rawOf(r)));
    assert.ok(withId >= 0 && without >= 0, 'the sample data has rows with and without reportId');
    await panel.handleMessage({ type: 'export', requestId: 2, format: 'csv', indices: [without, withId], what: 'filtered' });
    const doc = await until(() => vscode.workspace.textDocuments.find((d) => d.isUntitled && d.getText().startsWith('Source,Reporter,')), 'the CSV tab');
    assert.match(doc.uri.path, /\.csv$/);
    assert.equal(doc.languageId, (await vscode.languages.getLanguages()).includes('csv') ? 'csv' : 'plaintext', 'a CSV language when one is installed, else plain text');
    const lines = doc.getText().split('\r\n');
    const known = new Set('source,reporter,visibleFrom,returnPath,to,ipAddress,ipCountryCode,rdns,emails,category,date,dmarc,alignedSpf,alignedDkim,spf,dkims'.split(','));
    // The documented fields under the table's column names; the extra fields under the server's.
    const documented = 'Source,Reporter,Header From,Return-Path,To,IP Address,Country,Reverse DNS,Emails,Category,Date,Disposition,Aligned SPF,Aligned DKIM,SPF,DKIM Signatures';
    const extras = [...new Set([without, withId].flatMap((i) => Object.keys(rawOf(panel.rows[i]))).filter((k) => !known.has(k)))];
    assert.ok(extras.includes('reportId'));
    assert.equal(lines[0], [documented, ...extras].join(','), 'every field of the JSON, extra fields after the documented ones');
    assert.equal(lines[2].split(',').slice(16)[extras.indexOf('reportId')], rawOf(panel.rows[withId]).reportId);
    assert.equal(lines.length, 4, 'header, two rows, final line break');
    assert.ok(lines[1].startsWith(panel.rows[without].source.includes(',') ? `"${panel.rows[without].source}` : panel.rows[without].source));
    await closeUntitled(doc);
    const { toCsv } = await import('../../src/export/format');
    const tricky = { ...panel.rows[0], source: 'a "quoted", source', reporter: '=HYPERLINK("x")', rdns: ['line\nbreak'] };
    const csv = toCsv([tricky]).split('\r\n')[1];
    assert.ok(csv.startsWith('"a ""quoted"", source","\'=HYPERLINK(""x"")"'), csv);
    assert.ok(csv.includes('"line\nbreak"'));
  });

  it('logs one Info line per request: organization, range, status, rows, bytes, duration', async () => {
    // A request of its own (a range no other test fetches), so the line is this test's.
    const day = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10);
    await runScripted(api, Commands.fetchRange, ['Custom range…', day, day]);
    // The output channel's default level is Info: the line is there without Debug.
    const pattern = new RegExp(`GET org-panel-1 ${day}…${day}: 200, [\\d,]+ rows, [\\d.]+ [KM]?B, [\\d,]+ ms`);
    const line = await until(() => pattern.exec(logText(api))?.[0], 'the request line in the log').catch((err: Error) => {
      // Say what the log held instead (once, in CI, the line had not come within 30 s).
      const got = logText(api).split('\n').filter((l) => l.includes('GET ')).slice(-5);
      throw new Error(`${err.message}; its last GET lines: ${got.join(' | ') || 'none'}; panels: ${api.panels.all.map((p) => `${p.identity.start}…${p.identity.end} ${p.rows.length} rows`).join(', ')}`);
    });
    assert.match(line, /^GET org-panel-1/);
    assert.ok(!logText(api).includes(KEY), 'never the key');
  });

  it('ignores invalid messages from the webview, and logs them', async () => {
    panel = await last7Panel();
    const docsBefore = vscode.workspace.textDocuments.length;
    const junk: unknown[] = [
      null, 42, 'export', { type: 'nope' }, { type: 'export', requestId: 3, format: 'html', indices: [0], what: 'selected' },
      { type: 'export', requestId: 4, format: 'json', indices: 'all', what: 'selected' },
      { type: 'getRow', requestId: 5, index: -1 }, { type: 'getRow', requestId: 6, index: 1.5 },
      { type: 'saveState', state: { hiddenColumns: ['<script>'] } }, { type: 'export', requestId: 7, format: 'json', indices: [0] },
    ];
    for (const m of junk) await panel.handleMessage(m);
    assert.equal(vscode.workspace.textDocuments.length, docsBefore, 'no export happened');
    const log = await until(() => {
      const text = logText(api);
      return (text.match(/ignored an invalid message from the records panel/g) ?? []).length >= junk.length ? text : undefined;
    }, 'log lines', 10_000);
    assert.ok(log.includes('"nope"'));
  });

  it('Open Records on a tree bucket and on a source opens that range, filtered to the source', async function () {
    this.timeout(120_000);
    const org = (await api.tree.getChildren())![0];
    const last30 = (await api.tree.getChildren(org))![1];
    assert.equal(last30.kind, 'bucket');
    await vscode.commands.executeCommand(Commands.openRecords, last30);
    const rangePanel = api.panels.active!;
    assert.equal(rangePanel.identity.start, (last30 as { bucket: { start: Date } }).bucket.start.toISOString());
    const source = (await api.tree.getChildren(last30))!.find((n) => n.kind === 'source')!;
    await vscode.commands.executeCommand(Commands.openRecords, source);
    const sourcePanel = api.panels.active!;
    assert.notEqual(sourcePanel, rangePanel);
    const name = (source as { source: { source: string; rows: number } }).source;
    assert.equal(sourcePanel.identity.source, name.source);
    // Rows come once the panel's webview has started in the workbench: slow on a loaded machine.
    await until(() => sourcePanel.rows.length > 0 || undefined, 'source rows', 90_000);
    assert.equal(sourcePanel.rows.length, name.rows);
    assert.ok(sourcePanel.rows.every((r) => r.source === name.source));
  });
});
