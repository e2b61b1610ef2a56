// The panel's Compare (media/webview/data/previous.ts, compareGroups.ts, ui/comparePane.ts): the
// previous period's rows arrive as the host encodes them, go through the panel's filters, are
// grouped by the panel's own grouping code, and their Δ per group equal src/advice/compare.ts over
// a naive grouping of the same records, for two Group by fields with a filter on; new and gone
// groups; biggest drop first; the trend's previous line day for day; the export's columns.
import { strict as assert } from 'node:assert';
import { biggestDropFirst, compareSums, DAY_MS, sumsBy, type Change } from '../../src/advice/compare';
import type { DmarcRecord } from '../../src/api/types';
import { encodeRows } from '../../src/records/tuple';
import { decodeChunk } from '../../src/shared/rowCodec';
import type { GroupExportRow, ViewState, WebviewMessage } from '../../src/shared/protocol';
import { CodeMap, ComparedGroups } from '../../media/webview/data/compareGroups';
import { pointsText, signedCount, verdictMove } from '../../media/webview/data/changeText';
import { countGroups } from '../../media/webview/data/groups';
import { PreviousPeriod } from '../../media/webview/data/previous';
import { RecordsModel, type Query } from '../../media/webview/data/query';
import { computeTrend } from '../../media/webview/data/trend';
import { emptyViewState } from '../../media/webview/viewState';
import { ComparePane } from '../../media/webview/ui/comparePane';
import { groupsToCsv } from '../../src/export/format';
import { rec } from './adviceHelpers';
import { deflateRawSync } from 'node:zlib';

