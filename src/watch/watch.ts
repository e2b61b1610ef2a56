/**
 * The watch: opt in (`dmarc.watch.enabled`, off by default: then it sends nothing), every
 * `dmarc.watch.intervalHours` it fetches each organization's last full day and the weeks before in
 * ONE request per organization (through the record store, refreshed), at most WATCH_CONCURRENCY
 * at a time, judges them (src/advice/findings.ts) and remembers what it found (findingStore.ts).
 * A run that comes due while the window is not focused waits until it is. Each newly raised
 * finding gets one quiet notification with Show and Mute this; a failed check is one log line and
 * one tree item, never a pop-up, and the next run tries again.
 */
import * as vscode from 'vscode';
import { organizationLabel, type Account, type AccountStore, type Organization } from '../accounts/accountStore';
import { describeApiError } from '../api';
import { englishCount } from '../ui/counted';
import { DEFAULT_WATCH, findingsOf, watchWindow, type WatchThresholds } from '../advice/findings';
import type { RecordStore } from '../records/recordStore';
import type { Prompter } from '../ui/prompter';
import type { FindingStore, StoredFinding } from './findingStore';
import { findingText } from './findingText';

export const WATCH_CONCURRENCY = 2;
const HOUR_MS = 3_600_000;
/** How soon after activation (or turning the watch on) the first run comes, when one is due. */
const FIRST_RUN_DELAY_MS = 20_000;
/** At most this many notifications per run; the rest are in Needs Attention. */
const MAX_NOTIFICATIONS = 3;

export function watchSettings(): { enabled: boolean; intervalMs: number; thresholds: WatchThresholds } {
  const c = vscode.workspace.getConfiguration('dmarc.watch');
  const n = (key: string, def: number, min: number, max = Infinity): number => {
    const v = c.get<number>(key, def);
    return Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : def;
  };
  return {
    enabled: c.get<boolean>('enabled', false) === true,
    intervalMs: n('intervalHours', 6, 1, 168) * HOUR_MS,
    thresholds: {
      ...DEFAULT_WATCH,
      minEmails: n('minEmails', DEFAULT_WATCH.minEmails, 1),
      dropPoints: n('passDropPoints', DEFAULT_WATCH.dropPoints, 0, 100),
      spikeFactor: n('spikeFactor', DEFAULT_WATCH.spikeFactor, 1),
      silentDays: Math.floor(n('silentDays', DEFAULT_WATCH.silentDays, 1, 30)),
      baselineDays: Math.floor(n('baselineDays', DEFAULT_WATCH.baselineDays, 1, 90)),
    },
  };
}

export interface WatchDeps {
  accounts: AccountStore;
  store: RecordStore;
  findings: FindingStore;
  log: vscode.LogOutputChannel;
  prompter: () => Prompter;
  /** Findings or failures changed: re-render the badge and the tree. */
  changed: () => void;
  /** Show a finding's rows (Show on its notification, its tree item). */
  show: (f: StoredFinding) => void;
  now?: () => number;
}

export interface RunOutcome {
  checked: number;
  failed: number;
  raised: StoredFinding[];
}

export class Watch implements vscode.Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<RunOutcome> | undefined;
  /** A run came due while the window was not focused: it runs when focus returns. */
  private due = false;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly now: () => number;

  constructor(private readonly deps: WatchDeps) {
    this.now = deps.now ?? Date.now;
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('dmarc.watch')) this.schedule();
      }),
      vscode.window.onDidChangeWindowState((s) => this.focusChanged(s.focused)),
    );
    this.schedule();
  }

  /** Whether the window has focus (replaceable in tests, where the window may never get it). */
  isFocused: () => boolean = () => vscode.window.state.focused;

  /** The window gained or lost focus: a run that came due meanwhile runs now. */
  focusChanged(focused: boolean): void {
    if (focused && this.due) void this.tick();
  }

  /** Plans the next run from the last one (or soon, when none ran); nothing when the watch is off. */
  schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const s = watchSettings();
    if (!s.enabled) {
      this.due = false;
      return;
    }
    const last = this.deps.findings.lastRun;
    const wait = last === undefined ? FIRST_RUN_DELAY_MS : Math.max(FIRST_RUN_DELAY_MS, last + s.intervalMs - this.now());
    this.timer = setTimeout(() => void this.tick(), Math.min(wait, 2 ** 31 - 1));
  }

  /** What the timer does: a run when the watch is on and the window focused; otherwise nothing is sent. */
  async tick(): Promise<RunOutcome | undefined> {
    if (!watchSettings().enabled) return undefined;
    if (!this.isFocused()) {
      this.due = true;
      return undefined;
    }
    this.due = false;
    try {
      return await this.run();
    } finally {
      this.schedule();
    }
  }

  /** One run over every organization of every account now (also the Check Now command). */
  run(): Promise<RunOutcome> {
    this.running ??= this.runOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async runOnce(): Promise<RunOutcome> {
    const { thresholds } = watchSettings();
    const at = this.now();
    const w = watchWindow(at, thresholds);
    const jobs: [Account, Organization][] = [];
    for (const a of this.deps.accounts.list()) for (const o of a.organizations) jobs.push([a, o]);
    const out: RunOutcome = { checked: 0, failed: 0, raised: [] };
    const failures: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < jobs.length) {
        const [account, org] = jobs[next++]!;
        const label = organizationLabel(org);
        const failed = (message: string): void => {
          failures.push(`${label} (${account.label}): ${message}`);
          this.deps.findings.fail(account.id, org.id, label, message, at);
          out.failed++;
        };
        const apiKey = await this.deps.accounts.getKey(account.id);
        if (!apiKey) {
          failed(vscode.l10n.t('The API key of {0} is missing.', account.label));
          continue;
        }
        try {
          const data = await this.deps.store.get({ accountId: account.id, baseUrl: account.baseUrl, apiKey, organizationId: org.id }, new Date(w.baselineStart), new Date(w.end), { refresh: true });
          const found = findingsOf(data.records, w, thresholds);
          out.raised.push(...this.deps.findings.record(account.id, org.id, label, found, w.baselineStart, at));
          out.checked++;
        } catch (err) {
          failed(describeApiError(err));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(WATCH_CONCURRENCY, jobs.length) }, worker));
    await this.deps.findings.finishRun(at);
    // A failed check is one line for the whole run, never a pop-up; the next run tries again.
    if (failures.length) this.say('warn', `watch: ${englishCount(failures.length, 'organization')} not checked: ${failures.join('; ')}`);
    this.say('info', `watch: ${englishCount(out.checked, 'organization')} checked, ${out.failed} failed, ${englishCount(out.raised.length, 'new finding')}`);
    this.deps.changed();
    this.notify(out.raised);
    return out;
  }

  /** The watch's last log lines (at most 50), as written to the log. */
  readonly logged: string[] = [];

  private say(level: 'info' | 'warn', line: string): void {
    this.deps.log[level](line);
    this.logged.push(line);
    if (this.logged.length > 50) this.logged.shift();
  }

  /** One quiet notification per newly raised finding (a few at most per run), with Show and Mute this. */
  private notify(raised: readonly StoredFinding[]): void {
    const show = vscode.l10n.t('Show');
    const mute = vscode.l10n.t('Mute this');
    for (const f of raised.slice(0, MAX_NOTIFICATIONS)) {
      const { title } = findingText(f);
      void this.deps.prompter().notify('info', vscode.l10n.t('DMARC watch: {0}', title), show, mute).then(async (choice) => {
        if (choice === show) this.deps.show(f);
        else if (choice === mute) {
          await this.deps.findings.mute(f.id);
          this.deps.changed();
        }
      });
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
