// The API client over real HTTP against the local API server, when a request does not end well:
// timeouts, cancellation, and bodies that are not the API's JSON.
import { strict as assert } from 'node:assert';
import { fetchDmarcRecords, utcDayRange } from '../../src/api';
import { expectApiError, FAST, useApiServer } from './apiHelpers';

describe('api client over HTTP: timeouts, cancellation, invalid responses', () => {
  const fx = useApiServer();
  const { query, apiRequests } = fx;

  describe('timeout and cancellation', () => {
    it('timeout before the headers → timeout, not retried', async () => {
      fx.server.setFaults({ latencyMs: 600 });
      const t0 = Date.now();
      const e = await expectApiError(fetchDmarcRecords(query(), { ...FAST, timeoutMs: 100 }), 'timeout');
      assert.ok(Date.now() - t0 < 500);
      assert.match(e.message, /shorter range/);
      assert.equal(apiRequests().length, 1);
    });

    it('timeout while the body is still arriving → timeout', async () => {
      fx.server.setFaults({ bodyStallMs: 600 });
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, timeoutMs: 150 }), 'timeout');
    });

    it('an aborted signal cancels a request in flight at once', async () => {
      fx.server.setFaults({ latencyMs: 2000 });
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 50);
      const t0 = Date.now();
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, signal: ac.signal }), 'cancelled');
      assert.ok(Date.now() - t0 < 500);
    });

    it('cancels during a retry wait', async () => {
      fx.server.setFaults({ error500: true });
      const ac = new AbortController();
      const t0 = Date.now();
      const p = fetchDmarcRecords(query(), { ...FAST, retryBaseMs: 20_000, signal: ac.signal, onRetry: () => setTimeout(() => ac.abort(), 20) });
      await expectApiError(p, 'cancelled');
      assert.ok(Date.now() - t0 < 1000);
      assert.equal(apiRequests().length, 1);
    });

    it('an already aborted signal sends nothing', async () => {
      const ac = new AbortController();
      ac.abort();
      await expectApiError(fetchDmarcRecords(query(), { ...FAST, signal: ac.signal }), 'cancelled');
      assert.equal(fx.server.requests.length, 0);
    });
  });

  describe('invalid responses', () => {
    it('an HTML page with status 200 → invalid-response naming the type and quoting the start', async () => {
      fx.server.setFaults({ htmlError: true });
      const e = await expectApiError(fetchDmarcRecords(query(), FAST), 'invalid-response');
      assert.match(e.message, /text\/html/);
      assert.ok(e.message.includes('"<!DOCTYPE html><html><head><title>Unavailable'), e.message);
      assert.doesNotMatch(e.message, /JSON\.parse|Unexpected token|SyntaxError|at position|\n\s+at /);
      assert.equal(apiRequests().length, 1, 'not retried');
    });

    it('a truncated JSON body → invalid-response', async () => {
      fx.server.setFaults({ truncate: true });
      const e = await expectApiError(fetchDmarcRecords(query({ ...utcDayRange('2025-06-01', '2025-06-10') }), FAST), 'invalid-response');
      assert.match(e.message, /application\/json/);
      assert.match(e.message, /cut off/);
      assert.ok(e.message.includes('starts with "{\\"status\\"') || e.message.includes('starts with "{"status"'), e.message);
      assert.doesNotMatch(e.message, /JSON\.parse|Unexpected|SyntaxError/);
    });
  });
});
