/**
 * One Refresh of the tree, followed to its end: which ranges it re-fetched, and what changed.
 * The tree registers each re-fetch as VS Code asks for the children of an expanded range; the
 * round waits until no new one starts, then for all of them, and words the outcome.
 */
import * as vscode from 'vscode';

export interface RefreshOutcome {
  label: string;
  /** Rows held before (undefined: nothing was held). */
  before: number | undefined;
  after: number | undefined;
  error?: string | undefined;
}


export class RefreshRound {
  private readonly fetches: Promise<RefreshOutcome>[] = [];
  private lastStart = Date.now();

  add(fetch: Promise<RefreshOutcome>): void {
    this.fetches.push(fetch);
    this.lastStart = Date.now();
  }

  get size(): number {
    return this.fetches.length;
  }

  /** Waits until no re-fetch started for `quietMs` (at most `maxWaitMs`), then for every one. */
  async settle(quietMs = 400, maxWaitMs = 5000): Promise<RefreshOutcome[]> {
    const deadline = Date.now() + maxWaitMs;
    while (Date.now() < deadline && Date.now() - this.lastStart < quietMs) {
      await new Promise((r) => setTimeout(r, Math.max(20, quietMs - (Date.now() - this.lastStart))));
    }
    return Promise.all(this.fetches);
  }
}

/** "Refreshed Last 7 days, October 2026: 12 new rows." and the like. */
export function refreshReport(outcomes: readonly RefreshOutcome[]): string {
  if (outcomes.length === 0) return vscode.l10n.t('Refreshed: ranges are fetched again when you expand them.');
  const failed = outcomes.filter((o) => o.error !== undefined);
  const ok = outcomes.filter((o) => o.error === undefined);
  const parts: string[] = [];
  if (ok.length) {
    const labels = ok.map((o) => o.label).join(', ');
    const delta = ok.reduce((s, o) => s + ((o.after ?? 0) - (o.before ?? 0)), 0);
    const changed = ok.some((o) => o.before !== o.after);
    const what = !changed ? vscode.l10n.t('no change')
      : delta === 1 ? vscode.l10n.t('1 new row')
      : delta > 1 ? vscode.l10n.t('{0} new rows', delta)
      : delta === -1 ? vscode.l10n.t('1 row fewer')
      : delta < -1 ? vscode.l10n.t('{0} rows fewer', -delta)
      : vscode.l10n.t('rows changed');
    parts.push(vscode.l10n.t('Refreshed {0}: {1}.', labels, what));
  }
  if (failed.length) parts.push(vscode.l10n.t('Refresh of {0} failed: {1}', failed.map((o) => o.label).join(', '), failed[0]!.error!));
  return parts.join(' ');
}
