// Shared by the schema tests (schema.test.ts, schemaRows.test.ts): a valid wire row and variants,
// and parseRecordsBody run both ways (in slices and in one go), which must agree.
import { strict as assert } from 'node:assert';
import { ApiError, parseRecordsBody, type FetchResult, type ParseOptions } from '../../src/api';

/** A valid row in the exact wire shape. */
export function row(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    source: 'Google Workspace',
    reporter: 'google.com',
    visibleFrom: 'acme.com',
    returnPath: 'acme.com',
    ipAddress: '209.85.220.41',
    ipCountryCode: 'US',
    rdns: ['mail-sor-f41.google.com'],
    emails: 12,
    category: 'authorized',
    date: '2025-06-10T00:00:00.000Z',
    dmarc: 'none',
    alignedSpf: 'pass',
    alignedDkim: 'pass',
    spf: 'pass',
    dkims: [{ selector: 'google', domain: 'acme.com', result: 'pass' }],
    from: 'acme.com',
    ...over,
  };
}

export function without(key: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const r = row(over);
  delete r[key];
  return r;
}

/**
 * parseRecordsBody both ways — in slices (as for large bodies) and with one JSON.parse (small
 * ones) — which must agree.
 */
export async function parseBody(text: string, contentType: string | null, options: ParseOptions = {}): Promise<FetchResult> {
  const sliced = await parseRecordsBody(text, contentType, { ...options, oneShotMaxChars: 0 });
  assert.deepStrictEqual(sliced, await parseRecordsBody(text, contentType, options));
  return sliced;
}

export const parse = (rows: unknown, contentType = 'application/json'): Promise<FetchResult> => parseBody(JSON.stringify(rows), contentType);

export async function invalidResponse(text: string, contentType: string | null): Promise<ApiError> {
  const errors: ApiError[] = [];
  for (const oneShotMaxChars of [0, undefined]) {
    try {
      await parseRecordsBody(text, contentType, { oneShotMaxChars });
      assert.fail(`accepted ${JSON.stringify(text.slice(0, 60))}`);
    } catch (e) {
      assert.ok(e instanceof ApiError, String(e));
      assert.equal(e.kind, 'invalid-response');
      errors.push(e);
    }
  }
  assert.equal(errors[0]!.message, errors[1]!.message, 'the same error in slices and in one go');
  return errors[0]!;
}

/** Runs `work`, counting the turns of the event loop it lets other work take meanwhile. */
export async function withTicks<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
  let ticks = 0;
  let running = true;
  const spin = (): void => {
    ticks++;
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { result: await work(), ticks };
  } finally {
    running = false;
  }
}
