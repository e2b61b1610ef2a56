// The panel's saved view state and column layout, checked by hand in the webview
// (media/webview/viewState.ts): each field's bounds kept exactly, just past them dropped.
import { strict as assert } from 'node:assert';
import { COLUMNS } from '../../src/shared/columns';
import { emptyViewState, nextSort, orderedColumns, readSavedState, sameIdentity, sanitizeLayout, sanitizeViewState, startingView, toggledFacet } from '../../media/webview/viewState';

const only = (raw: Record<string, unknown>) => sanitizeViewState(raw);

describe('webview view state: each field at its bounds', () => {
  it('search up to 1,000 characters; facets up to 100 distinct keys of up to 200 characters', () => {
    assert.equal(only({ search: 's'.repeat(1000) }).search.length, 1000);
    assert.equal(only({ search: 's'.repeat(1001) }).search, 's'.repeat(1000));
    const keys = Array.from({ length: 120 }, (_, i) => `k${i}`);
    assert.deepEqual(only({ facets: { source: [...keys, 'k0'] } }).facets, { source: keys.slice(0, 100) });
    assert.deepEqual(only({ facets: { source: ['x'.repeat(200), 'y'.repeat(201)] } }).facets, { source: ['x'.repeat(200)] });
    assert.deepEqual(only({ facets: { source: [1, null], reporter: ['r'] } }).facets, { reporter: ['r'] });
    assert.deepEqual(only({ facets: 'source' }).facets, {});
  });

  it('scrollTop from 0; focused a whole number from 0 to 50,000,000', () => {
    assert.equal(only({ scrollTop: 0 }).scrollTop, 0);
    assert.equal(only({ scrollTop: -0.5 }).scrollTop, 0);
    assert.equal(only({ scrollTop: Number.POSITIVE_INFINITY }).scrollTop, 0);
    assert.equal(only({ scrollTop: '5' }).scrollTop, 0);
    assert.equal(only({ focused: 0 }).focused, 0);
    assert.equal(only({ focused: 50_000_000 }).focused, 50_000_000);
    for (const focused of [50_000_001, -1, 2.5, '3']) assert.equal(only({ focused }).focused, undefined, String(focused));
  });

  it('a sort needs a known column and a boolean direction; else the default, most emails first', () => {
    assert.deepEqual(only({ sort: { column: 'emails', descending: false } }).sort, { column: 'emails', descending: false });
    assert.deepEqual(only({ sort: { column: 'date', descending: true } }).sort, { column: 'date', descending: true });
    const emailsFirst = { column: 'emails', descending: true };
    assert.deepEqual(only({ sort: { column: 'date', descending: 'yes' } }).sort, emailsFirst);
    assert.deepEqual(only({ sort: { column: 'bogus', descending: false } }).sort, emailsFirst);
    assert.deepEqual(only({ sort: 'date' }).sort, emailsFirst);
  });

  it('days: finite bounds, start not after end', () => {
    assert.deepEqual(only({ days: { startMs: 5, endMs: 5 } }).days, { startMs: 5, endMs: 5 });
    assert.deepEqual(only({ days: { startMs: 1, endMs: 9 } }).days, { startMs: 1, endMs: 9 });
    for (const days of [{ startMs: 6, endMs: 5 }, { startMs: Number.NaN, endMs: 5 }, { startMs: 1, endMs: Number.POSITIVE_INFINITY }, { startMs: '1', endMs: 5 }, 7]) {
      assert.equal(only({ days }).days, undefined, JSON.stringify(days));
    }
  });

  it('group by a known field (not DKIM as a whole); then by another one, only under a group-by', () => {
    assert.equal(only({ groupBy: 'source' }).groupBy, 'source');
    assert.equal(only({ groupBy: 'dkim' }).groupBy, undefined);
    assert.equal(only({ groupBy: 'nope' }).groupBy, undefined);
    assert.equal(only({ groupBy: 'extra:policy' }).groupBy, 'extra:policy');
    assert.deepEqual([only({ groupBy: 'source', thenBy: 'ipAddress' }).thenBy], ['ipAddress']);
    assert.equal(only({ groupBy: 'source', thenBy: 'source' }).thenBy, undefined);
    assert.equal(only({ groupBy: 'source', thenBy: 'dkim' }).thenBy, undefined);
    assert.equal(only({ thenBy: 'ipAddress' }).thenBy, undefined);
  });

  it('up to four chosen groups, each a known field and a key of up to 2,000 characters', () => {
    const g = (field: string, key: string) => ({ field, key });
    assert.deepEqual(only({ groups: [g('source', 'A'), g('dkim', 'x'), g('nope', 'y'), g('ipAddress', 'k'.repeat(2000)), g('reporter', 'k'.repeat(2001)), g('to', 'late')] }).groups, [
      g('source', 'A'), g('ipAddress', 'k'.repeat(2000)),
    ]);
    assert.deepEqual(only({ groups: [g('source', 'a'), g('source', 'b'), g('source', 'c'), g('source', 'd'), g('source', 'e')] }).groups.map((x) => x.key), ['a', 'b', 'c', 'd']);
    assert.deepEqual(only({ groups: [null, g('source', 5 as unknown as string)] }).groups, []);
  });

  it('the trend split, share, facet weight and the two panes’ open state', () => {
    const v = only({ trendSplit: 'group', share: true, facetWeight: 'rows', detailOpen: false, facetsOpen: false });
    assert.deepEqual([v.trendSplit, v.share, v.facetWeight, v.detailOpen, v.facetsOpen], ['group', true, 'rows', false, false]);
    assert.equal(only({ facetWeight: 'emails' }).facetWeight, 'emails');
    const bad = only({ trendSplit: 'nope', share: 'yes', facetWeight: 'bytes', detailOpen: 1, facetsOpen: 0 });
    assert.deepEqual(bad, emptyViewState());
  });

  it('a saved state: the identity object as given, the view sanitised, each only when present', () => {
    const identity = { accountId: 'a', organizationId: 'o', start: '2026-01-01', end: '2026-01-31' };
    assert.deepEqual(readSavedState({ identity, view: { search: 'q' } }), { identity, view: { ...emptyViewState(), search: 'q' } });
    assert.deepEqual(readSavedState({ identity: 'x', view: undefined }), {});
    assert.deepEqual(readSavedState({ view: null }), { view: emptyViewState() });
    assert.ok(sameIdentity({ ...identity, source: undefined }, { ...identity }));
    assert.ok(!sameIdentity(identity, { ...identity, accountId: 'b' }));
    assert.ok(!sameIdentity(identity, { ...identity, organizationId: 'p' }));
    assert.ok(!sameIdentity(identity, { ...identity, start: 'x' }));
    assert.ok(!sameIdentity(identity, { ...identity, end: 'x' }));
    assert.ok(!sameIdentity(undefined, identity));
  });
});

