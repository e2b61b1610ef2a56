import { strict as assert } from 'node:assert';
import type { DmarcRecord, FetchResult, Result } from '../../src/api/types';
import { RecordStore, type RecordScope } from '../../src/records/recordStore';
import { bySource, summarize } from '../../src/records/summary';
import { SummaryMemo } from '../../src/records/summaryMemo';

const DAY = 86_400_000;
const START = Date.UTC(2026, 9, 1);
const scope: RecordScope = { accountId: 'a', baseUrl: 'http://127.0.0.1:9', apiKey: 'k', organizationId: 'o' };

/** `n` rows spread over 30 days from START; `version` changes the email counts (a re-fetch). */
function rows(n: number, version = 0): DmarcRecord[] {
  const out: DmarcRecord[] = [];
  for (let i = 0; i < n; i++) {
    const dateMs = START + Math.floor((i / n) * 30 * DAY);
    const source = ['Google', 'Microsoft', 'Unknown', '__proto__'][i % 4]!;
    const ipAddress = `198.51.100.${i % 97}`;
    const alignedSpf: Result = i % 5 === 0 ? 'fail' : 'pass';
    const alignedDkim: Result = i % 3 === 0 ? 'fail' : 'pass';
    const emails = 1 + (i % 17) + version;
    const raw = { source, ipAddress, emails, date: new Date(dateMs).toISOString(), alignedSpf, alignedDkim };
    out.push({
      source, reporter: 'google.com', visibleFrom: 'example.com', returnPath: 'bounce.example.com', ipAddress,
      rdns: i % 7 ? [`mx${i % 5}.example.net`] : [], emails, category: i % 11 ? 'authorized' : 'rejected',
      date: raw.date, dateMs, dmarc: i % 13 ? 'none' : 'reject', alignedSpf, alignedDkim, spf: alignedSpf, dkims: [], raw,
    });
  }
  return out;
}

/** The real summary functions, counted. */
function counted() {
  const calls = { summarize: 0, bySource: 0 };
  const memo = new SummaryMemo({
    summarize: (r) => (calls.summarize++, summarize(r)),
    bySource: (r) => (calls.bySource++, bySource(r)),
  });
  return { calls, memo };
}

describe('records: SummaryMemo (tree summaries per held range)', () => {
  it('a second summary of the same array is not recomputed, and equals a fresh computation', () => {
    const { calls, memo } = counted();
    const records = rows(5_000);
    const s1 = memo.summary(records);
    const src1 = memo.sources(records);
    const s2 = memo.summary(records);
    const src2 = memo.sources(records);
    assert.deepEqual(calls, { summarize: 1, bySource: 1 });
    assert.equal(s2, s1);
    assert.equal(src2, src1);
    assert.deepEqual(s2, summarize(records));
    assert.deepEqual(src2, bySource(records));
    // Another array, even with equal contents, is another range: computed on its own.
    memo.summary([...records]);
    assert.equal(calls.summarize, 2);
  });

  it('with the store\u2019s peekRecords: computed once while the held data is unchanged, again after a refresh', async () => {
    let version = 0;
    let fetches = 0;
    const fetch = async (_s: RecordScope, start: Date, end: Date): Promise<FetchResult> => {
      fetches++;
      const records = rows(30_000, version).filter((r) => r.dateMs >= start.getTime() && r.dateMs <= end.getTime());
      return { records, warnings: [], rejected: { count: 0, samples: [] } };
    };
    const store = new RecordStore({ fetch, now: () => new Date(START + 400 * DAY) });
    const month = { start: new Date(START), end: new Date(START + 31 * DAY - 1) };
    const day = { start: new Date(START + 9 * DAY), end: new Date(START + 10 * DAY - 1) };
    await store.get(scope, month.start, month.end);
    const { calls, memo } = counted();
    // Tree re-renders: the month's summary and sources, and a day's summary under it, each time.
    const render = () => {
      const m = store.peekRecords(scope, month.start, month.end)!;
      const d = store.peekRecords(scope, day.start, day.end)!;
      return { summary: memo.summary(m), sources: memo.sources(m), day: memo.summary(d), rows: m };
    };
    const first = render();
    for (let i = 0; i < 5; i++) {
      const again = render();
      assert.equal(again.summary, first.summary);
      assert.equal(again.sources, first.sources);
      assert.equal(again.day, first.day);
    }
    assert.deepEqual(calls, { summarize: 2, bySource: 1 }, 'the month and the day once each, over six renders');
    assert.deepEqual(first.summary, summarize(first.rows));
    assert.equal(first.summary.rows, 30_000);

    // A refresh gives the store new data, so new arrays: the memo computes the new summaries.
    version = 1;
    await store.get(scope, month.start, month.end, { refresh: true });
    const fresh = render();
    assert.deepEqual(calls, { summarize: 4, bySource: 2 });
    assert.notDeepEqual(fresh.summary, first.summary);
    assert.deepEqual(fresh.summary, summarize(fresh.rows));
    assert.deepEqual(fresh.sources, bySource(fresh.rows));
    assert.equal(fetches, 2);
  });
});
