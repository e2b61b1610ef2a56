/**
 * The Overview of all organizations: one webview panel (one at a time; opening it again reveals
 * it) with a row per organization of every account and per report-files domain, over the last 7,
 * 30 or 90 UTC days compared with the period before.
 *
 * Requests: one per organization per open, covering the previous period and this one together,
 * through the RecordStore (memory and disk cache, shared requests): what the store holds is shown
 * at once and sends nothing; the rest is fetched with at most `dmarc.overview.concurrency`
 * requests under way (default 4), under one progress notification whose Cancel stops what has
 * not come in (rows already in stay). Each row goes to the webview as soon as its organization is
 * in; one that fails says why in its row, and the others still load. The figures come from the
 * pure overviewRow.ts with the tree's thresholds and the owner's marks.
 */
import * as vscode from 'vscode';
import { ApiError, describeApiError } from '../api';
import type { Account, Organization } from '../accounts/accountStore';
import type { DmarcRecord } from '../api/types';
import { organizationLabel } from '../accounts/accountStore';
import { openOverviewExport } from '../export/openExport';
import { perfMark } from '../perf';
import { lastDaysBucket } from '../records/buckets';
import { rangeLabel } from '../records/dateInput';
import type { RecordStore } from '../records/recordStore';
import type { RecordsPanels } from '../panel/recordsPanels';
import { MessageGate } from '../panel/messageGate';
import { REPORT_FILES_ID, type AccountLookup } from '../reportFiles/reportFiles';
import { overviewMessageSchema, type OverviewDays, type OverviewHostMessage, type OverviewInit, type OverviewMessage, type OverviewProgress, type OverviewRow } from '../shared/overviewProtocol';
import { adviceThresholds, onAdviceThresholdsChange } from '../tree/adviceSettings';
import type { SourceMarks } from '../tree/marks';
import { englishCount } from '../ui/counted';
import { eachBounded } from './bounded';
import { overviewHtml } from './overviewHtml';
import { FiguresMemo } from './figuresMemo';
import { fetchRange, type OverviewPeriod } from './overviewRow';

export const OVERVIEW_VIEW_TYPE = 'dmarc.overview';
export const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 16;

export interface OverviewDeps {
  extensionUri: vscode.Uri;
  /** Accounts with the report files among them, and their keys. */
  lookup: AccountLookup;
  store: RecordStore;
  panels: Pick<RecordsPanels, 'open'>;
  marks: SourceMarks;
  log: vscode.LogOutputChannel;
  now?: () => Date;
}

interface Target {
  account: Account;
  org: Organization;
}

const keyOf = (accountId: string, organizationId: string): string => JSON.stringify([accountId, organizationId]);
/** Lets the event loop run (input, other messages, the next response's bytes) before the next piece of work. */
const nextTask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
type Figures = NonNullable<OverviewRow['figures']>;

/** `dmarc.overview.concurrency`: a whole number from 1 to 16, the default when it is not one. */
export function overviewConcurrency(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(value))) : DEFAULT_CONCURRENCY;
}