describe('webview column layout', () => {
  it('keeps known columns once each, hides all but one at most, widths whole from 40 to 2,000 px', () => {
    assert.deepEqual(sanitizeLayout({ order: ['emails', 'x', 'emails', 'source'], hidden: ['date', 'date', 'nope'], widths: { source: 40, emails: 2000, date: 39, rdns: 2001, dkim: 55.5, spf: '90', bogus: 100 } }), {
      order: ['emails', 'source'], hidden: ['date'], widths: { source: 40, emails: 2000 },
    });
    assert.deepEqual(sanitizeLayout({ hidden: [...COLUMNS] }).hidden, COLUMNS.slice(0, COLUMNS.length - 1));
    assert.deepEqual(sanitizeLayout(null), { order: [], widths: {}, hidden: [] });
    assert.deepEqual(sanitizeLayout({ order: 'emails', hidden: 'date', widths: 5 }), { order: [], widths: {}, hidden: [] });
  });

  it('orders columns as saved, each column the layout lacks after its default predecessor', () => {
    assert.deepEqual(orderedColumns({ order: [], widths: {}, hidden: [] }), [...COLUMNS]);
    assert.deepEqual(orderedColumns({ order: [...COLUMNS], widths: {}, hidden: [] }), [...COLUMNS]);
    const moved = orderedColumns({ order: ['emails', 'source', 'date'], widths: {}, hidden: [] });
    assert.deepEqual(moved.slice(0, 6), ['emails', 'dmarcResult', 'alignedSpf', 'alignedDkim', 'dmarc', 'source']);
    assert.deepEqual(moved, ['emails', 'dmarcResult', 'alignedSpf', 'alignedDkim', 'dmarc', 'source', 'ipAddress', 'date', ...COLUMNS.slice(8)]);
    assert.equal(new Set(moved).size, COLUMNS.length);
    // The first default column, when the layout lacks it, goes first.
    assert.deepEqual(orderedColumns({ order: ['date'], widths: {}, hidden: [] }).slice(0, 2), ['source', 'ipAddress']);
  });
});

