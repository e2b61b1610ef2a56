/**
 * fetchDmarcRecords: one GET of §4 over Node's global fetch (undici), with typed errors,
 * bounded retries, a per-attempt timeout, cancellation, and the API key kept out of every
 * message, log line and thrown value.
 */
import { version } from '../../package.json';
import { ApiError, formatBytes, formatDuration, redact } from './errors';
import { cancelled, discard, FINAL, httpError, networkError } from './httpErrors';
import { RecordsBodyStream } from './body';
import { slowStep, stepStart } from '../perf';
import { holdReading, isThenable, type AttemptClock } from './consumerHold';
import type { RequestSummary } from './requestLog';
import type { DmarcRecord, FetchOptions, FetchResult, RecordsQuery } from './types';
import { baseUrlProblem, buildRecordsUrl, isLoopbackHost, toIsoUtc } from './url';

export const USER_AGENT = `dmarc-explorer/${version}`;

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_RETRY_BASE_MS = 1000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;
const MAX_BACKOFF_MS = 30_000;
const MAX_REDIRECTS = 3;
/** While a body is parsed as it arrives, the event loop gets a turn at least this often. */
const YIELD_AFTER_MS = 10;
/**
 * A network read's rows (64 KB of text here) are parsed about this much text at a time, the turn
 * above checked between. While V8 marks a large heap for a full collection, the main thread takes
 * part in the marking as it allocates and its steps run many times slower: one read's 130–260 rows
 * took 30–150 ms (plain Node and the extension host, at a million rows). The text is still added
 * whole: a row not yet complete is never scanned again for a part (the parser stops between rows).
 */
const PART_CHARS = 16 * 1024;

/** FetchOptions plus knobs that tests and tools need; the extension uses the defaults. */
export interface ClientOptions extends FetchOptions {
  /** First backoff delay for 5xx and network errors; doubles per retry, with jitter. Default 1 s. */
  retryBaseMs?: number;
  /** Longest Retry-After we wait for. A 429 asking for longer fails at once. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Defaults to `dmarc-explorer/<package.json version>`. */
  userAgent?: string;
  /** Called when a 2xx body has fully arrived (for performance traces). */
  onResponse?: (info: { status: number; bytes: number; ms: number }) => void;
  /** Called when the first piece of a 2xx body arrived (for performance traces). */
  onFirstByte?: (info: { status: number; ms: number }) => void;
  /**
   * Valid rows as they arrive, before the body has ended (see RecordsBodyStream). `offset` is the
   * index of the first of them among the rows of this attempt: 0 again means a retry started
   * over, and the rows handed out before are void. When the fetch fails, rows handed out are
   * incomplete; the result (when it succeeds) holds exactly the rows handed out.
   *
   * A promise returned asks the client to read no further until it settles: the consumer is
   * behind, and the rest of the body waits in the network (TCP's flow control) rather than as
   * rows in memory. The attempt's timeout does not run meanwhile (it is the server's time, not
   * the consumer's), cancel still stops everything at once, and a promise that takes longer than
   * `CONSUMER_HOLD_MAX_MS` is no longer waited for.
   */
  onRows?: (records: DmarcRecord[], offset: number) => unknown;
  /** Called once when the fetch ends, either way: what the Info log line says (requestLog.ts). */
  onDone?: (summary: RequestSummary) => void;
}

/** What one fetch saw, filled in as it goes (for `onDone`). */
interface Stats {
  status?: number;
  bytes?: number;
  retries: number;
}

/**
 * GET the records of one organization in an inclusive date range, validated and normalised.
 * Every failure is an ApiError; the API key never appears in its message.
 */
export async function fetchDmarcRecords(query: RecordsQuery, options: ClientOptions = {}): Promise<FetchResult> {
  const key = typeof query.apiKey === 'string' ? query.apiKey : '';
  const log = (line: string): void => {
    try {
      options.log?.(redact(line, key));
    } catch {
      // A failing logger must not fail the fetch.
    }
  };
  const t0 = Date.now();
  const stats: Stats = { retries: 0 };
  const done = (result: FetchResult | undefined, error: ApiError | undefined): void => {
    if (!options.onDone) return;
    const range = (d: Date | string): string => toIsoUtc(d) ?? redact(String(d).slice(0, 40), key);
    try {
      options.onDone({
        organizationId: redact(String(query.organizationId ?? '').trim().slice(0, 100), key),
        start: range(query.startDate),
        end: range(query.endDate),
        ok: !error,
        status: stats.status,
        rows: result?.records.length,
        rejected: result?.rejected.count,
        bytes: stats.bytes,
        ms: Date.now() - t0,
        retries: stats.retries,
        error: error?.kind,
      });
    } catch {
      // Logging must not fail the fetch.
    }
  };
  try {
    const result = await run(query, options, log, stats);
    done(result, undefined);
    return result;
  } catch (e) {
    // Last line of defence: whatever went wrong, what leaves this function is an ApiError whose
    // message does not contain the key (messages may quote a server or an underlying error).
    let err: ApiError;
    if (e instanceof ApiError) {
      err = !key || redact(e.message, key) === e.message ? e : new ApiError(e.kind, redact(e.message, key), { status: e.status, retryAfterMs: e.retryAfterMs });
    } else {
      err = new ApiError('network', redact(`Unexpected error: ${e instanceof Error ? e.message : String(e)}`, key));
    }
    log(`failed (${err.kind}): ${err.message}`);
    done(undefined, err);
    throw err;
  }
}

