// The API client's safety over real HTTP on loopback: which base URLs it refuses before any byte
// leaves, and the API key that never shows in errors, logs or requests it should not reach.
import { strict as assert } from 'node:assert';
import { inspect } from 'node:util';
import { ApiError, checkBaseUrl, fetchDmarcRecords, isLoopbackHost, type ApiErrorKind, type ClientOptions, type RecordsQuery } from '../../src/api';
import { startApiServer, type ApiServer } from '../server/server';
import { expectApiError, FAST, miniServer, NOW, useApiServer } from './apiHelpers';

describe('api client over HTTP: safety', () => {
  const fx = useApiServer();
  const { query, apiRequests } = fx;

  describe('base URL safety', () => {
    it('plain http to a non-loopback host → insecure-url before any byte leaves', async () => {
      // ::ffff:127.0.0.1 reaches this machine but is not one of the loopback names we allow, so
      // if the check were missing the request would land on our fx.server.
      const mapped = `http://[::ffff:127.0.0.1]:${fx.server.port}`;
      await expectApiError(fetchDmarcRecords(query({ baseUrl: mapped }), FAST), 'insecure-url');
      await expectApiError(fetchDmarcRecords(query({ baseUrl: 'http://api.example.com' }), FAST), 'insecure-url');
      await expectApiError(fetchDmarcRecords(query({ baseUrl: `http://user:pw@127.0.0.1:${fx.server.port}` }), FAST), 'insecure-url');
      assert.equal(fx.server.requests.length, 0);
      await fetchDmarcRecords(query({ baseUrl: `http://localhost:${fx.server.port}` }), FAST);
      assert.equal(fx.server.requests.length, 1, 'localhost is fine');
    });

    it('checkBaseUrl explains what is wrong, or returns undefined', () => {
      for (const ok of ['https://api.example.com', 'https://api.example.com/prefix/', 'http://localhost:8787', 'http://127.0.0.1:8787/', 'http://127.8.9.10', 'http://[::1]:8787']) {
        assert.equal(checkBaseUrl(ok), undefined, ok);
      }
      const cases: [string, RegExp][] = [
        ['', /Enter the base URL/],
        ['api.example.com', /not a valid URL/],
        ['ftp://api.example.com', /https:\/\//],
        ['http://api.example.com', /unencrypted.*api\.example\.com/],
        ['http://192.168.1.10:8787', /unencrypted/],
        ['http://localhost.evil.com', /unencrypted/],
        ['http://127.0.0.1.nip.io', /unencrypted/],
        ['https://user:secret@api.example.com', /user name or password/],
        ['https://api.example.com/?x=1', /"\?" or "#"/],
      ];
      for (const [url, re] of cases) assert.match(checkBaseUrl(url) ?? 'accepted', re, url);
    });

    it('isLoopbackHost knows localhost, 127.0.0.0/8 and ::1 in their usual spellings', () => {
      for (const h of ['localhost', 'LOCALHOST', 'localhost.', '127.0.0.1', '127.1', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1']) assert.ok(isLoopbackHost(h), h);
      for (const h of ['example.com', '128.0.0.1', '10.0.0.1', '::2', '::ffff:7f00:1', 'localhost.example', '127.0.0.1.nip.io', '']) assert.ok(!isLoopbackHost(h), h);
    });

    it('follows a redirect on the same host and port, refuses one to another host or port without sending the key there', async () => {
      const same = await miniServer(async (req, res) => {
        if (!req.url!.startsWith('/moved/')) return void res.writeHead(301, { location: `/moved${req.url}` }).end();
        // The moved path answers with what the API server answers (the key passed on as it came).
        const r = await fetch(`${fx.server.url}${req.url!.slice('/moved'.length)}`, { headers: { authorization: String(req.headers.authorization) } });
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? '' }).end(Buffer.from(await r.arrayBuffer()));
      });
      try {
        const res = await fetchDmarcRecords(query({ baseUrl: same.url }), FAST);
        assert.ok(res.records.length > 0);
        assert.equal(apiRequests().length, 1);
      } finally {
        await same.close();
      }
      fx.server.resetRequests();
      // Another port of the same machine is another server, maybe anyone's (issue 14).
      const port = await miniServer((req, res) => void res.writeHead(307, { location: `${fx.server.url}${req.url}` }).end());
      try {
        const e = await expectApiError(fetchDmarcRecords(query({ baseUrl: port.url }), FAST), 'not-found');
        assert.match(e.message, new RegExp(`redirected to 127\\.0\\.0\\.1:${fx.server.port}`));
        assert.equal(fx.server.requests.length, 0, 'the key never reached the other port');
      } finally {
        await port.close();
      }
      const other = await miniServer((req, res) => {
        res.writeHead(302, { location: `http://localhost:${fx.server.port}${req.url}` }).end();
      });
      try {
        const e = await expectApiError(fetchDmarcRecords(query({ baseUrl: other.url }), FAST), 'not-found');
        assert.match(e.message, /redirected to localhost/);
        assert.equal(fx.server.requests.length, 0, 'the key never reached the other host');
      } finally {
        await other.close();
      }
      const insecure = await miniServer((_req, res) => void res.writeHead(302, { location: 'http://api.example.com/x' }).end());
      try {
        await expectApiError(fetchDmarcRecords(query({ baseUrl: insecure.url }), FAST), 'insecure-url');
      } finally {
        await insecure.close();
      }
    });
  });

  describe('the API key stays secret', () => {
    const SECRET = 'sk_live_7Qx9Vb2Lm4Np8Rt6Zw3Yc1Kd';
    let echo: ApiServer;
    before(async () => {
      // This server quotes the Authorization header in its error bodies and HTML page.
      echo = await startApiServer({ now: NOW, keys: { [SECRET]: ['acme'] }, faults: { echoKey: true } });
    });
    after(() => echo.close());

    it('no error message, stack, inspected error or log line contains the key (or a piece of it)', async () => {
      const lines: string[] = [];
      const errors: ApiError[] = [];
      const opts = (o: ClientOptions = {}): ClientOptions => ({ ...FAST, log: (l) => lines.push(l), onRetry: (r) => lines.push(r.reason), ...o });
      const q = (over: Partial<RecordsQuery> = {}) => query({ baseUrl: echo.url, apiKey: SECRET, ...over });
      const scenarios: [ApiErrorKind, () => Promise<unknown>][] = [
        ['forbidden', () => fetchDmarcRecords(q({ organizationId: 'globex' }), opts())],
        ['bad-request', () => { echo.setFaults({ echoKey: true, error400: true }); return fetchDmarcRecords(q(), opts()); }],
        ['server', () => { echo.setFaults({ echoKey: true, error500: true }); return fetchDmarcRecords(q(), opts()); }],
        ['rate-limited', () => { echo.setFaults({ echoKey: true, rateLimit: true, retryAfter: '0' }); return fetchDmarcRecords(q(), opts()); }],
        ['network', () => { echo.setFaults({ echoKey: true, reset: true }); return fetchDmarcRecords(q(), opts()); }],
        ['timeout', () => { echo.setFaults({ echoKey: true, latencyMs: 300 }); return fetchDmarcRecords(q(), opts({ timeoutMs: 50 })); }],
        ['invalid-response', () => { echo.setFaults({ echoKey: true, htmlError: true }); return fetchDmarcRecords(q(), opts()); }],
        ['invalid-response', () => { echo.setFaults({ echoKey: true, truncate: true }); return fetchDmarcRecords(q(), opts()); }],
        ['insecure-url', () => fetchDmarcRecords(q({ baseUrl: 'http://api.example.com' }), opts())],
        ['forbidden', () => fetchDmarcRecords(q({ apiKey: `${SECRET}\nX-Evil: 1` }), opts())],
        ['cancelled', () => { const ac = new AbortController(); ac.abort(); return fetchDmarcRecords(q(), opts({ signal: ac.signal })); }],
      ];
      for (const [kind, run] of scenarios) errors.push(await expectApiError(run(), kind));
      // The echo really happened: the server's own bodies did contain the key.
      echo.setFaults({ echoKey: true, error400: true });
      const raw = await (await fetch(`${echo.url}/api/public/dmarc-records`, { headers: { authorization: `Bearer ${SECRET}` } })).text();
      assert.ok(raw.includes(SECRET));
      assert.ok(errors.some((e) => e.message.includes('[redacted]')), 'an echoed key was replaced');
      assert.ok(lines.length > 10);
      const pieces = [SECRET, SECRET.slice(0, 14), SECRET.slice(-14)];
      for (const e of errors) {
        for (const text of [e.message, String(e), e.stack ?? '', inspect(e, { depth: 5 }), JSON.stringify(e)]) {
          for (const p of pieces) assert.ok(!text.includes(p), `${e.kind} leaks the key: ${text}`);
        }
        assert.equal((e as { cause?: unknown }).cause, undefined);
      }
      for (const l of lines) for (const p of pieces) assert.ok(!l.includes(p), `log line leaks the key: ${l}`);
    });
  });
});
