/**
 * What the watch remembers between runs and sessions (globalState): the findings it raised, each
 * active while its condition lasts, seen once opened, muted for good when the user says so; and
 * the organizations whose last check failed. Bounded: at most MAX_FINDINGS findings (the oldest
 * inactive ones go first) and MAX_MUTED muted ids. What is read back is validated (zod): a
 * damaged state is dropped, never trusted. No `vscode`: the memento is an interface.
 */
import * as z from 'zod';
import { FINDING_KINDS, findingId, type Finding } from '../advice/findings';

export const MAX_FINDINGS = 200;
export const MAX_MUTED = 500;
export const WATCH_STATE_KEY = 'dmarc.watch.state';

export interface StoredFinding extends Finding {
  id: string;
  accountId: string;
  orgId: string;
  /** The organization's name as shown when found. */
  orgLabel: string;
  /** The days the run looked at (baseline start … end), for opening its rows. */
  windowStart: number;
  firstSeen: number;
  lastSeen: number;
  active: boolean;
  seen: boolean;
}

export interface WatchFailure {
  accountId: string;
  orgId: string;
  orgLabel: string;
  message: string;
  at: number;
}

export interface WatchState {
  findings: StoredFinding[];
  muted: string[];
  failures: WatchFailure[];
  lastRun?: number;
}

export interface Memento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

const num = z.number().finite();
const str = z.string().max(2000);
const stored = z.object({
  kind: z.enum(FINDING_KINDS as [string, ...string[]]), subject: str, emails: num, before: num, passNow: num.optional(), passBefore: num.optional(), start: num, end: num,
  id: str, accountId: str, orgId: str, orgLabel: str, windowStart: num, firstSeen: num, lastSeen: num, active: z.boolean(), seen: z.boolean(),
});
const schema = z.object({
  findings: z.array(stored).max(MAX_FINDINGS * 2),
  muted: z.array(str).max(MAX_MUTED * 2),
  failures: z.array(z.object({ accountId: str, orgId: str, orgLabel: str, message: str, at: num })).max(1000),
  lastRun: num.optional(),
});

const empty = (): WatchState => ({ findings: [], muted: [], failures: [] });

export class FindingStore {
  private state: WatchState;

  constructor(private readonly memento: Memento) {
    const parsed = schema.safeParse(memento.get(WATCH_STATE_KEY));
    this.state = parsed.success ? (parsed.data as WatchState) : empty();
  }

  get lastRun(): number | undefined {
    return this.state.lastRun;
  }

  /**
   * One organization's findings from a run at `at`: those it no longer has become inactive; a
   * finding not active before (and not muted) is returned as newly raised, to be notified once.
   */
  record(accountId: string, orgId: string, orgLabel: string, findings: readonly Finding[], windowStart: number, at: number): StoredFinding[] {
    const raised: StoredFinding[] = [];
    const muted = new Set(this.state.muted);
    const byId = new Map(this.state.findings.filter((f) => f.accountId === accountId && f.orgId === orgId).map((f) => [f.id, f]));
    const now = new Set<string>();
    for (const f of findings) {
      const id = findingId(accountId, orgId, f);
      now.add(id);
      const old = byId.get(id);
      if (old) {
        const wasActive = old.active;
        Object.assign(old, f, { orgLabel, windowStart, lastSeen: at, active: true });
        if (!wasActive) {
          old.seen = false;
          old.firstSeen = at;
          if (!muted.has(id)) raised.push(old);
        }
        continue;
      }
      const s: StoredFinding = { ...f, id, accountId, orgId, orgLabel, windowStart, firstSeen: at, lastSeen: at, active: true, seen: false };
      this.state.findings.push(s);
      if (!muted.has(id)) raised.push(s);
    }
    for (const f of byId.values()) if (!now.has(f.id)) f.active = false;
    this.state.failures = this.state.failures.filter((x) => !(x.accountId === accountId && x.orgId === orgId));
    this.trim();
    return raised;
  }

  /** A check that failed: one entry per organization, replaced by the next run's outcome. */
  fail(accountId: string, orgId: string, orgLabel: string, message: string, at: number): void {
    this.state.failures = this.state.failures.filter((x) => !(x.accountId === accountId && x.orgId === orgId));
    this.state.failures.push({ accountId, orgId, orgLabel, message, at });
  }

  finishRun(at: number): Promise<void> {
    this.state.lastRun = at;
    return this.save();
  }

  /** The findings to show: active and not muted, unseen first, then newest. */
  active(): StoredFinding[] {
    const muted = new Set(this.state.muted);
    return this.state.findings.filter((f) => f.active && !muted.has(f.id)).sort((a, b) => Number(a.seen) - Number(b.seen) || b.firstSeen - a.firstSeen);
  }

  failures(): readonly WatchFailure[] {
    return this.state.failures;
  }

  /** Active, not muted, not yet opened: the badge's count. */
  unseenCount(): number {
    return this.active().filter((f) => !f.seen).length;
  }

  get(id: string): StoredFinding | undefined {
    return this.state.findings.find((f) => f.id === id);
  }

  markSeen(id: string): Promise<void> {
    const f = this.get(id);
    if (!f || f.seen) return Promise.resolve();
    f.seen = true;
    return this.save();
  }

  isMuted(id: string): boolean {
    return this.state.muted.includes(id);
  }

  mute(id: string): Promise<void> {
    if (!this.state.muted.includes(id)) this.state.muted.push(id);
    if (this.state.muted.length > MAX_MUTED) this.state.muted.splice(0, this.state.muted.length - MAX_MUTED);
    return this.save();
  }

  /** Forget an account's (or one organization's) findings and failures: it was removed. */
  forget(accountId: string, orgId?: string): Promise<void> {
    const keep = (x: { accountId: string; orgId: string }) => !(x.accountId === accountId && (orgId === undefined || x.orgId === orgId));
    this.state.findings = this.state.findings.filter(keep);
    this.state.failures = this.state.failures.filter(keep);
    return this.save();
  }

  private trim(): void {
    const f = this.state.findings;
    if (f.length <= MAX_FINDINGS) return;
    // Oldest inactive first, then oldest active.
    f.sort((a, b) => Number(b.active) - Number(a.active) || b.lastSeen - a.lastSeen);
    f.length = MAX_FINDINGS;
  }

  save(): Promise<void> {
    return Promise.resolve(this.memento.update(WATCH_STATE_KEY, this.state));
  }
}
