/**
 * How a failed exchange becomes an ApiError: a non-2xx answer (with the server's own words where
 * it gave some), an undici network failure, a cancellation. Messages never quote the key.
 */
import { ApiError, formatDuration, snippet } from './errors';

/** Network errors that another attempt will not fix (certificate problems). */
export const FINAL = new WeakSet<ApiError>();

export async function discard(res: Response): Promise<void> {
  try {
    await res.body?.cancel();
  } catch {
    // Nothing to free.
  }
}

export async function httpError(res: Response, url: URL, organizationId: string, apiKey: string): Promise<ApiError> {
  const { status } = res;
  if (status === 400 || (status >= 402 && status < 500 && status !== 403 && status !== 404 && status !== 429)) {
    const said = await serverMessage(res, apiKey);
    if (status === 400) return new ApiError('bad-request', said || 'The server rejected the request (HTTP 400) without saying why.', { status });
    return new ApiError('bad-request', `The server refused the request (HTTP ${status})${said ? `: ${said}` : '.'}`, { status });
  }
  await discard(res);
  if (status === 401 || status === 403) {
    return new ApiError(
      'forbidden',
      `The API key was refused, or it has no access to organization "${snippet(organizationId, 60)}" (HTTP ${status}). Check the key and the organization ID.`,
      { status },
    );
  }
  if (status === 404) {
    return new ApiError('not-found', `Nothing found at ${url.origin}${url.pathname} (HTTP 404). The base URL is probably wrong.`, { status });
  }
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
  if (status === 429) {
    const when = retryAfterMs !== undefined ? `in ${formatDuration(retryAfterMs)}` : 'later';
    return new ApiError('rate-limited', `The API's rate limit was reached. Try again ${when}.`, { status, retryAfterMs });
  }
  if (status >= 500) {
    return new ApiError('server', `The server had a problem (HTTP ${status}). Try again later.`, { status, retryAfterMs });
  }
  return new ApiError('invalid-response', `Unexpected answer from the server (HTTP ${status}).`, { status });
}

/** The explanation in an error body: JSON `message` / `error` / `error.message`, else the text. */
async function serverMessage(res: Response, apiKey: string): Promise<string> {
  let text: string;
  try {
    text = await res.text();
  } catch {
    return '';
  }
  try {
    const j = JSON.parse(text) as unknown;
    if (j && typeof j === 'object') {
      const { message, error } = j as { message?: unknown; error?: unknown };
      const nested = error && typeof error === 'object' ? (error as { message?: unknown }).message : undefined;
      const m = [message, error, nested].find((x): x is string => typeof x === 'string' && x.trim() !== '');
      if (m) return snippet(m, 500, apiKey);
    }
    if (typeof j === 'string') return snippet(j, 500, apiKey);
  } catch {
    // Not JSON: use the text itself, unless it is an HTML page.
  }
  return /^\s*</.test(text) ? '' : snippet(text, 500, apiKey);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/**
 * A short message from an undici failure. Only its code (and the cause's message for unknown
 * codes) is used: undici's top-level message is "fetch failed" and some of its errors quote
 * header values.
 */
export function networkError(e: unknown, url: URL, apiKey: string): ApiError {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : undefined;
  const host = url.host;
  let msg: string;
  switch (code) {
    case 'ECONNREFUSED':
      msg = `Could not connect to ${host}: connection refused. Check the base URL and that the server is up.`;
      break;
    case 'ENOTFOUND':
      msg = `The host ${url.hostname} was not found. Check the base URL.`;
      break;
    case 'EAI_AGAIN':
      msg = `Looking up ${url.hostname} failed. Check your network connection.`;
      break;
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      msg = `The connection to ${host} was closed unexpectedly. Check your network and try again.`;
      break;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      msg = `The connection to ${host} timed out. Check your network or proxy.`;
      break;
    default:
      if (code && TLS_CODES.has(code)) {
        const err = new ApiError('network', `The TLS certificate of ${host} was not accepted (${code}). Check the base URL or your network's proxy.`);
        FINAL.add(err);
        return err;
      }
      msg = `Could not reach ${host}${code ? ` (${code})` : typeof cause?.message === 'string' ? ` (${snippet(cause.message, 80, apiKey)})` : ''}. Check your network and the base URL.`;
  }
  return new ApiError('network', msg);
}

export function cancelled(): ApiError {
  return new ApiError('cancelled', 'Cancelled.');
}
