// describeApiError: the one wording of a failed request, used alike by notifications, tree error
// items and the records panel (the suite checks the surfaces; this checks the wording).
import { strict as assert } from 'node:assert';
import { ApiError, describeApiError, fetchDmarcRecords, toApiError, type ApiErrorKind } from '../../src/api';
import { startApiServer } from '../server/server';

/** Every kind; a Record so a new kind fails to compile here until it is described. */
const KINDS: Record<ApiErrorKind, true> = {
  'bad-request': true, forbidden: true, 'not-found': true, 'rate-limited': true, server: true,
  network: true, timeout: true, cancelled: true, 'invalid-response': true, 'insecure-url': true,
};

describe('api: one wording for every failure', () => {
  it('an ApiError of every kind reads as its own sentence, unchanged', () => {
    for (const kind of Object.keys(KINDS) as ApiErrorKind[]) {
      const e = new ApiError(kind, `Sentence for ${kind}.`, { status: 499 });
      assert.equal(describeApiError(e), `Sentence for ${kind}.`);
      assert.equal(toApiError(e), e, 'an ApiError stays itself');
    }
  });

  it('anything else reads as an unexpected error, of kind network', () => {
    assert.equal(describeApiError(new TypeError('boom')), 'Unexpected error: boom');
    assert.equal(describeApiError('text'), 'Unexpected error: text');
    assert.equal(toApiError(undefined).kind, 'network');
  });

  it('the statuses a server sends read "(HTTP n)", the same form for each (over HTTP)', async () => {
    const server = await startApiServer({ keys: { 'errors-key-1234': ['org-e'] } });
    try {
      const base = { baseUrl: server.url, apiKey: 'errors-key-1234', organizationId: 'org-e', startDate: '2025-06-10', endDate: '2025-06-10' };
      const fail = async (over: object, faults: object = {}): Promise<string> => {
        server.setFaults(faults);
        try {
          await fetchDmarcRecords({ ...base, ...over }, { retries: 0, timeoutMs: 5000 });
        } catch (e) {
          return describeApiError(e);
        }
        throw new Error('expected a failure');
      };
      assert.match(await fail({ organizationId: 'acmee' }), /^The API key was refused, or it has no access to organization "acmee" \(HTTP 403\)\. Check the key and the organization ID\.$/);
      assert.match(await fail({ apiKey: 'wrong-key-5678' }), /\(HTTP 403\)/);
      assert.match(await fail({ baseUrl: `${server.url}/nope` }), /\(HTTP 404\)/);
      assert.match(await fail({}, { error500: true }), /^The server had a problem \(HTTP 500\)\. Try again later\.$/);
    } finally {
      await server.close();
    }
  });
});
