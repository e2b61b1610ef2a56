// Report files in the editor (issue 13): opened from the palette, the Explorer's menu or a drop,
// shown in the tree's Report Files section, analysed and opened in the panel like an organization.
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Commands } from '../../src/commands';
import { readAggregateReports } from '../../src/import';
import type { DmarcExplorerApi } from '../../src/extension';
import type { Node, NodeOf } from '../../src/tree/nodes';
import { reportDropController } from '../../src/reportFiles/reportCommands';
import { windowPrompter } from '../../src/ui/prompter';
import { counted, extensionApi, removeAllAccounts, runScripted, until } from './helpers';
import { rawOf } from '../../src/api/rawRow';

const FIXTURES = join(__dirname, '..', '..', 'test', 'fixtures', 'reports');


describe('report files (extension host)', () => {
  let api: DmarcExplorerApi;
  let dir: string;
  let folder: string;
  let expected: { reports: number; rows: number; emails: number };

  const children = async (node?: Node) => (await api.tree.getChildren(node)) ?? [];
  const section = async () => (await children()).find((n) => n.kind === 'reports') as NodeOf<'reports'> | undefined;
  /** The folder opened (each test sets up what it needs; the first one does it through the palette). */
  const opened = async () => {
    if (!api.reportFiles.locations().includes(folder)) await api.reportFiles.add([folder]);
    return until(section, 'the Report Files section');
  };
  const closeAll = async () => {
    for (const p of api.reportFiles.locations()) await api.reportFiles.remove(p);
  };

  before(async () => {
    api = await extensionApi();
    await removeAllAccounts(api);
    await closeAll();
    dir = mkdtempSync(join(tmpdir(), 'dmarc-report-files-'));
    folder = join(dir, 'inbox');
    mkdirSync(folder);
    expected = { reports: 0, rows: 0, emails: 0 };
    for (const f of readdirSync(FIXTURES)) {
      copyFileSync(join(FIXTURES, f), join(folder, f));
      const r = await readAggregateReports(f, new Uint8Array(readFileSync(join(FIXTURES, f))));
      expected.reports += r.reports.length;
      for (const rep of r.reports) for (const rec of rep.records) (expected.rows++, (expected.emails += rec.emails));
    }
    writeFileSync(join(folder, 'broken.zip'), 'PK not really a zip');
  });
  afterEach(() => api.useResolver(undefined));
  after(async () => {
    for (const p of api.panels.all) p.panel.dispose();
    await closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('Open Report Files… from the palette: a folder; the tree gets a Report Files section with its domain, the folder and the file it could not read', async () => {
    const prompter = await runScripted(api, Commands.openReportFiles, ['A Folder of Reports…', folder]);
    assert.deepEqual(prompter.asked.map((a) => a.kind), ['pick', 'openDialog', 'status']);
    // Counts in their singular or plural form: "1 problem", never "1 problem(s)" (issue 43).
    assert.ok(prompter.asked[2]!.title!.endsWith(`${counted(expected.reports, 'report')} from ${counted(readdirSync(folder).length, 'file')}, 1 problem: see Report Files`), prompter.asked[2]!.title);
    const reports = await until(section, 'the Report Files section');
    assert.equal(api.tree.getTreeItem(reports).label, 'Report Files');
    const [domain, location, ...rest] = await children(reports);
    assert.equal(rest.length, 0);
    assert.equal(domain!.kind, 'org');
    const domainItem = api.tree.getTreeItem(domain!);
    assert.equal(domainItem.label, 'example.com');
    assert.equal(domainItem.contextValue, 'reportDomain');
    assert.equal(location!.kind, 'location');
    const locItem = api.tree.getTreeItem(location!);
    assert.equal(locItem.label, 'inbox');
    assert.equal(locItem.description, `${counted(readdirSync(folder).length, 'file')} · ${counted(expected.reports, 'report')} · 1 problem`);
    const [problem] = await children(location!);
    const problemItem = api.tree.getTreeItem(problem!);
    assert.equal(problemItem.label, 'broken.zip');
    assert.ok(String(problemItem.description).length > 0, 'the reason is shown');
    assert.doesNotMatch(String(problemItem.tooltip), /\n\s+at /, 'no stack trace');
  });

  it('a domain has an "All reports" bucket and its months; expanding one sums the emails of its rows, by source', async () => {
    const reports = await opened();
    const [domain] = await children(reports);
    const buckets = (await children(domain!)) as NodeOf<'bucket'>[];
    assert.match(buckets[0]!.bucket.label, /^All reports · /);
    assert.ok(buckets.slice(1).every((b) => b.bucket.kind === 'month'), 'then months');
    const inside = await children(buckets[0]!);
    const summary = inside.find((n) => n.kind === 'summary') as NodeOf<'summary'>;
    assert.deepEqual({ rows: summary.summary.rows, emails: summary.summary.emails }, { rows: expected.rows, emails: expected.emails });
    const sources = inside.filter((n) => n.kind === 'source') as NodeOf<'source'>[];
    assert.deepEqual(sources.map((s) => s.source.source), ['Unknown'], 'no reverse DNS in the test host unless a test injects it');
    const monthRows = await Promise.all(buckets.slice(1).map(async (b) => ((await children(b)).find((n) => n.kind === 'summary') as NodeOf<'summary'>).summary.rows));
    assert.equal(monthRows.reduce((a, b) => a + b, 0), expected.rows, 'the months hold every row once');
  });

  it('Open Records on the domain opens the panel with every row; its JSON is the XML record; Export JSON writes them', async () => {
    const reports = await opened();
    const [domain] = await children(reports);
    const [all] = (await children(domain!)) as NodeOf<'bucket'>[];
    await vscode.commands.executeCommand(Commands.openRecords, all);
    const panel = await until(() => api.panels.all.find((p) => p.identity.organizationId === 'example.com'), 'the panel');
    await until(() => panel.rows.length === expected.rows || undefined, 'every row in the panel');
    assert.ok(panel.rows.every((r) => typeof rawOf(r).row === 'object' && rawOf(r).row !== null), 'raw is the report\u2019s <record> (row, identifiers, auth_results)');
    // Each row carries the policy its report states (the advice's readiness reads it), never in its JSON.
    assert.ok(panel.rows.every((r) => r.published?.domain === 'example.com' && !('published' in rawOf(r))), 'the published policy on every row');
    await panel.handleMessage({ type: 'export', requestId: 7, format: 'json', indices: [0, 1], what: 'selected' });
    const doc = await until(() => vscode.workspace.textDocuments.find((d) => d.isUntitled && d.languageId === 'json' && d.getText().includes('"row"')), 'the JSON tab');
    assert.deepEqual(JSON.parse(doc.getText()), [rawOf(panel.rows[0]!), rawOf(panel.rows[1]!)]);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    panel.panel.dispose();
  });

  it('Fetch Records for Date Range… offers the report files’ domains, and reads the range from the files', async () => {
    await opened();
    assert.deepEqual(api.accounts.list(), [], 'no API account: the domain is the one organization');
    // With one organization the range step names it (and with several, it is among them).
    const prompter = await runScripted(api, Commands.fetchRange, ['Custom range…', '2000-01-01', new Date().toISOString().slice(0, 10)]);
    assert.deepEqual(prompter.asked.map((a) => [a.kind, a.title]).slice(0, 1), [['pick', 'Fetch Records of example.com: range']]);
    const panel = await until(() => api.panels.all.find((p) => p.identity.organizationId === 'example.com' && p.identity.start === '2000-01-01T00:00:00.000Z'), 'the panel');
    await until(() => panel.rows.length === expected.rows || undefined, 'every row of the files in the panel');
    panel.panel.dispose();
  });

  it('reverse DNS (a canned table injected): sources are named from the PTR names; the parsed reports come from the cache', async () => {
    await opened(); // read once already (by the first test, or here): the next read comes from the cache
    const asked: string[] = [];
    api.useResolver(async (ip) => {
      asked.push(ip);
      if (ip.startsWith('192.0.2.')) return [`mail-${ip.split('.').pop()}.google.com`];
      throw Object.assign(new Error('none'), { code: 'ENOTFOUND' });
    });
    const named = new Promise<void>((resolve) => {
      const sub = api.reportFiles.onDidChange((why) => why === 'names' && (sub.dispose(), resolve()));
    });
    const stats = await api.reportFiles.reload();
    assert.equal(stats!.fromCache, stats!.files, 'every file from the parsed cache (what a broken one gave is kept too)');
    await named;
    assert.ok(asked.length > 0 && new Set(asked).size === asked.length, 'each IP asked once');
    const reports = await opened();
    const [domain] = await children(reports);
    const [all] = (await children(domain!)) as NodeOf<'bucket'>[];
    const sources = (await children(all!)).filter((n) => n.kind === 'source') as NodeOf<'source'>[];
    assert.ok(sources.some((s) => s.source.source === 'Google'), `named from google.com PTRs: ${sources.map((s) => s.source.source).join(', ')}`);
  });

  it('Open in DMARC Explorer (Explorer menu) and a drop on the view open single files; Close leaves the files untouched', async () => {
    const a = join(folder, 'rfc9990.xml');
    const b = join(folder, 'mailru-style.xml');
    await vscode.commands.executeCommand(Commands.openInExplorer, vscode.Uri.file(a), [vscode.Uri.file(a)]);
    assert.ok(api.reportFiles.locations().includes(a));
    const drop = reportDropController(api.reportFiles, () => windowPrompter, { info: () => undefined, warn: () => undefined } as unknown as vscode.LogOutputChannel);
    const data = new vscode.DataTransfer();
    data.set('text/uri-list', new vscode.DataTransferItem(`${vscode.Uri.file(b).toString()}\r\nhttps://example.invalid/x.xml\r\n`));
    await drop.handleDrop!(undefined, data, new vscode.CancellationTokenSource().token);
    assert.ok(api.reportFiles.locations().includes(b), 'the dropped file');
    assert.ok(!api.reportFiles.locations().some((p) => p.includes('example.invalid')), 'a non-file URI is left out');
    const before = statSync(a).mtimeMs;
    const reports = await until(section, 'the Report Files section');
    const loc = (await children(reports)).find((n) => n.kind === 'location' && n.location.path === a)!;
    await vscode.commands.executeCommand(Commands.removeReportLocation, loc);
    assert.ok(!api.reportFiles.locations().includes(a));
    assert.equal(statSync(a).mtimeMs, before, 'the file itself is not touched');
    await api.reportFiles.remove(b);
  });

  it('a new report saved into an opened folder is read without asking', async () => {
    await opened();
    const before = api.reportFiles.library.domains().length;
    const changed = new Promise<void>((resolve) => {
      const sub = api.reportFiles.onDidChange((why) => why === 'loaded' && api.reportFiles.library.domain('new.example') && (sub.dispose(), resolve()));
    });
    writeFileSync(join(folder, 'new.xml'), readFileSync(join(FIXTURES, 'mailru-style.xml'), 'utf8').replace(/<domain>[^<]*<\/domain>/, '<domain>new.example</domain>').replace(/<report_id>[^<]*/, '<report_id>new-1'));
    await Promise.race([changed, new Promise((_, reject) => setTimeout(() => reject(new Error('the folder was not read again within 15 s')), 15_000))]);
    assert.equal(api.reportFiles.library.domains().length, before + 1);
  });

  it('closing the last location removes the section', async () => {
    await closeAll();
    assert.equal(await section(), undefined);
  });
});
