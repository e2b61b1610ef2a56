// Hostile stored state, the webview's own (issue 14): what `getState()` gives back after a reload
// is whatever was saved, or a blob another version or a tampered profile left. readSavedState
// (media/webview/viewState.ts) must never throw on it, and the view it keeps must be one the
// host's own schema accepts (an independent judge of "valid").
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { readSavedState } from '../../../media/webview/viewState';
import { viewStateSchema } from '../../../src/shared/protocol';
import { COLUMNS, FACETS } from '../../../src/shared/columns';
import { lost, tried } from '../../hostile/figures';

const near = fc.oneof(fc.constantFrom<unknown>(null, undefined, -1, 1e308, NaN, Infinity, '', 'x'.repeat(5000), [], {}, [null], { length: 1e9 }, '__proto__'), fc.string(), fc.integer(), fc.double());
const view = fc.record(
  {
    hiddenColumns: fc.oneof(fc.array(fc.constantFrom<unknown>(...COLUMNS, 'nope', 5, null)), near),
    sort: fc.oneof(fc.record({ column: fc.constantFrom<unknown>(...COLUMNS, 'x', 1), descending: fc.constantFrom<unknown>(true, false, 'yes') }), near),
    search: near,
    facets: fc.oneof(fc.dictionary(fc.constantFrom(...FACETS, '__proto__', 'constructor'), fc.oneof(fc.array(near, { maxLength: 300 }), near)), near),
    scrollTop: near, focused: near,
    days: fc.oneof(fc.record({ startMs: near, endMs: near }), near),
    groupBy: fc.oneof(fc.constantFrom<unknown>('source', 'ipAddress', 'dkim', 'constructor'), near),
    thenBy: near,
    groups: fc.oneof(fc.array(fc.record({ field: fc.constantFrom<unknown>('source', 'dkim', 7), key: near }), { maxLength: 8 }), near),
  },
  { requiredKeys: [] },
);
const blob = fc.oneof(
  fc.anything({ maxDepth: 3 }),
  fc.record({ identity: fc.oneof(fc.anything({ maxDepth: 2 }), fc.record({ accountId: near, organizationId: near, start: near, end: near })), view: fc.oneof(view, near) }, { requiredKeys: [] }),
  fc.constant(JSON.parse('{"__proto__":{"view":{"search":"x"}},"view":{"constructor":{"prototype":{"polluted":1}},"facets":{"__proto__":["a"]}}}') as unknown),
);

describe('hostile: stored state, the webview\u2019s saved state', () => {
  it('readSavedState on generated blobs: never throws, keeps only a view the host\u2019s schema accepts', () => {
    fc.assert(
      fc.property(blob, (raw) => {
        tried('states');
        let got: ReturnType<typeof readSavedState>;
        try {
          got = readSavedState(raw);
        } catch (e) {
          lost('crashes', `webview state: ${String(e)}`);
          throw e;
        }
        if (got.view !== undefined) {
          const judged = viewStateSchema.safeParse(got.view);
          if (!judged.success) lost('crashes', `webview state kept an invalid view: ${judged.error.issues[0]?.message}`);
          assert.ok(judged.success, JSON.stringify(judged.error?.issues[0]));
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      }),
      { seed: 14, numRuns: 120 },
    );
  });
});