type Log = (line: string) => void;

async function run(query: RecordsQuery, options: ClientOptions, log: Log, stats: Stats): Promise<FetchResult> {
  const { signal } = options;
  if (signal?.aborted) throw cancelled();

  // Nothing leaves the machine before these checks pass.
  const problem = baseUrlProblem(query.baseUrl ?? '');
  if (problem) throw new ApiError(problem.kind, problem.message);
  const apiKey = (query.apiKey ?? '').trim();
  if (!apiKey) throw new ApiError('forbidden', 'No API key is set. Enter the key you got from the provider.');
  // Checked here because undici's own error for a bad header value quotes the value (the key).
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new ApiError('forbidden', 'The API key contains spaces, line breaks or other characters a key cannot have. Paste it again.');
  }
  const organizationId = (query.organizationId ?? '').trim();
  if (!organizationId) throw new ApiError('bad-request', 'No organization ID is set.');
  const start = toIsoUtc(query.startDate);
  const end = toIsoUtc(query.endDate);
  if (!start) throw new ApiError('bad-request', 'The start date is not a valid date.');
  if (!end) throw new ApiError('bad-request', 'The end date is not a valid date.');
  if (start > end) throw new ApiError('bad-request', 'The start date is after the end date.');

  const url = buildRecordsUrl(query.baseUrl, organizationId, start, end);
  const headers = {
    Authorization: `Bearer ${apiKey}`,
    Accept: 'application/json',
    // Node's fetch decodes all three but offers only gzip and deflate unless asked. On the local
    // server's rows a Brotli body is 8% (quality 5) to 26% (quality 11) smaller than a gzip one.
    'Accept-Encoding': 'gzip, deflate, br',
    'User-Agent': options.userAgent ?? USER_AGENT,
  };
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES));

  for (let attempt = 0; ; attempt++) {
    try {
      return await attemptOnce(url, headers, organizationId, apiKey, options, log, stats);
    } catch (e) {
      const err = e as ApiError;
      const delay = retryDelay(err, attempt, retries, options);
      if (delay === undefined) throw err;
      log(`retry ${attempt + 1} of ${retries} in ${delay} ms: ${err.message}`);
      stats.retries++;
      try {
        options.onRetry?.({ attempt: attempt + 1, delayMs: delay, reason: err.message });
      } catch {
        // Progress reporting must not break the fetch.
      }
      await sleep(delay, signal);
    }
  }
}

/** When to try again: 429 (Retry-After), 5xx and network errors, bounded; never 400/403/404. */
function retryDelay(err: ApiError, attempt: number, retries: number, options: ClientOptions): number | undefined {
  if (attempt >= retries || !RETRYABLE.has(err.kind) || FINAL.has(err)) return undefined;
  if (err.retryAfterMs !== undefined) {
    // A wait longer than the cap is not worth sitting through: fail now and say when to retry.
    return err.retryAfterMs <= (options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS) ? err.retryAfterMs : undefined;
  }
  // Exponential backoff with "equal jitter": half fixed, half random, so clients spread out.
  const d = Math.min(MAX_BACKOFF_MS, (options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS) * 2 ** attempt);
  return Math.round(d / 2 + Math.random() * (d / 2));
}

const RETRYABLE = new Set(['rate-limited', 'server', 'network']);

