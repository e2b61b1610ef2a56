/**
 * Where the owner's marks on sources (src/advice/marks.ts) are kept: VS Code's globalState, per
 * organization (account id + organization id), at most MAX_MARKS each. What globalState holds is
 * read as untrusted (another version, a hand edit, a bad sync): anything not well formed is left
 * out, never thrown on; the next write keeps only what was read.
 *
 * An organization's marks keep their identity (the same Map) until they change, so what is
 * memoised per records array and marks (healthMemo.ts) stays valid across re-renders.
 */
import * as vscode from 'vscode';
import { MAX_MARKS, markable, markPairs, marksFrom, NO_MARKS, sameMarks, type Marks, type SourceMark } from '../advice/marks';

export const MARKS_KEY = 'dmarc.sourceMarks';
/** At most this many organizations' marks are read: junk cannot make reading them slow. */
const MAX_ORGS = 10_000;

/** Whose marks changed. */
export interface MarksChange {
  accountId: string;
  organizationId: string;
}

/** What setting a mark did: `full` when the organization has MAX_MARKS already, `invalid` for a source that cannot be marked. */
export type MarkOutcome = 'set' | 'unchanged' | 'full' | 'invalid';

/** The key of an organization's marks in the stored object. */
export const marksOrgKey = (accountId: string, organizationId: string): string => JSON.stringify([accountId, organizationId]);

export class SourceMarks implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<MarksChange>();
  /** Fires after an organization's marks changed (set or cleared here). */
  readonly onDidChange = this.changed.event;
  /** The stored value last read, and what it gave per organization. */
  private raw: unknown;
  private read = false;
  private parsed = new Map<string, Marks>();
  /** Writes one after another: each reads what the one before wrote. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly memento: vscode.Memento) {}

  /** Every organization's marks, read again only when the stored value is another one. */
  private all(): Map<string, Marks> {
    let raw: unknown;
    try {
      raw = this.memento.get<unknown>(MARKS_KEY);
    } catch {
      raw = undefined;
    }
    if (this.read && raw === this.raw) return this.parsed;
    const next = new Map<string, Marks>();
    try {
      if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
        let k = 0;
        for (const key of Object.keys(raw)) {
          if (k++ >= MAX_ORGS) break;
          const marks = marksFrom((raw as Record<string, unknown>)[key]);
          if (!marks.size) continue;
          const was = this.parsed.get(key);
          next.set(key, was && sameMarks(was, marks) ? was : marks);
        }
      }
    } catch {
      // A value that cannot be walked reads as no marks.
    }
    this.raw = raw;
    this.read = true;
    this.parsed = next;
    return next;
  }

  /** The organization's marks (the same Map until they change). */
  get(accountId: string, organizationId: string): Marks {
    return this.all().get(marksOrgKey(accountId, organizationId)) ?? NO_MARKS;
  }

  markOf(accountId: string, organizationId: string, source: string): SourceMark | undefined {
    return this.get(accountId, organizationId).get(source);
  }

  /** Marks a source (`undefined` clears its mark) and tells the listeners. */
  set(accountId: string, organizationId: string, source: string, mark: SourceMark | undefined): Promise<MarkOutcome> {
    const run = this.queue.then(() => this.write(accountId, organizationId, source, mark));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(accountId: string, organizationId: string, source: string, mark: SourceMark | undefined): Promise<MarkOutcome> {
    if (!markable(source)) return 'invalid';
    const key = marksOrgKey(accountId, organizationId);
    const all = this.all();
    const current = all.get(key) ?? NO_MARKS;
    if (current.get(source) === mark) return 'unchanged';
    if (mark && !current.has(source) && current.size >= MAX_MARKS) return 'full';
    const marks = new Map(current);
    if (mark) marks.set(source, mark);
    else marks.delete(source);
    const next = new Map(all);
    if (marks.size) next.set(key, marks);
    else next.delete(key);
    const value: Record<string, [string, SourceMark][]> = {};
    for (const [k, m] of next) value[k] = markPairs(m);
    await this.memento.update(MARKS_KEY, value);
    // What was written is what is read next (the maps of the other organizations kept).
    this.raw = this.memento.get<unknown>(MARKS_KEY);
    this.read = true;
    this.parsed = next;
    this.changed.fire({ accountId, organizationId });
    return 'set';
  }

  dispose(): void {
    this.changed.dispose();
  }
}
