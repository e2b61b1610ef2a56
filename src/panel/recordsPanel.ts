import * as vscode from 'vscode';
import type { AccountLookup } from '../reportFiles/reportFiles';
import { ApiError, describeApiError, rawOf } from '../api';
import type { DmarcRecord, FetchResult } from '../api/types';
import type { RecordScope, RecordStore } from '../records/recordStore';
import { rangeLabel } from '../records/dateInput';
import {
  columnLayoutSchema, webviewMessageSchema,
  type ColumnLayout, type HostMessage, type PanelIdentity, type RowDetail, type ViewState, type WebviewMessage,
} from '../shared/protocol';
import { publishedOf } from '../advice/health';
import { markPairs, type SourceMark } from '../advice/marks';
import type { SourceMarks } from '../tree/marks';
import { adviceThresholds, onAdviceThresholdsChange } from '../tree/adviceSettings';
import { behind, exportPlace, openAdviceExport, openExport, openGroupsExport } from '../export/openExport';
import { Commands } from '../commands';
import { perfMark } from '../perf';
import { RowSender } from './rowSender';
import { PreviousRows } from './previousRows';
import { MessageGate } from './messageGate';
import { PanelStatus } from './panelStatus';
import { escapeHtml, panelHtml } from './panelHtml';
import { identityOf, type PanelTarget } from './panelIdentity';
import { wakeSignal, type Busy } from '../shared/busy';
import { rowsWithin } from '../records/rangeEntries';
import { englishCount } from '../ui/counted';

export type { PanelTarget } from './panelIdentity';

export const PANEL_VIEW_TYPE = 'dmarc.records';

export interface PanelDeps {
  extensionUri: vscode.Uri;
  /** Accounts (the report files one included) and their keys. */
  accounts: Pick<AccountLookup, 'get' | 'getKey' | 'ready'>;
  store: RecordStore;
  log: vscode.LogOutputChannel;
  /** Where the user's column layout is kept (globalState): one layout for every panel. */
  memento?: vscode.Memento;
  /** Marked busy while a panel loads and sends its rows (the disk cache waits: src/shared/busy.ts). */
  busy?: Busy;
  /** The owner's marks on sources: the panel's organization's go with init and again when one changes. */
  marks?: SourceMarks;
}

const LAYOUT_KEY = 'dmarc.panel.columnLayout';

