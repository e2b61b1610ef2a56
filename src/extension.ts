import * as vscode from 'vscode';
import * as l10n from '@vscode/l10n';
import { fetchDmarcRecords, requestLine } from './api';
import { AccountStore } from './accounts/accountStore';
import { PUBLIC_BASE_URL, registerAccountCommands } from './accounts/accountCommands';
import { DISK_CACHE_DEFAULT_MB, DiskCache } from './records/diskCache';
import { RecordStore } from './records/recordStore';
import { Busy } from './shared/busy';
import { DmarcTreeProvider, VIEW_ID, type TreeSettings } from './tree/dmarcTree';
import { SourceMarks } from './tree/marks';
import type { Node } from './tree/nodes';
import { windowPrompter, type Prompter } from './ui/prompter';
import { PANEL_VIEW_TYPE } from './panel/recordsPanel';
import { RecordsPanels } from './panel/recordsPanels';
import { registerPanelCommands } from './panel/panelCommands';
import { Commands, ContextKeys } from './commands';
import { startPerfTrace } from './perf';
import { REPORT_FILES_ID, ReportFiles, withReportFiles } from './reportFiles/reportFiles';
import { registerReportCommands, reportDropController } from './reportFiles/reportCommands';
import { ptrResolver } from './reportFiles/resolver';
import { Overview } from './overview/overview';
import { englishCount } from './ui/counted';
import type { PtrResolver } from './import/rdns';
import { registerWatch } from './watch/watchWiring';
import type { Watch } from './watch/watch';
import type { FindingStore } from './watch/findingStore';

/**
 * What activate() returns when VS Code runs the extension's tests (ExtensionMode.Test), so they
 * can reach the live objects. Never otherwise: `exports` are readable by every other extension,
 * and these objects can read the API keys.
 */
export interface DmarcExplorerApi {
  context: vscode.ExtensionContext;
  accounts: AccountStore;
  store: RecordStore;
  tree: DmarcTreeProvider;
  panels: RecordsPanels;
  reportFiles: ReportFiles;
  /** The owner's marks on sources (globalState). */
  marks: SourceMarks;
  /** The background watch (off unless `dmarc.watch.enabled`) and what it found. */
  watch: Watch;
  findings: FindingStore;
  /** The DMARC view (its badge counts unseen findings). */
  view: vscode.TreeView<Node>;
  /** The Overview of all organizations (src/overview). */
  overview: Overview;
  /** Replaces how the commands ask the user (tests answer programmatically); returns a restore function. */
  usePrompter(p: Prompter): () => void;
  /** Reverse DNS for report files in tests (a fake with a canned table); undefined turns it off. */
  useResolver(r: PtrResolver | undefined): void;
}

function settings(): { tree: TreeSettings; timeoutMs: number; diskCacheBytes: number } {
  const c = vscode.workspace.getConfiguration('dmarc');
  const months = Math.min(Math.max(Math.floor(c.get<number>('tree.months', 13)), 1), 60);
  const monthChildren = c.get<string>('tree.monthChildren') === 'weeks' ? 'weeks' : 'days';
  const timeoutMs = Math.max(5, c.get<number>('requestTimeoutSeconds', 120)) * 1000;
  const diskMb = c.get<number>('diskCacheMegabytes', DISK_CACHE_DEFAULT_MB);
  const diskCacheBytes = Number.isFinite(diskMb) ? Math.max(0, Math.floor(diskMb)) * 1048576 : DISK_CACHE_DEFAULT_MB * 1048576;
  return { tree: { months, monthChildren }, timeoutMs, diskCacheBytes };
}

