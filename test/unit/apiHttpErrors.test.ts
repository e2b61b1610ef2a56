// How a failed exchange reads, exactly, status by status and network failure by failure (the
// HTTP tests check the same errors over a real socket; these pin every sentence and field).
import { strict as assert } from 'node:assert';
import { ApiError } from '../../src/api/errors';
import { discard, FINAL, httpError, networkError, parseRetryAfter } from '../../src/api/httpErrors';

const URL_ = new URL('https://api.example.test:8443/v1/dmarc?organizationId=acme');
const KEY = 'k3y-Secret-123456';

async function fromStatus(status: number, body = '', headers: Record<string, string> = {}, org = 'acme'): Promise<[string, string, number | undefined, number | undefined]> {
  const e = await httpError(new Response(body || null, { status, headers }), URL_, org, KEY);
  assert.ok(e instanceof ApiError);
  return [e.kind, e.message, e.status, e.retryAfterMs];
}

async function fromStatusResponse(res: Response): Promise<[string, string]> {
  const e = await httpError(res, URL_, 'acme', KEY);
  return [e.kind, e.message];
}

describe('api: failures, word for word', () => {
  it('400 says what the server said (JSON message, error, error.message, a JSON string, plain text), or that it did not', async () => {
    const cases: [string, string][] = [
      ['{"message":"startDate is after endDate"}', 'startDate is after endDate'],
      ['{"error":"bad range"}', 'bad range'],
      ['{"error":{"message":"nested why"}}', 'nested why'],
      ['{"message":"  ","error":"second choice"}', 'second choice'],
      // JSON without a usable message: its text, as for any other body.
      ['{"message":7,"error":{"message":"   "}}', '{"message":7,"error":{"message":" "}}'],
      ['"a JSON string"', 'a JSON string'],
      ['plain\ttext\nwith lines', 'plain text with lines'],
      ['  <!doctype html><p>Bad</p>', 'The server rejected the request (HTTP 400) without saying why.'],
      ['', 'The server rejected the request (HTTP 400) without saying why.'],
      [`{"message":"key ${KEY} is wrong"}`, 'key [redacted] is wrong'],
      ['[1,2]', '[1,2]'],
      ['{"message":"the message","error":null}', 'the message'],
      ['limit < 10 required', 'limit < 10 required'],
      ['null', 'null'],
    ];
    for (const [body, message] of cases) assert.deepStrictEqual(await fromStatus(400, body), ['bad-request', message, 400, undefined], body);
    const long = await fromStatus(400, 'x'.repeat(600));
    assert.equal(long[1], `${'x'.repeat(500)}…`);
  });

  it('other 4xx (not 401, 403, 404, 429) are refusals, with the server\'s words when it gave some', async () => {
    for (const status of [402, 405, 409, 413, 418, 422, 451, 499]) {
      assert.deepStrictEqual(await fromStatus(status, '{"message":"no"}'), ['bad-request', `The server refused the request (HTTP ${status}): no`, status, undefined]);
      assert.deepStrictEqual(await fromStatus(status), ['bad-request', `The server refused the request (HTTP ${status}).`, status, undefined]);
    }
  });

  it('401 and 403 name the organization (cut to 60 characters), 404 the URL without its query', async () => {
    for (const status of [401, 403]) {
      assert.deepStrictEqual(await fromStatus(status, '{"message":"ignored"}'), ['forbidden', `The API key was refused, or it has no access to organization "acme" (HTTP ${status}). Check the key and the organization ID.`, status, undefined]);
    }
    const [, long] = await fromStatus(403, '', {}, `org\n${'o'.repeat(80)}`);
    assert.equal(long, `The API key was refused, or it has no access to organization "org ${'o'.repeat(56)}…" (HTTP 403). Check the key and the organization ID.`);
    assert.deepStrictEqual(await fromStatus(404), ['not-found', 'Nothing found at https://api.example.test:8443/v1/dmarc (HTTP 404). The base URL is probably wrong.', 404, undefined]);
  });

  it('429 says when to try again (Retry-After in seconds or as a date), 5xx keep the wait for the retry', async () => {
    assert.deepStrictEqual(await fromStatus(429, '', { 'retry-after': '30' }), ['rate-limited', "The API's rate limit was reached. Try again in 30 s.", 429, 30_000]);
    assert.deepStrictEqual(await fromStatus(429, '', { 'retry-after': '600' }), ['rate-limited', "The API's rate limit was reached. Try again in 10 min.", 429, 600_000]);
    assert.deepStrictEqual(await fromStatus(429), ['rate-limited', "The API's rate limit was reached. Try again later.", 429, undefined]);
    assert.deepStrictEqual(await fromStatus(429, '', { 'retry-after': 'soon' }), ['rate-limited', "The API's rate limit was reached. Try again later.", 429, undefined]);
    for (const status of [500, 502, 503, 599]) {
      assert.deepStrictEqual(await fromStatus(status, 'ignored', { 'retry-after': '2' }), ['server', `The server had a problem (HTTP ${status}). Try again later.`, status, 2000]);
      assert.deepStrictEqual(await fromStatus(status), ['server', `The server had a problem (HTTP ${status}). Try again later.`, status, undefined]);
    }
    for (const status of [204, 206, 304]) assert.deepStrictEqual(await fromStatus(status), ['invalid-response', `Unexpected answer from the server (HTTP ${status}).`, status, undefined]);
  });

  it('Retry-After: whole seconds, or an HTTP date from now (never negative); anything else is no wait', () => {
    const now = Date.parse('2015-10-21T07:27:00Z');
    assert.equal(parseRetryAfter(null, now), undefined);
    assert.equal(parseRetryAfter(' 120 ', now), 120_000);
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now), 60_000);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:26:00 GMT', now), 0);
    for (const v of ['', 'soon', 'Wed, 99 Oct 2015', '5x', '5 s']) assert.equal(parseRetryAfter(v, now), undefined, v);
  });

  it('a body that fails while read is a 400 without words; an answer not read is cancelled, and a failing cancel is no error', async () => {
    const broken = new ReadableStream({ pull: (c) => c.error(new Error('socket hang up')) });
    assert.deepStrictEqual(await fromStatusResponse(new Response(broken, { status: 400 })), ['bad-request', 'The server rejected the request (HTTP 400) without saying why.']);
    let cancelled = 0;
    const unread = new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(8)), cancel: () => void cancelled++ });
    assert.equal((await httpError(new Response(unread, { status: 503 }), URL_, 'acme', KEY)).kind, 'server');
    assert.equal(cancelled, 1, 'the body of a 503 is cancelled, not left open');
    const res = new Response('x', { status: 500 });
    Object.defineProperty(res, 'body', { value: { cancel: () => Promise.reject(new Error('already gone')) } });
    await discard(res);
    await discard(new Response(null, { status: 204 }));
  });

  it('network failures by code, on the error or its cause; certificates are final; the key never appears', () => {
    const host = 'api.example.test:8443';
    const cases: [string, string][] = [
      ['ECONNREFUSED', `Could not connect to ${host}: connection refused. Check the base URL and that the server is up.`],
      ['ENOTFOUND', 'The host api.example.test was not found. Check the base URL.'],
      ['EAI_AGAIN', 'Looking up api.example.test failed. Check your network connection.'],
      ...['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].map((c): [string, string] => [c, `The connection to ${host} was closed unexpectedly. Check your network and try again.`]),
      ...['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'].map((c): [string, string] => [c, `The connection to ${host} timed out. Check your network or proxy.`]),
      ['EHOSTUNREACH', `Could not reach ${host} (EHOSTUNREACH). Check your network and the base URL.`],
    ];
    for (const [code, message] of cases) {
      for (const e of [Object.assign(new TypeError('fetch failed'), { cause: { code } }), { code }]) {
        const err = networkError(e, URL_, KEY);
        assert.deepStrictEqual([err.kind, err.message, FINAL.has(err)], ['network', message, false], code);
      }
    }
    for (const code of ['CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']) {
      const err = networkError({ cause: { code } }, URL_, KEY);
      assert.deepStrictEqual([err.kind, err.message, FINAL.has(err)], ['network', `The TLS certificate of ${host} was not accepted (${code}). Check the base URL or your network's proxy.`, true], code);
    }
    // No code: the cause's message, cut and without the key; nothing at all: just the host.
    const said = networkError({ cause: { message: `Headers.append: "Bearer ${KEY}" is an invalid header value ${'z'.repeat(100)}` } }, URL_, KEY);
    const cut = `Headers.append: "Bearer [redacted]" is an invalid header value ${'z'.repeat(100)}`.slice(0, 80);
    assert.equal(said.message, `Could not reach ${host} (${cut}…). Check your network and the base URL.`);
    for (const e of [undefined, null, 'text', {}, { cause: { code: 7, message: 8 } }]) {
      assert.equal(networkError(e, URL_, KEY).message, `Could not reach ${host}. Check your network and the base URL.`, String(e));
    }
  });
});