async function attemptOnce(
  first: URL,
  headers: Record<string, string>,
  organizationId: string,
  apiKey: string,
  options: ClientOptions,
  log: Log,
  stats: Stats,
): Promise<FetchResult> {
  const { signal } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // One controller per attempt, aborted by the caller's signal or by our timer; `why` says which.
  const ac = new AbortController();
  let why: 'timeout' | 'cancelled' | undefined;
  const onAbort = (): void => {
    why ??= 'cancelled';
    ac.abort();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  // The attempt's clock: paused while a consumer of streamed rows holds the reading.
  let left = timeoutMs;
  let since = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const clock = {
    run: (): void => {
      since = Date.now();
      timer = setTimeout(() => {
        why ??= 'timeout';
        ac.abort();
      }, left);
    },
    pause: (): void => {
      clearTimeout(timer);
      left = Math.max(0, left - (Date.now() - since));
    },
  };
  clock.run();
  const t0 = Date.now();
  let url = first;
  try {
    let res: Response;
    for (let hop = 0; ; hop++) {
      log(`GET ${url.href}`);
      // Redirects are followed by hand: the key goes only to the same host, never over plain http.
      res = await fetch(url, { method: 'GET', headers, signal: ac.signal, redirect: 'manual' });
      if (res.status < 300 || res.status >= 400 || !res.headers.has('location')) break;
      await discard(res);
      const next = new URL(res.headers.get('location')!, url);
      if (hop >= MAX_REDIRECTS) throw new ApiError('invalid-response', `Too many redirects from ${first.host}. Check the base URL.`, { status: res.status });
      if (next.protocol === 'http:' && !isLoopbackHost(next.hostname)) {
        throw new ApiError('insecure-url', `The server redirected to plain http:// (${next.host}); the API key is not sent unencrypted. Use an https:// base URL.`, { status: res.status });
      }
      if (next.protocol !== 'https:' && next.protocol !== 'http:') {
        throw new ApiError('invalid-response', `The server redirected to an unsupported address. Check the base URL.`, { status: res.status });
      }
      // Host and port: another port on the same machine is another server (as fetch itself treats
      // it: a cross-origin redirect drops Authorization), and may be anyone's.
      if (next.host !== url.host) {
        throw new ApiError(
          'not-found',
          `The server redirected to ${next.host}. The API key is only sent to ${url.host}; if the API moved, change the base URL.`,
          { status: res.status },
        );
      }
      log(`redirected (${res.status}) to ${next.href}`);
      url = next;
    }

    const { status } = res;
    stats.status = status;
    stats.bytes = undefined;
    const contentType = res.headers.get('content-type');
    if (status >= 200 && status < 300) return await readRecords(res, contentType, apiKey, options, log, stats, t0, { ...clock, signal: ac.signal });
    log(`${status} from ${url.host} after ${Date.now() - t0} ms`);
    throw await httpError(res, url, organizationId, apiKey);
  } catch (e) {
    if (why === 'cancelled') throw cancelled();
    if (why === 'timeout') {
      throw new ApiError(
        'timeout',
        `No complete answer from ${url.host} within ${formatDuration(timeoutMs)}. The server may be slow or the date range too large; try a shorter range.`,
      );
    }
    if (e instanceof ApiError) throw e;
    throw networkError(e, url, apiKey);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The records of a 2xx body, parsed as it arrives: each piece is decoded (UTF-8, a byte order
 * mark dropped, invalid bytes as U+FFFD, exactly as `res.text()` would) and handed to a
 * RecordsBodyStream, which gives out the rows whose text is complete. The body is never held
 * whole, and no step takes longer than one network read's worth of work. The attempt's timeout
 * covers the body up to its last byte.
 */
async function readRecords(
  res: Response,
  contentType: string | null,
  apiKey: string,
  options: ClientOptions,
  log: Log,
  stats: Stats,
  t0: number,
  attempt: AttemptClock,
): Promise<FetchResult> {
  const { status } = res;
  const onRows = options.onRows;
  // What the consumer last asked to wait for before the next read.
  let hold: PromiseLike<unknown> | undefined;
  const body = new RecordsBodyStream(contentType, {
    secret: apiKey,
    onRows:
      onRows &&
      ((records, offset) => {
        try {
          const asked = onRows(records, offset);
          if (isThenable(asked)) hold = asked;
        } catch (e) {
          log(`a consumer of streamed rows failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }),
  });
  const decoder = new TextDecoder('utf-8');
  let bytes = 0;
  if (res.body) {
    const reader = res.body.getReader();
    let since = Date.now();
    for (;;) {
      // Reads of data already buffered resolve as microtasks, which never let timers or I/O in:
      // give the event loop a turn every few milliseconds of parsing.
      if (Date.now() - since > YIELD_AFTER_MS) {
        await new Promise((r) => setImmediate(r));
        since = Date.now();
      }
      const { done, value } = await reader.read();
      if (done) break;
      if (bytes === 0) options.onFirstByte?.({ status, ms: Date.now() - t0 });
      bytes += value.byteLength;
      const step = stepStart();
      body.push(decoder.decode(value, { stream: true }), PART_CHARS);
      slowStep('read', step, { bytes: value.byteLength });
      for (;;) {
        if (hold) {
          const h = hold;
          hold = undefined;
          await holdReading(h, attempt);
          since = Date.now();
        }
        // The rest of this read's rows, PART_CHARS at a time (cancelled meanwhile: none; the next read fails as cancelled).
        if (!body.pending || attempt.signal.aborted) break;
        if (Date.now() - since > YIELD_AFTER_MS) {
          await new Promise((r) => setImmediate(r));
          since = Date.now();
        }
        const part = stepStart();
        body.more(PART_CHARS);
        slowStep('read', part, { part: 1 });
      }
    }
  }
  body.push(decoder.decode());
  stats.bytes = bytes;
  const ms = Date.now() - t0;
  log(`${status} ${contentType ?? 'no content type'}, ${formatBytes(bytes)} in ${ms} ms`);
  options.onResponse?.({ status, bytes, ms });
  const t1 = Date.now();
  const result = body.finish();
  log(`${result.records.length} records, ${result.rejected.count} rejected, ${result.warnings.length} warnings; checked in ${Date.now() - t1} ms`);
  return result;
}

/** Waits `ms`, or rejects with `cancelled` the moment the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
