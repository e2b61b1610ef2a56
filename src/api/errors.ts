/**
 * The one error type src/api throws. Every failure of a fetch ends as an ApiError with a `kind`
 * the UI can switch on, and a short message a person can act on.
 *
 * Secrets: an ApiError never carries the API key. Messages built from anything outside our
 * control (a server's 400 text, the start of a bad body, an undici error) go through `redact`
 * first, and no underlying error is attached as `cause` (its message or stack could hold the
 * key, e.g. undici's "Headers.append: "Bearer …" is an invalid header value").
 */
import type { ApiErrorKind } from './types';

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  /** For `rate-limited`: how long the server asked us to wait (from Retry-After). */
  readonly retryAfterMs?: number;

  constructor(kind: ApiErrorKind, message: string, extra: { status?: number; retryAfterMs?: number } = {}) {
    super(message);
    this.name = 'ApiError';
    this.kind = kind;
    // Class fields are defined (ES2022): the two are own properties, undefined when not given.
    this.status = extra.status;
    this.retryAfterMs = extra.retryAfterMs;
  }
}

/** Any failure as an ApiError: an unexpected one becomes a `network` error saying so. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError('network', `Unexpected error: ${String((err as Error)?.message ?? err)}`);
}

/**
 * How an API failure reads to the user, the same in notifications, tree items and the records
 * panel: the ApiError's own sentence ("… (HTTP 403). Check the key and the organization ID.").
 */
export function describeApiError(err: unknown): string {
  return toApiError(err).message;
}

export const REDACTED = '[redacted]';

/**
 * Removes every occurrence of `secret` from `text`: as is, and as a server or proxy echoing it
 * back may have encoded it (base64, alone or as `Bearer <key>`, and URL-encoded). Keys shorter
 * than 4 characters are not searched for (that would mangle ordinary words); real keys are far
 * longer.
 */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  let out = text;
  const forms = new Set<string>();
  for (const s of [secret, secret.trim()]) {
    if (s.length < 4) continue;
    forms.add(s);
    forms.add(encodeURIComponent(s));
    forms.add(base64(s));
    forms.add(base64(`Bearer ${s}`));
  }
  // Longest first, so that a form containing another is removed whole.
  for (const f of [...forms].sort((a, b) => b.length - a.length)) out = out.split(f).join(REDACTED);
  return out;
}

/** Base64 of the UTF-8 bytes of `s` (btoa: the same in Node and in a webview). */
function base64(s: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(s)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * Untrusted text made fit for a message: whitespace collapsed, control characters dropped,
 * `secret` removed, cut to `max` characters with an ellipsis. The secret is removed before the
 * cut so that a key straddling the cut cannot leak as a fragment (keys hold no whitespace, so
 * collapsing never splits one).
 */
export function snippet(text: string, max: number, secret?: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.slice(0, Math.max(10_000, max * 50)).replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  const clean = redact(flat, secret);
  return clean.length > max ? clean.slice(0, max) + '…' : clean;
}

/** "1.2 MB", for messages and log lines. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** "45 s", "2 min", "1 h" for a wait the user is told about. */
export function formatDuration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}