export class Overview implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private days: OverviewDays = 30;
  private period: OverviewPeriod = { start: new Date(0), end: new Date(0) };
  private load = 0;
  private abort: AbortController | undefined;
  private readonly targets = new Map<string, Target>();
  private rows = new Map<string, OverviewRow>();
  private loading: Promise<void> = Promise.resolve();
  private changeTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly memo = new FiguresMemo();
  private readonly disposables: vscode.Disposable[] = [];
  private panelDisposables: vscode.Disposable[] = [];
  private gate = new MessageGate((line) => this.deps.log.warn(line.replace('records panel', 'overview')));

  constructor(private readonly deps: OverviewDeps) {
    this.disposables.push(
      onAdviceThresholdsChange(() => this.rejudge()),
      deps.marks.onDidChange((c) => this.rejudge(keyOf(c.accountId, c.organizationId))),
    );
  }

  /** The open panel, if any (tests). */
  get webviewPanel(): vscode.WebviewPanel | undefined {
    return this.panel;
  }

  /** The rows as they stand, in the order of the accounts and their organizations (tests). */
  get currentRows(): OverviewRow[] {
    return [...this.rows.values()];
  }

  /** Resolves when the load under way (if any) has finished, cancelled or not. */
  settled(): Promise<void> {
    return this.loading;
  }

  /** Opens the panel, or reveals it when it is open; resolves when its load has settled. */
  open(): Promise<void> {
    if (this.panel) {
      this.panel.reveal();
      return this.loading;
    }
    const panel = vscode.window.createWebviewPanel(OVERVIEW_VIEW_TYPE, vscode.l10n.t('DMARC Overview'), vscode.ViewColumn.Active, {
      enableScripts: true,
      enableFindWidget: false,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, 'dist')],
    });
    panel.iconPath = {
      light: vscode.Uri.joinPath(this.deps.extensionUri, 'media', 'panel-light.svg'),
      dark: vscode.Uri.joinPath(this.deps.extensionUri, 'media', 'panel-dark.svg'),
    };
    this.panel = panel;
    this.gate = new MessageGate((line) => this.deps.log.warn(line.replace('records panel', 'overview')));
    this.panelDisposables = [
      panel.webview.onDidReceiveMessage((m) => void this.handleMessage(m)),
      panel.onDidDispose(() => {
        this.abort?.abort(new ApiError('cancelled', vscode.l10n.t('Cancelled.')));
        this.panel = undefined;
        for (const d of this.panelDisposables) d.dispose();
        this.panelDisposables = [];
      }),
    ];
    perfMark('overviewOpen');
    const loading = this.start(false);
    panel.webview.html = overviewHtml(panel.webview, this.deps.extensionUri, this.init());
    return loading;
  }

  /**
   * Accounts, organizations, keys or report files changed: an open Overview lists them again
   * (cached rows at once). A moment later, so that what the change drops from the cache (a new
   * key's, right after the accounts say they changed) is gone first; several changes, one load.
   */
  changed(): void {
    if (!this.panel) return;
    clearTimeout(this.changeTimer);
    this.changeTimer = setTimeout(() => {
      if (this.panel) void this.start(false);
    }, 50);
  }

  private post(message: OverviewHostMessage): void {
    void this.panel?.webview.postMessage(message);
  }

  private progress(): OverviewProgress {
    const rows = [...this.rows.values()];
    const n = (s: OverviewRow['state']) => rows.filter((r) => r.state === s).length;
    return { total: rows.length, loaded: n('loaded'), failed: n('error'), cancelled: n('cancelled'), done: n('loading') === 0 };
  }

  private init(): OverviewInit {
    const prev = fetchRange(this.period);
    return {
      type: 'init', load: this.load, days: this.days,
      rangeLabel: `${rangeLabel(this.period.start, this.period.end)} (UTC)`,
      previousLabel: rangeLabel(prev.start, new Date(this.period.start.getTime() - 1)),
      startMs: this.period.start.getTime(),
      rows: [...this.rows.values()],
      progress: this.progress(),
    };
  }

  /**
   * A new load: every organization listed again; those whose two periods the store holds and were
   * judged before show at once, the others held are judged one per task (50 organizations judged
   * at once blocked the extension host for most of a second), and the rest are fetched (all of
   * them past the cache with `refresh`). Supersedes the load under way.
   */
  private start(refresh: boolean): Promise<void> {
    const seq = ++this.load;
    this.abort?.abort(new ApiError('cancelled', vscode.l10n.t('Cancelled.')));
    const controller = (this.abort = new AbortController());
    const now = this.deps.now?.() ?? new Date();
    // The tree's "Last N days" bucket bounds, so the store's cache is shared with it.
    const bucket = lastDaysBucket(this.days, now);
    this.period = { start: bucket.start, end: bucket.end };
    const range = fetchRange(this.period);
    this.targets.clear();
    const rows = new Map<string, OverviewRow>();
    const held: string[] = [];
    const fetch: string[] = [];
    for (const account of this.deps.lookup.list()) {
      for (const org of account.organizations) {
        const key = keyOf(account.id, org.id);
        if (this.targets.has(key)) continue;
        this.targets.set(key, { account, org });
        const base = this.base(key, account, org);
        const records = refresh ? undefined : this.deps.store.peekRecords({ accountId: account.id, organizationId: org.id }, range.start, range.end);
        const known = records && this.figuresOf(records, account.id, org.id, false);
        if (known) rows.set(key, { ...base, state: 'loaded', figures: known });
        else {
          rows.set(key, { ...base, state: 'loading' });
          (records ? held : fetch).push(key);
        }
      }
    }
    this.rows = rows;
    this.post(this.init());
    perfMark('overviewListed', { orgs: rows.size, held: rows.size - fetch.length });
    if (held.length === 0 && fetch.length === 0) {
      perfMark('overviewDone', { orgs: rows.size });
      return (this.loading = Promise.resolve());
    }
    return (this.loading = this.loadRows(seq, held, fetch, range, refresh, controller));
  }

  private async loadRows(seq: number, held: string[], fetch: string[], range: OverviewPeriod, refresh: boolean, controller: AbortController): Promise<void> {
    await Promise.all([this.judgeHeld(seq, held, range, controller.signal), fetch.length ? this.fetchAll(seq, fetch, range, refresh, controller) : undefined]);
    if (seq !== this.load) return;
    // Cancelled: what had not come in says so; the rows already in stay.
    let cancelled = 0;
    for (const [key, row] of this.rows) {
      if (row.state !== 'loading') continue;
      this.rows.set(key, { ...row, state: 'cancelled' });
      cancelled++;
    }
    const p = this.progress();
    this.post({ type: 'progress', load: seq, progress: p });
    if (cancelled) this.post(this.init());
    perfMark('overviewDone', { orgs: p.total });
    this.deps.log.info(`overview of ${englishCount(p.total, 'organization')}: ${p.loaded} loaded, ${p.failed} failed, ${p.cancelled} cancelled`);
  }

  /** The row of an organization that is in, to the webview at once. */
  private setRow(seq: number, key: string, row: OverviewRow): void {
    this.rows.set(key, row);
    perfMark('overviewRow', { state: row.state });
    this.post({ type: 'row', load: seq, row, progress: this.progress() });
  }

  /** Organizations whose periods the store holds: judged one per task, no request. */
  private async judgeHeld(seq: number, keys: string[], range: OverviewPeriod, signal: AbortSignal): Promise<void> {
    for (const key of keys) {
      await nextTask();
      if (seq !== this.load || signal.aborted) return;
      const t = this.targets.get(key);
      const base = this.rows.get(key);
      if (!t || !base) continue;
      const records = this.deps.store.peekRecords({ accountId: t.account.id, organizationId: t.org.id }, range.start, range.end);
      // Left memory meanwhile (another large range came in): fetched like the others.
      const row = records ? this.judged(base, records, t.account.id, t.org.id) : await this.fetchRow(key, range, false, signal);
      if (row && seq === this.load) this.setRow(seq, key, row);
    }
  }

  private async fetchAll(seq: number, pending: string[], range: OverviewPeriod, refresh: boolean, controller: AbortController): Promise<void> {
    const total = pending.length;
    const limit = overviewConcurrency(vscode.workspace.getConfiguration('dmarc').get<number>('overview.concurrency'));
    let done = 0;
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: total === 1 ? vscode.l10n.t('DMARC Overview: fetching 1 organization') : vscode.l10n.t('DMARC Overview: fetching {0} organizations', total),
        cancellable: true,
      },
      async (progress, token) => {
        token.onCancellationRequested(() => controller.abort(new ApiError('cancelled', vscode.l10n.t('Cancelled.'))));
        await eachBounded(pending, limit, controller.signal, async (key) => {
          const row = await this.fetchRow(key, range, refresh, controller.signal);
          if (seq !== this.load || !row) return;
          this.setRow(seq, key, row);
          done++;
          progress.report({ increment: 100 / total, message: vscode.l10n.t('{0} of {1}', done, total) });
        });
      },
    );
  }

  /** One organization's row from the store (which fetches when it must); undefined when this load was superseded. */
  private async fetchRow(key: string, range: OverviewPeriod, refresh: boolean, signal: AbortSignal): Promise<OverviewRow | undefined> {
    const t = this.targets.get(key);
    const base = this.rows.get(key);
    if (!t || !base) return undefined;
    const { account, org } = t;
    const apiKey = await this.deps.lookup.getKey(account.id);
    if (!apiKey) return { ...base, state: 'error', error: vscode.l10n.t('The API key of {0} is missing. Run "Update API Key".', account.label) };
    try {
      const data = await this.deps.store.get({ accountId: account.id, baseUrl: account.baseUrl, apiKey, organizationId: org.id }, range.start, range.end, { signal, refresh });
      // Judged in a task of its own, not in the one that finished reading the response; from the
      // store's shared array when it holds one, so the next open finds the figures memoised.
      await nextTask();
      return this.judged(base, this.deps.store.peekRecords({ accountId: account.id, organizationId: org.id }, range.start, range.end) ?? data.records, account.id, org.id);
    } catch (err) {
      if (signal.aborted) return { ...base, state: 'cancelled' };
      const message = describeApiError(err);
      this.deps.log.warn(`overview: ${org.id} (${account.label}): ${message}`);
      return { ...base, state: 'error', error: message };
    }
  }

  private base(key: string, account: Account, org: Organization): OverviewRow {
    return { key, organizationId: org.id, name: organizationLabel(org), account: account.label, reportFiles: account.id === REPORT_FILES_ID, state: 'loading' };
  }

  private judged(base: OverviewRow, records: readonly DmarcRecord[], accountId: string, organizationId: string): OverviewRow {
    const figures = this.figuresOf(records, accountId, organizationId, true)!;
    const { error: _error, ...rest } = base;
    return { ...rest, state: 'loaded', figures };
  }

  /** The figures of a records array over the period with the tree's thresholds and the organization's marks (memoised). */
  private figuresOf(records: readonly DmarcRecord[], accountId: string, organizationId: string, compute: boolean): Figures | undefined {
    return this.memo.get(records, this.period, { thresholds: adviceThresholds(), marks: this.deps.marks.get(accountId, organizationId), locale: vscode.env.language }, !compute);
  }

  /** The thresholds or an organization's marks changed: loaded rows are judged again from what the store holds, one per task. */
  private rejudge(only?: string): void {
    if (!this.panel) return;
    const seq = this.load;
    const range = fetchRange(this.period);
    void (async () => {
      for (const [key, row] of [...this.rows]) {
        if (row.state !== 'loaded' || (only !== undefined && key !== only)) continue;
        await nextTask();
        const t = this.targets.get(key);
        const held = t && this.deps.store.peekRecords({ accountId: t.account.id, organizationId: t.org.id }, range.start, range.end);
        if (seq !== this.load || !t || !held) continue;
        this.setRow(seq, key, this.judged(this.rows.get(key) ?? row, held, t.account.id, t.org.id));
      }
    })();
  }

  /** Every message from the webview is untrusted: validated, and ignored (logged once per kind) when invalid. */
  async handleMessage(raw: unknown): Promise<void> {
    const refused = this.gate.precheck(raw, 0);
    const parsed = refused === undefined ? overviewMessageSchema.safeParse(raw) : undefined;
    if (!parsed?.success) return this.gate.ignored(raw, parsed?.error.issues ?? refused!);
    const m = parsed.data;
    try {
      await this.dispatch(m);
    } catch (err) {
      const text = String((err as Error)?.message ?? err);
      this.deps.log.error(`overview: ${m.type} failed: ${text}`);
      if ('requestId' in m) this.post({ type: 'response', requestId: m.requestId, ok: false, error: text });
    }
  }

  private async dispatch(m: OverviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        perfMark('overviewReady');
        this.post(this.init());
        return;
      case 'setPeriod':
        if (m.days === this.days) return;
        this.days = m.days;
        await this.start(false);
        return;
      case 'refresh':
        await this.start(true);
        return;
      case 'open': {
        const t = this.targets.get(m.key);
        const account = t && this.deps.lookup.get(t.account.id);
        const org = account?.organizations.find((o) => o.id === t!.org.id);
        if (!account || !org) return;
        this.deps.panels.open({ account, org, start: this.period.start, end: this.period.end });
        return;
      }
      case 'export': {
        const rows = m.order.map((k) => this.rows.get(k)).filter((r): r is OverviewRow => r !== undefined);
        if (rows.length === 0) throw new Error(vscode.l10n.t('No organizations to export.'));
        const prev = fetchRange(this.period).start;
        const period = { start: this.period.start.toISOString(), end: this.period.end.toISOString(), previousStart: prev.toISOString(), previousEnd: new Date(this.period.start.getTime() - 1).toISOString() };
        const title = vscode.l10n.t('DMARC overview, last {0} days: {1}', this.days, rangeLabel(this.period.start, this.period.end));
        await openOverviewExport(title, period, rows, m.format, `dmarc-overview-${this.days}d`);
        this.deps.log.info(`exported the overview of ${englishCount(rows.length, 'organization')} as ${m.format.toUpperCase()}`);
        this.post({ type: 'response', requestId: m.requestId, ok: true, result: { count: rows.length } });
        return;
      }
    }
  }

  dispose(): void {
    clearTimeout(this.changeTimer);
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