/** One records panel: loads its range through the record store and serves its webview. */
export class RecordsPanel implements vscode.Disposable {
  private readonly sender: RowSender;
  /** Compare: the previous period's rows, fetched when the page's switch is on (previousRows.ts). */
  readonly previous: PreviousRows;
  /** The webview's script has said ready once (messages reach it); before, only rows are posted. */
  private ready = false;
  /** The load's state, notices and stated policy: posted again after init on every ready (panelStatus.ts). */
  private readonly status = new PanelStatus();
  /** Answers and commands posted before the webview was first ready: posted once when it is. */
  private held: HostMessage[] = [];
  /** The load under way or done last. */
  private loading: Promise<void> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private loadSeq = 0;
  /** Aborts this panel's wait for its records (a new load, or the panel closed). */
  private loadAbort: AbortController | undefined;
  private disposed = false;
  /** Count of selected rows, as the webview last reported it. */
  selectionCount = 0;
  private readonly gate = new MessageGate((line) => this.deps.log.warn(line));

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly target: PanelTarget,
    private readonly deps: PanelDeps,
    private readonly savedView: ViewState | undefined,
  ) {
    perfMark('panelCreated');
    // A tab icon per theme kind: a currentColor SVG renders black on a dark tab bar.
    panel.iconPath = {
      light: vscode.Uri.joinPath(deps.extensionUri, 'media', 'panel-light.svg'),
      dark: vscode.Uri.joinPath(deps.extensionUri, 'media', 'panel-dark.svg'),
    };
    // Rows are posted as they come, before the webview is ready: VS Code holds them for it.
    this.sender = new RowSender((m) => this.post(m), () => !this.disposed);
    this.sender.onFirstPosted = () => perfMark('firstChunkPosted');
    const scope = async (): Promise<RecordScope | string> => {
      const apiKey = await deps.accounts.getKey(target.account.id);
      return apiKey ? { accountId: target.account.id, baseUrl: target.account.baseUrl, apiKey, organizationId: target.org.id } : vscode.l10n.t('The API key of {0} is missing.', target.account.label);
    };
    this.previous = new PreviousRows((m) => this.post(m), () => !this.disposed, deps.store, scope, target, (line) => deps.log.warn(line), deps.busy);
    panel.webview.html = this.html();
    this.disposables.push(panel.webview.onDidReceiveMessage((m) => void this.handleMessage(m)));
    this.disposables.push(onAdviceThresholdsChange((thresholds) => void this.post({ type: 'advice', thresholds })));
    if (deps.marks)
      this.disposables.push(deps.marks.onDidChange((c) => {
        if (c.accountId === target.account.id && c.organizationId === target.org.id) void this.post({ type: 'advice', marks: this.marks() });
      }));
    // Fetch while the webview starts (its script takes 0.5–1.5 s here): rows wait in the sender.
    void this.load(false);
  }

  get identity(): PanelIdentity {
    return identityOf(this.target);
  }

  /** The records shown, in the order sent to the webview (row index = array index). */
  get rows(): readonly DmarcRecord[] {
    return this.sender.records;
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Asks the webview to act on its selection (palette commands). */
  command(command: 'exportJson' | 'exportCsv' | 'copyJson' | 'selectAll'): void {
    void this.post({ type: 'command', command });
  }

  private post(message: HostMessage): Thenable<boolean> {
    if (this.disposed) return Promise.resolve(false);
    const isStatus = this.status.note(message);
    // Until its script said ready, the webview may miss messages: the status goes after init
    // (rows go out at once: the webview asks again for any it missed). A marks or thresholds
    // message may go: init carries both as they are then.
    if (!this.ready && message.type !== 'rows') {
      if (!isStatus && message.type !== 'advice') this.held.push(message);
      return Promise.resolve(true);
    }
    return this.send(message);
  }

  /** Posts as it is: a message told again, already noted. */
  private send(message: HostMessage): Thenable<boolean> {
    return this.disposed ? Promise.resolve(false) : this.panel.webview.postMessage(message);
  }

  /** Every message from the webview is untrusted: validated, and ignored (logged) when invalid. */
  async handleMessage(raw: unknown): Promise<void> {
    const refused = this.gate.precheck(raw, this.rows.length);
    const parsed = refused === undefined ? webviewMessageSchema.safeParse(raw) : undefined;
    if (!parsed?.success) return this.gate.ignored(raw, parsed?.error.issues ?? refused!);
    const m = parsed.data;
    try {
      await this.dispatch(m);
    } catch (err) {
      this.deps.log.error(`records panel: ${m.type} failed: ${(err as Error)?.message ?? err}`);
      if ('requestId' in m) void this.post({ type: 'response', requestId: m.requestId, ok: false, error: String((err as Error)?.message ?? err) });
    }
  }

  private async dispatch(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        perfMark('panelReady');
        // Ready first, so that init goes out at once and the status follows it. A page says ready
        // again when VS Code rebuilt it (a hidden tab brought forward): it knows nothing but
        // its own HTML then, and what was posted while it was hidden was dropped.
        this.ready = true;
        void this.post({ ...this.init(), rows: this.sender.syncPoint() });
        for (const m of [...this.status.messages(), ...this.held.splice(0)]) void this.send(m);
        await (this.loading ?? this.load(false));
        return;
      case 'resend':
        if (this.sender.resendFrom(m.load, m.from)) void this.partialErrorAfterRows(m.load);
        return;
      case 'rowsBehind':
        this.sender.pageBehind(m.behind);
        return;
      case 'retry':
        await this.load(true);
        return;
      case 'compare':
        return this.previous.show();
      case 'compareResend':
        return this.previous.resendFrom(m.load, m.from);
      case 'fetchRange':
        await vscode.commands.executeCommand(Commands.fetchRange, { accountId: this.target.account.id, organizationId: this.target.org.id });
        return;
      case 'updateKey':
        if (this.target.account.baseUrl === 'file:') return; // report files have no key
        await vscode.commands.executeCommand(Commands.updateApiKey, { kind: 'account', account: this.target.account });
        await this.load(true);
        return;
      case 'getRow': {
        const r = this.rows[m.index];
        if (!r) throw new Error(vscode.l10n.t('Row {0} does not exist.', m.index));
        const result: RowDetail = { index: m.index, json: JSON.stringify(rawOf(r), null, 2), dkims: r.dkims.map((d) => ({ ...d })) };
        void this.post({ type: 'response', requestId: m.requestId, ok: true, result });
        return;
      }
      case 'copyRow': {
        const r = this.rows[m.index];
        if (!r) throw new Error(vscode.l10n.t('Row {0} does not exist.', m.index));
        await vscode.env.clipboard.writeText(JSON.stringify(rawOf(r), null, 2));
        void this.post({ type: 'response', requestId: m.requestId, ok: true, result: null });
        return;
      }
      case 'export': {
        const rows = m.indices.map((i) => this.rows[i]).filter((r): r is DmarcRecord => r !== undefined);
        if (rows.length !== m.indices.length) throw new Error(vscode.l10n.t('Some rows to export do not exist.'));
        if (rows.length === 0) throw new Error(vscode.l10n.t('No rows to export: select rows first.'));
        const outcome = await openExport(rows, m.format, `dmarc-${this.target.org.name ?? this.target.org.id}`, { place: exportPlace(m.pageWidth, this.panel.viewColumn) });
        if (outcome.kind === 'cancelled') {
          this.deps.log.info(`export of ${englishCount(rows.length, `${m.what} row`)} as ${m.format.toUpperCase()} cancelled`);
          void this.post({ type: 'response', requestId: m.requestId, ok: false, error: vscode.l10n.t('The export was cancelled.') });
          return;
        }
        this.deps.log.info(`exported ${englishCount(rows.length, `${m.what} row`)} as ${m.format.toUpperCase()}${outcome.kind === 'file' ? ' to a file' : ''}`);
        void this.post({ type: 'response', requestId: m.requestId, ok: true, result: { count: rows.length, ...behind(outcome.kind === 'tab' ? outcome : undefined) } });
        return;
      }
      case 'selectionChanged':
        this.selectionCount = m.count;
        return;
      case 'saveState': // the webview persists its own state (setState): nothing to keep here
        return;
      case 'saveLayout':
        await this.deps.memento?.update(LAYOUT_KEY, m.layout);
        return;
      case 'exportGroups': {
        if (m.rows.length === 0) throw new Error(vscode.l10n.t('No groups to export.'));
        const shown = await openGroupsExport(m.title, m.rows, m.format, `dmarc-${this.target.org.name ?? this.target.org.id}-groups`, exportPlace(m.pageWidth, this.panel.viewColumn));
        this.deps.log.info(`exported ${englishCount(m.rows.length, 'group')} as ${m.format.toUpperCase()}`);
        void this.post({ type: 'response', requestId: m.requestId, ok: true, result: { count: m.rows.length, ...behind(shown) } });
        return;
      }
      case 'exportAdvice': {
        if (m.rows.length === 0) throw new Error(vscode.l10n.t('No sources to export: every source is Compliant.'));
        const shown = await openAdviceExport(m.title, m.rows, m.format, `dmarc-${this.target.org.name ?? this.target.org.id}-advice`, exportPlace(m.pageWidth, this.panel.viewColumn));
        this.deps.log.info(`exported the advice on ${englishCount(m.rows.length, 'source')} as ${m.format.toUpperCase()}`);
        void this.post({ type: 'response', requestId: m.requestId, ok: true, result: { count: m.rows.length, ...behind(shown) } });
        return;
      }
      case 'copyText':
        await vscode.env.clipboard.writeText(m.text);
        void this.post({ type: 'response', requestId: m.requestId, ok: true, result: null });
        return;
    }
  }

  /**
   * Fetches (or reads from the cache) the rows and sends them to the webview in chunks: from the
   * network, each chunk as soon as its rows arrived, while the rest of the body is on its way.
   */
  load(refresh: boolean, extraNotices: readonly string[] = []): Promise<void> {
    const busy = this.deps.busy?.begin();
    // The store sorts and keeps a streamed range only once this load has sent its rows (onComplete).
    const handedOn = wakeSignal();
    const loading = this.loadRows(refresh, extraNotices, handedOn.promise);
    // A refresh (Retry, a new key) fetches the previous period again too, once the switch was on.
    if (refresh && this.previous.wanted) void loading.then(() => this.previous.show(true));
    const done = (): void => (busy?.(), handedOn.resolve());
    loading.then(done, done);
    return (this.loading = loading);
  }

  private async loadRows(refresh: boolean, extraNotices: readonly string[], handedOn: Promise<void>): Promise<void> {
    const seq = ++this.loadSeq;
    this.loadAbort?.abort();
    const abort = (this.loadAbort = new AbortController());
    const { account, org, start, end, source } = this.target;
    const sender = this.sender;
    sender.reset();
    void this.post({ type: 'loading', message: vscode.l10n.t('Fetching records for {0}…', rangeLabel(start, end)), load: sender.load });
    const apiKey = await this.deps.accounts.getKey(account.id);
    if (!apiKey) {
      void this.post({ type: 'error', message: vscode.l10n.t('The API key of {0} is missing.', account.label), canRetry: true, canUpdateKey: true });
      return;
    }
    const s = start.getTime();
    const e = end.getTime();
    let streamed = false;
    let arrived = 0; // rows the network gave so far, before this panel's filter
    // Rows from the network as they arrive (in the order sent; the store's sorted copy comes at
    // the end). What it returns holds the download while the webview is far behind (RowSender.room).
    const onRows = (records: DmarcRecord[], offset: number): Promise<void> | undefined => {
      if (seq !== this.loadSeq) return undefined;
      if (offset === 0 && streamed) sender.reset(); // a retry started over
      if (offset === 0) arrived = 0;
      arrived += records.length;
      if (!streamed) perfMark('panelFirstRows', { rows: records.length });
      streamed = true;
      sender.add(records.filter((r) => r.dateMs >= s && r.dateMs <= e && (source === undefined || r.source === source)));
      return sender.room();
    };
    const notices: string[] = [...extraNotices];
    let records: DmarcRecord[];
    try {
      // The whole body is in (`onComplete`) before the store has sorted and kept it: the streamed
      // rows can be declared complete then, a second or more sooner for a million rows.
      let completed: ((r: FetchResult) => void) | undefined;
      const bodyDone = new Promise<FetchResult>((resolve) => (completed = resolve));
      const got = vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('DMARC: fetching records') }, () =>
        // With a signal: when this panel closes, a request nobody else waits for is stopped.
        this.deps.store.get({ accountId: account.id, baseUrl: account.baseUrl, apiKey, organizationId: org.id }, start, end, { refresh, signal: abort.signal, onRows, onComplete: (r) => (completed?.(r), handedOn) }),
      );
      const first = await Promise.race([got.then((view) => ({ data: view, whole: false })), bodyDone.then((result) => ({ data: result, whole: true }))]);
      got.then(undefined, () => undefined); // after the body is in, the store's own failure is not this panel's
      const { data } = first;
      if (first.whole && streamed && data.records.length === arrived) {
        // The body's rows are the rows streamed, which the sender holds filtered already: a
        // million rows filtered again here blocked the extension host for a quarter of a second.
        records = sender.records as DmarcRecord[];
      } else {
        // The fetch's result covers the flight's range, which may be wider than this panel's.
        // The store's view is inside the range and sorted; the body's rows are in server order.
        records = first.whole ? data.records.filter((r) => r.dateMs >= s && r.dateMs <= e && (source === undefined || r.source === source)) : await rowsWithin(data.records, s, e, source);
      }
      const samples = data.rejected.samples.map((x) => `#${x.index} ${x.reason}`).join('; ');
      if (data.rejected.count === 1) notices.push(vscode.l10n.t('1 malformed row in the response was left out: {0}', samples));
      else if (data.rejected.count) notices.push(vscode.l10n.t('{0} malformed rows in the response were left out. First: {1}', data.rejected.count, samples));
      for (const w of data.warnings) notices.push(w.message);
    } catch (err) {
      if (seq !== this.loadSeq) return;
      const ae = err instanceof ApiError ? err : undefined;
      const message = describeApiError(err);
      this.deps.log.warn(`records panel ${this.panel.title}: ${ae?.kind ?? 'error'}: ${message}`);
      const partial = streamed && ae?.kind !== 'cancelled' ? sender.records.length : 0;
      if (partial > 0) await sender.finish(); // the rows that arrived stay, marked incomplete
      if (seq !== this.loadSeq) return;
      void this.post({ type: 'error', message, canRetry: true, canUpdateKey: ae?.kind === 'forbidden', ...(partial ? { partial } : {}) });
      return;
    }
    if (seq !== this.loadSeq) return;
    perfMark('panelGotRecords', { rows: records.length });
    if (notices.length) void this.post({ type: 'notices', notices });
    // Streamed rows are the same rows in the order they came; a cache hit sends the store's.
    const same = streamed && sender.records.length === records.length;
    if (streamed && !same) this.deps.log.warn(`records panel: ${sender.records.length} rows streamed, ${records.length} in the result; sending the result`);
    await sender.finish(same ? undefined : records);
    if (seq !== this.loadSeq) return;
    this.status.loaded();
    perfMark('rowsSent', { rows: records.length });
    // Report files state the policy they were judged by; API rows state none (no pass over them).
    if (account.baseUrl !== 'file:') void this.post({ type: 'advice', published: { fromReports: false } });
    else {
      const p = publishedOf(records);
      void this.post({ type: 'advice', published: { fromReports: true, ...(p.latest ? { latest: p.latest } : {}), byDomain: [...p.byDomain] } });
    }
  }

  /**
   * A load that failed part-way keeps its rows in the page with a note only when the page has
   * them: a rebuilt page asks for them again after init (and the error that followed it), so the
   * error goes once more after the rows.
   */
  private async partialErrorAfterRows(load: number): Promise<void> {
    const error = this.status.partialError();
    if (!error || this.sender.load !== load) return;
    await this.sender.finish(); // complete already: resolves once the rows asked for are posted
    if (this.sender.load === load && this.status.partialError() === error) void this.send(error);
  }

  /**
   * What the webview starts with: in its page (so it shows rows as soon as they come, which is
   * before it says ready) and again in `init`, with how many rows went out before it.
   */
  private init(): Extract<HostMessage, { type: 'init' }> {
    const layout = this.layout();
    return {
      type: 'init',
      title: this.panel.title,
      rangeLabel: `${rangeLabel(this.target.start, this.target.end)} (UTC)`,
      identity: this.identity,
      ...(this.savedView ? { state: this.savedView } : {}),
      ...(this.target.initialSearch !== undefined ? { initialSearch: this.target.initialSearch } : {}),
      ...(this.target.initialClasses?.length ? { initialClasses: [...this.target.initialClasses] } : {}),
      ...(layout ? { layout } : {}),
      thresholds: adviceThresholds(),
      marks: this.marks(),
    };
  }

  /** The owner's marks on the sources of the panel's organization, as sent. */
  private marks(): [string, SourceMark][] {
    return this.deps.marks ? markPairs(this.deps.marks.get(this.target.account.id, this.target.org.id)) : [];
  }

  /** The user's column layout, if one was saved and is still valid. */
  private layout(): ColumnLayout | undefined {
    const parsed = columnLayoutSchema.safeParse(this.deps.memento?.get(LAYOUT_KEY));
    return parsed.success ? parsed.data : undefined;
  }

  /** The page, with a loading state in the HTML itself so the panel is never blank before its script runs. */
  private html(): string {
    return panelHtml(this.panel.webview, this.deps.extensionUri, vscode.l10n.t('Fetching records for {0}…', rangeLabel(this.target.start, this.target.end)), this.init());
  }

  dispose(): void {
    this.disposed = true;
    this.loadSeq++;
    this.loadAbort?.abort();
    this.previous.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

export { escapeHtml };
