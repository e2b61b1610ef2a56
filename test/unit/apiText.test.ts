// The API client's texts, exactly: sizes and waits as people read them, the one log line per
// request, and secrets removed from untrusted text in every form a server may echo them.
import { strict as assert } from 'node:assert';
import { ApiError, formatBytes, formatDuration, redact, REDACTED, snippet, toApiError } from '../../src/api/errors';
import { requestLine, type RequestSummary } from '../../src/api/requestLog';

const KEY = 'sk-live-Aa1+/=é';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe('api: texts, exactly', () => {
  it('sizes: bytes below 1 KiB, then KB and MB with one decimal', () => {
    const cases: [number, string][] = [
      [0, '0 B'], [1023, '1023 B'], [1024, '1.0 KB'], [1536, '1.5 KB'], [1024 * 1024 - 1, '1024.0 KB'],
      [1024 * 1024, '1.0 MB'], [430 * 1024 * 1024 + 52_429, '430.1 MB'],
    ];
    assert.deepStrictEqual(cases.map(([n]) => formatBytes(n)), cases.map(([, s]) => s));
  });

  it('waits: whole seconds rounded up below two minutes, then minutes, then hours', () => {
    const cases: [number, string][] = [
      [0, '0 s'], [1, '1 s'], [1000, '1 s'], [1001, '2 s'], [119_000, '119 s'], [119_001, '2 min'],
      [150_000, '3 min'], [3_599_000, '60 min'], [3_600_000, '1 h'], [5_400_000, '2 h'], [5_399_000, '1 h'],
    ];
    assert.deepStrictEqual(cases.map(([n]) => formatDuration(n)), cases.map(([, s]) => s));
  });

  it('the request line, in each of its forms', () => {
    const base: RequestSummary = { organizationId: 'acme', start: '2026-11-01T00:00:00.000Z', end: '2026-11-30T23:59:59.999Z', ok: true, status: 200, rows: 1234, bytes: 4_404_019, ms: 812.4, retries: 0 };
    const cases: [Partial<RequestSummary>, string][] = [
      [{}, 'GET acme 2026-11-01…2026-11-30: 200, 1,234 rows, 4.2 MB, 812 ms'],
      [{ rows: 1, bytes: 900, ms: 1234.5, retries: 1 }, 'GET acme 2026-11-01…2026-11-30: 200, 1 row, 900 B, 1,235 ms, 1 retry'],
      [{ rows: 0, rejected: 3, bytes: undefined, retries: 2 }, 'GET acme 2026-11-01…2026-11-30: 200, 0 rows, 3 rejected, 812 ms, 2 retries'],
      [{ rows: undefined, status: undefined, rejected: 0 }, 'GET acme 2026-11-01…2026-11-30: 200, 0 rows, 4.2 MB, 812 ms'],
      [{ ok: false, status: 403, error: 'forbidden' }, 'GET acme 2026-11-01…2026-11-30: failed (forbidden, HTTP 403), 812 ms'],
      [{ ok: false, status: undefined, error: undefined }, 'GET acme 2026-11-01…2026-11-30: failed (error), 812 ms'],
      // Whole days with or without milliseconds read as dates; anything else as sent.
      [{ start: '2026-11-01T00:00:00Z', end: '2026-11-30T23:59:59Z' }, 'GET acme 2026-11-01…2026-11-30: 200, 1,234 rows, 4.2 MB, 812 ms'],
      [{ start: '2026-11-01T00:00:01.000Z', end: '2026-11-30T23:59:58.999Z' }, 'GET acme 2026-11-01T00:00:01.000Z…2026-11-30T23:59:58.999Z: 200, 1,234 rows, 4.2 MB, 812 ms'],
      [{ start: 'x2026-11-01T00:00:00Z', end: '2026-11-30T23:59:59.999Zx' }, 'GET acme x2026-11-01T00:00:00Z…2026-11-30T23:59:59.999Zx: 200, 1,234 rows, 4.2 MB, 812 ms'],
      [{ start: 'yesterday', end: '2026-11-30T00:00:00.000Z' }, 'GET acme yesterday…2026-11-30: 200, 1,234 rows, 4.2 MB, 812 ms'],
      // Whole-day bounds only when the whole string is one.
      [{ start: 'x2026-11-01T00:00:00.000Z', end: '2026-11-30T23:59:59.999Zx' }, 'GET acme x2026-11-01T00:00:00.000Z…2026-11-30T23:59:59.999Zx: 200, 1,234 rows, 4.2 MB, 812 ms'],
      [{ start: '2026-11-01T00:00:00.000Z!', end: '#2026-11-30T23:59:59.999Z' }, 'GET acme 2026-11-01T00:00:00.000Z!…#2026-11-30T23:59:59.999Z: 200, 1,234 rows, 4.2 MB, 812 ms'],
    ];
    for (const [change, want] of cases) assert.equal(requestLine({ ...base, ...change }), want, JSON.stringify(change));
  });

  it('a secret is removed as is, trimmed, URL-encoded and in base64 (alone or as a Bearer header), longest form first', () => {
    const forms = [KEY, encodeURIComponent(KEY), b64(KEY), b64(`Bearer ${KEY}`)];
    for (const f of forms) assert.equal(redact(`<${f}>`, KEY), `<${REDACTED}>`, f);
    assert.equal(redact(`a ${KEY} b ${KEY}`, KEY), `a ${REDACTED} b ${REDACTED}`, 'every occurrence');
    assert.equal(redact(`[${KEY}]`, ` ${KEY}\n`), `[${REDACTED}]`, 'a key pasted with spaces around it');
    assert.equal(redact(`[ ${KEY}\n]`, ` ${KEY}\n`), `[${REDACTED}]`, 'and as pasted');
    // base64 of "Bearer <key>" contains no base64 of the key alone: removed whole, not in part.
    assert.equal(redact(b64(`Bearer ${KEY}`), KEY), REDACTED);
    // A form that contains another (the key inside its URL-encoded form when nothing needs encoding).
    assert.equal(redact('x abcd-1234 y', 'abcd-1234'), `x ${REDACTED} y`);
    // The key as pasted (with spaces) contains the trimmed key: the pasted form goes first, spaces and all.
    assert.equal(redact(`x ${KEY} y`, ` ${KEY} `), `x${REDACTED}y`);
    // The URL-encoded form contains the key's unencoded tail: removed whole, leaving no '%2F' behind.
    assert.equal(redact('<ab%2Fcd-1234>', 'ab/cd-1234'), `<${REDACTED}>`);
  });

  it('nothing is removed without a secret, or for one shorter than 4 characters', () => {
    for (const secret of [undefined, '', 'abc', ' ab', ' ab\n']) assert.equal(redact('abc ab abcd', secret), 'abc ab abcd', String(secret));
    assert.equal(redact('abcd', 'abcd'), REDACTED);
  });

  it('a snippet: controls and runs of whitespace become one space, the secret goes before the cut, then the cut with an ellipsis', () => {
    assert.equal(snippet('  a\u0000\u0001b\t\r\n c\u007f d  ', 100), 'a b c d');
    assert.equal(snippet('abcdef', 6), 'abcdef');
    assert.equal(snippet('abcdefg', 6), 'abcdef…');
    // A key across the cut leaks no fragment.
    const text = `0123456789 ${KEY} tail`;
    assert.equal(snippet(text, 14, KEY), `0123456789 ${REDACTED.slice(0, 3)}…`);
    assert.equal(snippet(text, 100, KEY), `0123456789 ${REDACTED} tail`);
    // Only the first max × 50 characters (at least 10,000) are looked at.
    assert.equal(snippet(' '.repeat(9_990) + 'abc', 5), 'abc');
    assert.equal(snippet(' '.repeat(10_000) + 'abc', 5), '');
    assert.equal(snippet(' '.repeat(20_000) + 'abc', 401), 'abc');
    assert.equal(snippet(' '.repeat(20_000) + 'abc', 399), '');
    assert.equal(snippet('a'.repeat(300) + 'b', 6), 'aaaaaa…');
    assert.equal(snippet('x'.repeat(600) + 'y', 12).length, 13);
    assert.equal(snippet(`${'x'.repeat(12_000)}${KEY}`, 250, KEY), `${'x'.repeat(250)}…`);
  });

  it('any failure becomes an ApiError of kind network, saying it was unexpected; an ApiError stays itself', () => {
    const own = new ApiError('forbidden', 'No.', { status: 403, retryAfterMs: 5 });
    assert.equal(toApiError(own), own);
    assert.deepStrictEqual([own.name, own.kind, own.status, own.retryAfterMs, own.message], ['ApiError', 'forbidden', 403, 5, 'No.']);
    const bare = new ApiError('server', 'S.');
    assert.deepStrictEqual([bare.status, bare.retryAfterMs], [undefined, undefined]);
    for (const [err, message] of [[new Error('boom'), 'Unexpected error: boom'], ['text', 'Unexpected error: text'], [undefined, 'Unexpected error: undefined'], [null, 'Unexpected error: null'], [{ message: 7 }, 'Unexpected error: 7']] as const) {
      const e = toApiError(err);
      assert.ok(e instanceof ApiError);
      assert.deepStrictEqual([e.kind, e.message, e.status], ['network', message, undefined]);
    }
  });
});
