/**
 * Work on a list with at most `limit` items under way at once, in list order: the Overview's
 * requests (one per organization). Once `signal` is aborted no item is started; those under way
 * are the worker's to stop (it gets the signal). Resolves when every item started has settled;
 * a worker that throws is the worker's problem (its item counts as settled). No `vscode`.
 */
export async function eachBounded<T>(items: readonly T[], limit: number, signal: AbortSignal, work: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && !signal.aborted) {
      const i = next++;
      try {
        await work(items[i]!, i);
      } catch {
        // The worker reports its own failures; the others go on.
      }
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
}
