/**
 * A consumer of streamed rows asking the client to read no further until it has caught up
 * (ClientOptions.onRows returning a promise): the wait, with the attempt's timeout paused.
 */

/** The attempt's timeout, which pauses while a consumer holds the reading, and its signal. */
export interface AttemptClock {
  run(): void;
  pause(): void;
  signal: AbortSignal;
}

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** The longest one promise returned by `onRows` holds the reading. */
export const CONSUMER_HOLD_MAX_MS = 10_000;

/**
 * Waits for the consumer (at most CONSUMER_HOLD_MAX_MS) with the attempt's clock paused; returns
 * at once when the attempt is aborted (the next read then fails as cancelled).
 */
export async function holdReading(asked: PromiseLike<unknown>, attempt: AttemptClock): Promise<void> {
  if (attempt.signal.aborted) return;
  attempt.pause();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      Promise.resolve(asked).then(undefined, () => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CONSUMER_HOLD_MAX_MS);
        onAbort = resolve;
        attempt.signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) attempt.signal.removeEventListener('abort', onAbort);
    if (!attempt.signal.aborted) attempt.run();
  }
}