/** Resolves once `done` holds (checked every few ms, for at most 5 s). */
async function until(done: () => boolean): Promise<void> {
  for (const end = Date.now() + 5_000; !done(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > end) throw new Error('not settled within 5 s');
  }
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const START = Date.UTC(2026, 9, 8);
const END = START + 7 * DAY_MS - 1;
const PREV_START = START - 7 * DAY_MS;
const RESULTS = ['pass', 'fail', 'none'];
const ALL_SOURCES = ['Google', 'Mailchimp', 'SendGrid', 'NewSender', 'Unknown', 'GoneSender'];

/** Rows over one week from `from`, from `sources` (each with a few IPs), two Header From domains. */
function records(seed: number, n: number, from: number, sources: readonly string[]): DmarcRecord[] {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  return Array.from({ length: n }, () => {
    const source = pick(sources);
    const dateMs = from + Math.floor(r() * 7 * DAY_MS);
    return rec({
      source,
      ipAddress: `198.51.100.${ALL_SOURCES.indexOf(source) * 10 + Math.floor(r() * 4)}`,
      visibleFrom: pick(['acme.com', 'acme.com', 'other.org']),
      emails: r() < 0.05 ? 0 : 1 + Math.floor(r() * 200),
      alignedSpf: pick(RESULTS),
      alignedDkim: pick(RESULTS),
      dateMs,
      date: new Date(dateMs).toISOString(),
    });
  });
}

const NOW = records(1, 900, START, ['Google', 'Mailchimp', 'SendGrid', 'NewSender', 'Unknown']);
const BEFORE = records(2, 800, PREV_START, ['Google', 'Mailchimp', 'SendGrid', 'GoneSender', 'Unknown']);

function modelOf(rows: DmarcRecord[]): RecordsModel {
  const m = new RecordsModel();
  m.appendChunk(decodeChunk(encodeRows(rows, 0, rows.length)), rows.length);
  return m;
}

/** The previous period as the page gets it: the host's chunks of `size` rows, in order. */
function previousOf(rows: DmarcRecord[], size = 128): { prev: PreviousPeriod; posted: WebviewMessage[]; changes: number[] } {
  const posted: WebviewMessage[] = [];
  const changes: number[] = [];
  const prev = new PreviousPeriod((m) => posted.push(m), () => changes.push(prev.model.length));
  prev.setRange(START, END);
  prev.want();
  for (let offset = 0; offset < rows.length; offset += size) {
    const count = Math.min(size, rows.length - offset);
    prev.onRows({ load: 1, offset, count, total: rows.length, data: encodeRows(rows, offset, count), last: offset + count === rows.length });
  }
  return { prev, posted, changes };
}

const filter: Query = { search: '', facets: { visibleFrom: ['acme.com'] } };
const kept = (r: DmarcRecord): boolean => r.visibleFrom === 'acme.com';

describe('webview: Compare with the previous period', () => {
  it('asks the host once, takes the rows in order, and says when all are in', () => {
    const { prev, posted, changes } = previousOf(BEFORE);
    assert.deepEqual(posted, [{ type: 'compare' }]);
    assert.equal(prev.status, 'ready');
    assert.equal(prev.model.length, BEFORE.length);
    assert.deepEqual(changes, [BEFORE.length]);
    prev.want();
    assert.equal(posted.length, 1, 'no second request once asked');
    assert.deepEqual(prev.range, { startMs: PREV_START, endMs: START - 1 });
  });

  it('asks again from the first missing row when a chunk comes out of order, and after a failure', () => {
    const posted: WebviewMessage[] = [];
    const prev = new PreviousPeriod((m) => posted.push(m), () => undefined);
    prev.want();
    prev.onRows({ load: 3, offset: 0, count: 10, total: 30, data: encodeRows(BEFORE, 0, 10), last: false });
    prev.onRows({ load: 3, offset: 20, count: 10, total: 30, data: encodeRows(BEFORE, 20, 10), last: true });
    assert.deepEqual(posted.at(-1), { type: 'compareResend', load: 3, from: 10 });
    assert.equal(prev.model.length, 10);
    assert.equal(prev.status, 'loading');
    prev.onStatus('error', 'The server answered 500.');
    assert.equal(prev.status, 'error');
    assert.equal(prev.message, 'The server answered 500.');
    const asked = posted.length;
    prev.want();
    assert.equal(posted.length, asked, 'drawing the failure asks nothing (no loop of failing requests)');
    prev.want(true);
    assert.deepEqual(posted.at(-1), { type: 'compare' }, 'turned on anew, it asks again');
    assert.equal(prev.status, 'loading');
  });

  for (const field of ['source', 'ipAddress'] as const) {
    it(`Δ per ${field} with a filter on equal compare.ts over a naive grouping, new and gone included`, () => {
      const now = modelOf(NOW);
      const { prev } = previousOf(BEFORE);
      const nowTable = countGroups(now.compute(filter).order, now.store, now.fields.get(field));
      const beforeTable = countGroups(prev.view(filter).order, prev.model.store, prev.model.fields.get(field));
      const compared = new ComparedGroups(nowTable, beforeTable, (key) => prev.model.fields.find(field, key), new CodeMap().lookup((key) => now.fields.find(field, key), ''));
      // Each line's change, made when shown, is compare.ts's over every group.
      for (let k = 0; k < compared.count; k++) {
        const want = compareSums(sumsBy(NOW.filter(kept), (r) => r[field]), sumsBy(BEFORE.filter(kept), (r) => r[field])).get(compared.key(k));
        assert.deepEqual(compared.change(k), want, compared.key(k));
      }
      const expected = compareSums(sumsBy(NOW.filter(kept), (r) => r[field]), sumsBy(BEFORE.filter(kept), (r) => r[field]));
      assert.equal(compared.changes.size, expected.size);
      for (const [key, want] of expected) {
        const got = compared.changes.get(key);
        assert.ok(got, key);
        assert.equal(got.emails, want.emails, key);
        assert.equal(got.before, want.before, key);
        assert.equal(got.deltaEmails, want.deltaEmails, key);
        assert.equal(got.deltaPass, want.deltaPass, key);
        assert.equal(got.status, want.status, key);
      }
      const statuses = new Set([...expected.values()].map((c) => c.status));
      assert.ok(statuses.has('new') && statuses.has('gone'), 'the data has new and gone groups');
      // Gone groups have a line of their own, after this period's, with 0 emails now.
      const gone = [...expected.values()].filter((c) => c.status === 'gone' && c.emails === 0 && !NOW.some((r) => kept(r) && r[field] === c.key)).map((c) => c.key);
      assert.deepEqual([...compared.gone].sort(), gone.sort());
      assert.equal(compared.count, nowTable.count + gone.length);
      for (let k = nowTable.count; k < compared.count; k++) {
        assert.equal(compared.stats(k).emails, 0);
        assert.equal(compared.change(k).status, 'gone');
      }
      // Biggest drop first: compare.ts's order over every line.
      const order = Array.from(compared.sorted('deltaPass', true), (k) => compared.key(k));
      assert.deepEqual(order, [...expected.values()].sort(biggestDropFirst).map((c) => c.key));
      const rising = Array.from(compared.sorted('deltaEmails', true), (k) => compared.change(k).deltaEmails);
      assert.deepEqual(rising, [...rising].sort((a, b) => b - a));
    });
  }

  it('reads packed chunks (deflated by the host) in the order they came, and a chunk that cannot be read fails the period', async () => {
    const posted: WebviewMessage[] = [];
    const changes: string[] = [];
    const prev = new PreviousPeriod((m) => posted.push(m), () => changes.push(prev.status));
    prev.want();
    const packed = (from: number, to: number): Uint8Array => new Uint8Array(deflateRawSync(encodeRows(BEFORE, from, to - from), { level: 1 }));
    // A large packed chunk, then a small plain one: the plain one waits for it.
    prev.onRows({ load: 4, offset: 0, count: 100, total: 800, data: encodeRows(BEFORE, 0, 100), last: false });
    prev.onRows({ load: 4, offset: 100, count: 600, total: 800, data: packed(100, 700), last: false, packed: true });
    prev.onRows({ load: 4, offset: 700, count: 100, total: 800, data: encodeRows(BEFORE, 700, 100), last: true });
    assert.equal(prev.model.length, 100, 'the first read at once, the rest in their turn');
    assert.equal(prev.status, 'loading');
    await until(() => prev.status === 'ready');
    assert.equal(prev.model.length, BEFORE.length);
    for (let i = 0; i < BEFORE.length; i++) assert.equal(prev.model.store.cell(i, 'source'), BEFORE[i]!.source, `row ${i}`);
    assert.deepEqual(changes, ['ready']);
    // A chunk that does not inflate: no half period, the switch says why, the rest of that load is not read.
    prev.onRows({ load: 5, offset: 0, count: 100, total: 300, data: encodeRows(BEFORE, 0, 100), last: false });
    prev.onRows({ load: 5, offset: 100, count: 100, total: 300, data: new Uint8Array([1, 2, 3, 4, 5]), last: false, packed: true });
    prev.onRows({ load: 5, offset: 200, count: 100, total: 300, data: packed(200, 300), last: true, packed: true });
    await until(() => prev.status === 'error');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(prev.status, 'error');
    assert.match(prev.message, /^The rows could not be read: /);
    assert.equal(prev.model.length, 0);
    assert.deepEqual(posted, [{ type: 'compare' }], 'not asked again: it would fail again');
    // A new load reads again.
    prev.onRows({ load: 6, offset: 0, count: 200, total: 300, data: encodeRows(BEFORE, 0, 200), last: false });
    prev.onRows({ load: 6, offset: 200, count: 100, total: 300, data: packed(200, 300), last: true, packed: true });
    await until(() => prev.status === 'ready');
    assert.equal(prev.model.length, 300);
    assert.equal(prev.model.store.cell(299, 'ipAddress'), BEFORE[299]!.ipAddress);
  });

  it('reads the days chosen on the trend day for day in the previous period', () => {
    const { prev } = previousOf(BEFORE);
    const days = { startMs: START + DAY_MS, endMs: START + 3 * DAY_MS - 1 };
    const view = prev.view({ ...filter, days });
    const inDays = BEFORE.filter((r) => kept(r) && r.dateMs >= days.startMs - 7 * DAY_MS && r.dateMs <= days.endMs - 7 * DAY_MS);
    assert.equal(view.order.length, inDays.length);
    assert.ok(inDays.length > 0 && inDays.length < BEFORE.filter(kept).length);
  });

  it('draws the previous period under this one day for day: emails, or the pass rate for shares', () => {
    const now = modelOf(NOW);
    const { prev } = previousOf(BEFORE);
    const trend = computeTrend(now.compute(filter).trendRows, now.store, { startMs: START, endMs: END });
    assert.equal(trend.unit, 'day');
    const rows = prev.view(filter).trendRows;
    const emails = prev.line(rows, trend, false);
    const rates = prev.line(rows, trend, true);
    for (let d = 0; d < 7; d++) {
      const day = BEFORE.filter((r) => kept(r) && Math.floor((r.dateMs - PREV_START) / DAY_MS) === d);
      const total = day.reduce((a, r) => a + r.emails, 0);
      const passing = day.filter((r) => r.alignedSpf === 'pass' || r.alignedDkim === 'pass').reduce((a, r) => a + r.emails, 0);
      assert.equal(emails[d], total, `day ${d + 1}`);
      assert.equal(rates[d], total > 0 ? (passing / total) * 100 : null);
    }
  });

  it('exports every group with its change, gone groups included, in the order of a change sort', () => {
    const now = modelOf(NOW);
    const toggles: string[] = [];
    const pane = new ComparePane(now, () => undefined, () => undefined, { setRange: () => undefined, update: (on, status) => void toggles.push(`${on} ${status}`) });
    pane.setRange(START, END);
    const state: ViewState = { ...emptyViewState(), compare: true, facets: { visibleFrom: ['acme.com'] } };
    pane.update(state);
    for (let offset = 0; offset < BEFORE.length; offset += 200) {
      const count = Math.min(200, BEFORE.length - offset);
      pane.previous.onRows({ load: 1, offset, count, total: BEFORE.length, data: encodeRows(BEFORE, offset, count), last: offset + count === BEFORE.length });
    }
    assert.ok(pane.shown(state));
    assert.deepEqual(toggles, ['true loading']);
    const table = countGroups(now.compute(filter).order, now.store, now.fields.get('source'));
    const plain: GroupExportRow[] = [];
    for (let k = 0; k < table.count; k++) {
      const g = table.stats(k);
      plain.push({ group: g.key, rows: g.rows, emails: g.emails, share: null, dmarcPass: null, alignedSpf: null, alignedDkim: null, delivered: 0, quarantined: 0, rejected: 0, first: '', last: '' });
      plain.push({ group: g.key, subgroup: 'x', rows: 1, emails: 1, share: null, dmarcPass: null, alignedSpf: null, alignedDkim: null, delivered: 0, quarantined: 0, rejected: 0, first: '', last: '' });
    }
    const out = pane.exportRows(state, plain, table, 'source', { by: 'deltaPass', descending: true });
    const expected = compareSums(sumsBy(NOW.filter(kept), (r) => r.source), sumsBy(BEFORE.filter(kept), (r) => r.source));
    const level0 = out.filter((r) => r.subgroup === undefined);
    assert.deepEqual(level0.map((r) => r.group), [...expected.values()].sort(biggestDropFirst).map((c) => c.key));
    for (const r of level0) {
      const c = expected.get(r.group)!;
      assert.equal(r.deltaEmails, c.deltaEmails);
      assert.equal(r.emailsBefore, c.before);
      assert.equal(r.deltaPass, c.deltaPass ?? null);
      assert.equal(r.change, c.status);
    }
    assert.equal(out.find((r) => r.group === 'GoneSender')?.emails, 0);
    assert.equal(out.find((r) => r.group === 'GoneSender')?.change, 'gone');
    // Each subgroup right after its group.
    out.forEach((r, i) => r.subgroup !== undefined && assert.equal(out[i - 1]!.group, r.group));
    // The CSV carries the change's columns (only when compared).
    const csv = groupsToCsv(out).split('\r\n');
    assert.match(csv[0]!, /,Emails before,Δ Emails,Δ DMARC pass \(points\),Change,Verdict before$/);
    assert.match(csv.find((l) => l.startsWith('GoneSender,'))!, /^GoneSender,,0,0,0,,,,,0,0,0,,,(\d+),-\1,,gone,\w*$/);
    assert.doesNotMatch(groupsToCsv(plain).split('\r\n')[0]!, /Emails before/);
  });

  it('writes the changes as the table shows them', () => {
    const fmt = (n: number) => n.toLocaleString('en-US');
    assert.equal(signedCount(1234, fmt), '+1,234');
    assert.equal(signedCount(-56, fmt), '\u221256');
    assert.equal(signedCount(0, fmt), '0');
    assert.equal(pointsText(4.14), '▲4.1');
    assert.equal(pointsText(-12), '▼12.0');
    assert.equal(pointsText(0.04), '±0.0');
    assert.equal(pointsText(undefined), '');
    const moved: Change = { key: 'x', emails: 1, before: 1, deltaEmails: 0, passNow: 0.5, passBefore: 1, deltaPass: -50, status: 'kept', verdictNow: 'needs-fixing', verdictBefore: 'compliant' };
    assert.equal(verdictMove(moved), 'Compliant → Needs fixing');
    assert.equal(verdictMove({ ...moved, verdictBefore: 'needs-fixing' }), undefined);
    assert.equal(verdictMove({ ...moved, verdictBefore: undefined }), undefined);
  });
});
