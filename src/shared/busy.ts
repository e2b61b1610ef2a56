/**
 * Work in progress that other work should not compete with: a records panel sending its rows to
 * its webview marks itself busy; the record store's disk write of a settled range waits until
 * nothing is (`quiet`). At a million rows the write (every row stringified, ~1 GB of strings for
 * the collector) started 3 s after the last byte while the panel's last rows were still on their
 * way to the webview, and took the extension host's time from them. No `vscode` import.
 */
export class Busy {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Marks one piece of work busy; the function returned ends it (calling it again does nothing). */
  begin(): () => void {
    this.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.count === 0) {
        const w = this.waiters;
        this.waiters = [];
        for (const resolve of w) resolve();
      }
    };
  }

  get busy(): boolean {
    return this.count > 0;
  }

  /**
   * Resolves once nothing is busy, or after `maxWaitMs` at the latest (a panel whose webview
   * never takes its rows must not keep a range from the disk cache for ever).
   */
  quiet(maxWaitMs = 60_000): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      }, maxWaitMs);
      this.waiters.push(done);
    });
  }
}

/**
 * Resolves once every value given has settled (values that are not promises count as settled),
 * or after `maxWaitMs` at the latest; never rejects.
 */
export function settledWithin(values: readonly unknown[], maxWaitMs: number): Promise<void> {
  const pending = values.filter((v): v is PromiseLike<unknown> => typeof (v as PromiseLike<unknown> | undefined)?.then === 'function');
  if (pending.length === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, maxWaitMs);
    void Promise.allSettled(pending).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A promise and the function that resolves it. */
export function wakeSignal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
