// Shared by the API client's HTTP tests (api.test.ts, apiSafety.test.ts): the local API server
// on loopback, a query for one of its days, and a tiny server for what it never produces.
import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { ApiError, utcDayRange, type ApiErrorKind, type ClientOptions, type RecordsQuery } from '../../src/api';
import { DAY_MS, ORGANIZATIONS } from '../server/data';
import { startApiServer, type ApiServer } from '../server/server';

export const NOW = new Date('2025-06-15T12:00:00Z');
export const DAY = '2025-06-10';
export const DAY_INDEX = Date.parse(DAY) / DAY_MS;
export const KEY = 'demo-key-5f2c8e7a91d4b036';
export const ACME = ORGANIZATIONS.find((o) => o.id === 'acme')!;
/** Small retry delays keep the suite fast. */
export const FAST: ClientOptions = { retryBaseMs: 5, timeoutMs: 5000 };

export async function expectApiError(p: Promise<unknown>, kind: ApiErrorKind): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${inspect(e)}`);
    assert.equal(e.kind, kind, `kind ${e.kind}: ${e.message}`);
    assert.ok(e.message.length > 0 && e.message.length < 400, 'a short message');
    return e;
  }
  assert.fail(`expected an ApiError of kind ${kind}`);
}

/** A tiny HTTP server for the few cases the API server has no reason to produce (redirects). */
export async function miniServer(handler: http.RequestListener): Promise<{ url: string; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const s = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((r) => { s.close(() => r()); s.closeAllConnections(); }),
  };
}

/**
 * The local API server for the enclosing describe (started before, closed after, faults and
 * request log reset before each test), a query for DAY, and the API requests it received.
 */
export function useApiServer(): { server: ApiServer; query: (over?: Partial<RecordsQuery>) => RecordsQuery; apiRequests: () => ApiServer['requests'] } {
  const fx = {
    server: undefined as unknown as ApiServer,
    query: (over: Partial<RecordsQuery> = {}): RecordsQuery => ({ baseUrl: fx.server.url, apiKey: KEY, organizationId: 'acme', ...utcDayRange(DAY), ...over }),
    apiRequests: () => fx.server.requests.filter((r) => r.path.endsWith('/api/public/dmarc-records')),
  };
  before(async () => {
    fx.server = await startApiServer({ now: NOW });
  });
  after(() => fx.server.close());
  beforeEach(() => {
    fx.server.setFaults({});
    fx.server.resetRequests();
  });
  return fx;
}