describe('webview view state transitions', () => {
  const identity = { accountId: 'a', organizationId: 'o', start: '2026-11-01T00:00:00.000Z', end: '2026-11-07T23:59:59.999Z' };
  it('starts from the view VS Code kept for the same range, else the host\u2019s, else empty with the opening search', () => {
    const kept = { identity, view: { ...emptyViewState(), search: 'kept' } };
    assert.equal(startingView(kept, { identity, state: { ...emptyViewState(), search: 'host' } }).search, 'kept');
    const other = { ...identity, start: '2026-10-01T00:00:00.000Z' };
    assert.equal(startingView(kept, { identity: other, state: { ...emptyViewState(), search: 'host' } }).search, 'host');
    assert.equal(startingView(undefined, { identity, initialSearch: 'google' }).search, 'google');
    assert.equal(startingView(undefined, { identity, initialSearch: 'x'.repeat(5000) }).search.length, 1000);
    assert.deepStrictEqual(startingView(null, { identity }), emptyViewState());
  });

  it('a new panel opens sorted by Emails, biggest first; the user\u2019s own sort, kept or sent by the host, stays (issue 43)', () => {
    const emailsFirst = { column: 'emails', descending: true };
    assert.deepEqual(startingView(undefined, { identity }).sort, emailsFirst);
    assert.deepEqual(startingView(undefined, { identity, initialSearch: 'google', initialClasses: ['forwarded'] }).sort, emailsFirst);
    const byDate = { column: 'date', descending: false };
    assert.deepEqual(startingView({ identity, view: { search: '', sort: byDate } }, { identity }).sort, byDate);
    assert.deepEqual(startingView(undefined, { identity, state: { search: '', sort: { column: 'source', descending: true } } }).sort, { column: 'source', descending: true });
    // A state saved before there was a default (no sort of the user's): Emails too.
    assert.deepEqual(startingView({ identity, view: { search: 'kept' } }, { identity }).sort, emailsFirst);
  });

  it('a panel opened from a Health source starts filtered to its classes (labels, as the rows carry them); anything else is dropped', () => {
    assert.deepEqual(startingView(undefined, { identity, initialClasses: ['needs-fixing', 'unauthenticated'] }).facets, { rowClass: ['Needs fixing', 'Unauthenticated'] });
    assert.deepEqual(startingView(undefined, { identity, initialClasses: ['spf-aligned-pass', 42, '__proto__'] }).facets, {});
    assert.deepEqual(startingView(undefined, { identity, initialClasses: 'compliant' }).facets, {});
    // A view kept for the same range wins (the user may have cleared the filter since).
    const kept = { identity, view: emptyViewState() };
    assert.deepEqual(startingView(kept, { identity, initialClasses: ['forwarded'] }).facets, {});
  });

  it('a header click reverses the sorted column, and sorts another biggest first only when numeric', () => {
    assert.deepStrictEqual(nextSort(undefined, 'emails', true), { column: 'emails', descending: true });
    assert.deepStrictEqual(nextSort({ column: 'emails', descending: true }, 'emails', true), { column: 'emails', descending: false });
    assert.deepStrictEqual(nextSort({ column: 'emails', descending: true }, 'source', false), { column: 'source', descending: false });
  });

  it('toggles one facet value, leaving the others', () => {
    const f = toggledFacet({ source: ['a'], reporter: ['r'] }, 'source', 'b');
    assert.deepStrictEqual(f, { source: ['a', 'b'], reporter: ['r'] });
    assert.deepStrictEqual(toggledFacet(f, 'source', 'a'), { source: ['b'], reporter: ['r'] });
    assert.deepStrictEqual(toggledFacet({}, 'dmarc', 'reject'), { dmarc: ['reject'] });
  });
});