export function activate(context: vscode.ExtensionContext): DmarcExplorerApi | undefined {
  const log = vscode.window.createOutputChannel('DMARC Explorer', { log: true });
  context.subscriptions.push(log);
  const version = String(context.extension.packageJSON.version);
  log.info(`DMARC Explorer ${version} activated`);
  // The core (src/records) translates through @vscode/l10n: hand it the bundle VS Code chose.
  if (vscode.l10n.bundle) l10n.config({ contents: vscode.l10n.bundle });

  const perf = startPerfTrace(process.env.DMARC_PERF_FILE, process.env.DMARC_PERF_CPUPROFILE);
  if (perf) context.subscriptions.push(perf);
  const accounts = new AccountStore(context.globalState, context.secrets);
  let testResolver: PtrResolver | undefined;
  const reportFiles = new ReportFiles({
    context,
    log,
    resolver: () => ptrResolver(context.extensionMode === vscode.ExtensionMode.Test, testResolver, vscode.workspace.getConfiguration('dmarc').get<boolean>('import.reverseDns', true)),
  });
  const lookup = withReportFiles(accounts, reportFiles);
  // Panels sending rows to their webviews are busy; the disk cache writes once they are not.
  const busy = new Busy();
  const disk = new DiskCache(vscode.Uri.joinPath(context.globalStorageUri, 'records').fsPath, { log: (l) => log.debug(l), maxBytes: () => settings().diskCacheBytes });
  const store = new RecordStore({
    fetch: async (scope, start, end, signal, onRows) => {
      // Report files: the rows are already read (the library is the "server").
      if (scope.accountId === REPORT_FILES_ID) {
        await reportFiles.ready();
        const local = reportFiles.library.fetchResult(scope.organizationId, start.getTime(), end.getTime());
        onRows?.(local.records, 0);
        return local;
      }
      const result = await fetchDmarcRecords(
        { baseUrl: scope.baseUrl, apiKey: scope.apiKey, organizationId: scope.organizationId, startDate: start, endDate: end },
        {
          signal,
          timeoutMs: settings().timeoutMs,
          log: (l) => log.debug(l),
          onDone: (summary) => log.info(requestLine(summary)),
          onRows,
          onFirstByte: perf && ((i) => perf.mark('firstByte', { ms: i.ms })),
          onResponse: perf && ((i) => perf.mark('response', { bytes: i.bytes, ms: i.ms })),
        },
      );
      perf?.mark('parsed', { rows: result.records.length });
      return result;
    },
    writeDelayMs: 3000,
    quiet: () => busy.quiet(),
    disk,
    log: (l) => log.debug(l),
    noDisk: (accountId) => accountId === REPORT_FILES_ID,
  });
  // The owner's marks: the tree judges by them and shows them; open panels are sent them.
  const marks = new SourceMarks(context.globalState);
  const tree = new DmarcTreeProvider(accounts, store, () => settings().tree, log, undefined, reportFiles, marks);
  const panels = new RecordsPanels({ extensionUri: context.extensionUri, accounts: lookup, store, log, memento: context.globalState, busy, marks });
  const overview = new Overview({ extensionUri: context.extensionUri, lookup, store, panels, marks, log });
  let prompter: Prompter = windowPrompter;
  const view = vscode.window.createTreeView<Node>(VIEW_ID, {
    treeDataProvider: tree,
    showCollapseAll: true,
    dragAndDropController: reportDropController(reportFiles, () => prompter, log),
  });

  // Demo mode (`npm run demo` sets this): Add Account suggests the local demo server instead of
  // the public service, and the view says "Demo". Nothing else changes; the user still adds the
  // account and key as anyone would.
  const demoBaseUrl = process.env.DMARC_DEMO_BASE_URL;
  if (demoBaseUrl) {
    // In the title, not `description`: a single-view container hides the view's own header.
    view.title = vscode.l10n.t('Reports (Demo)');
    void vscode.commands.executeCommand('setContext', ContextKeys.demo, true);
    log.info(`demo mode: local API server ${demoBaseUrl}`);
  }

  const updateContext = () => {
    const list = accounts.list();
    void vscode.commands.executeCommand('setContext', ContextKeys.hasAccounts, list.length > 0);
    void vscode.commands.executeCommand('setContext', ContextKeys.hasOrganizations, list.some((a) => a.organizations.length > 0));
    void vscode.commands.executeCommand('setContext', ContextKeys.singleAccount, list.length === 1);
    void vscode.commands.executeCommand('setContext', ContextKeys.hasReportFiles, reportFiles.locations().length > 0);
  };
  updateContext();

  context.subscriptions.push(
    accounts,
    marks,
    tree,
    view,
    view.onDidExpandElement((e) => tree.setExpanded(e.element, true)),
    view.onDidCollapseElement((e) => tree.setExpanded(e.element, false)),
    accounts.onDidChange(() => {
      updateContext();
      tree.refresh();
      overview.changed();
    }),
    reportFiles,
    reportFiles.onDidChange((why) => {
      updateContext();
      // What was held of the report files is dropped: panels and the tree read them again.
      void store.invalidate(REPORT_FILES_ID);
      panels.reloadAccount(REPORT_FILES_ID, why === 'names' ? vscode.l10n.t('Source names were filled in from reverse DNS.') : vscode.l10n.t('The report files were read again.'));
      tree.refresh();
      overview.changed();
    }),
    ...registerReportCommands(reportFiles, () => prompter, log),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('dmarc.tree')) tree.refresh();
      // A lower limit applies at once (a higher one needs nothing).
      if (e.affectsConfiguration('dmarc.diskCacheMegabytes')) disk.trim().catch((err: unknown) => log.debug(`disk cache trim failed: ${String(err)}`));
    }),
    ...registerAccountCommands({
      accounts,
      prompter: () => prompter,
      log,
      invalidate: (accountId, organizationId) => void store.invalidate(accountId, organizationId),
      keyChanged: (accountId) => {
        panels.reloadAccount(accountId);
        overview.changed();
      },
      timeoutMs: () => settings().timeoutMs,
      defaultBaseUrl: () => demoBaseUrl || PUBLIC_BASE_URL,
    }),
    vscode.commands.registerCommand(Commands.refresh, async () => {
      const report = await tree.refreshAll();
      log.info(report);
      vscode.window.setStatusBarMessage(`$(check) ${report}`, 8000);
      return report;
    }),
    vscode.commands.registerCommand(Commands.clearDiskCache, async () => {
      const { files, bytes } = await disk.usage();
      if (files === 0) {
        void prompter.notify('info', vscode.l10n.t('The disk cache is empty: nothing to clear.'));
        return { files, bytes };
      }
      await disk.clear();
      log.info(`disk cache cleared: ${englishCount(files, 'file')}, ${bytes} bytes`);
      const periods = files === 1 ? vscode.l10n.t('1 cached period') : vscode.l10n.t('{0} cached periods', files);
      void prompter.notify('info', vscode.l10n.t('Removed {0} ({1} MB) from disk. Periods open now stay in memory; the others are fetched again when next opened.', periods, (bytes / 1048576).toFixed(1)));
      return { files, bytes };
    }),
    vscode.commands.registerCommand(Commands.refreshItem, (node?: Node) => node && tree.refreshBucket(node)),
    vscode.commands.registerCommand(Commands.retry, (node?: Node) => node && tree.refreshBucket(node)),
    vscode.commands.registerCommand(Commands.copyIpAddress, (node?: Node) => node?.kind === 'ip' && tree.copyIpAddress(node)),
    panels,
    vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
      deserializeWebviewPanel: (panel, state) => panels.restore(panel, state),
    }),
    ...registerPanelCommands({ accounts, lookup, store, panels, prompter: () => prompter, log }),
    overview,
    vscode.commands.registerCommand(Commands.openOverview, () => overview.open()),
  );

  const watched = registerWatch({ context, accounts, store, panels, tree, view, log, prompter: () => prompter });
  context.subscriptions.push(...watched.disposables);

  if (context.extensionMode !== vscode.ExtensionMode.Test) return undefined;
  return {
    context,
    accounts,
    store,
    tree,
    panels,
    reportFiles,
    marks,
    watch: watched.watch,
    findings: watched.findings,
    view,
    overview,
    useResolver(r) {
      testResolver = r;
    },
    usePrompter(p) {
      prompter = p;
      return () => {
        prompter = windowPrompter;
      };
    },
  };
}

export function deactivate(): void {}
