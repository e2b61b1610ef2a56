// The Overview's other pure parts: the webview's sort and wording (media/webview/overview/
// columns.ts, sparkline.ts's segments), the bounded runner of its requests (src/overview/
// bounded.ts) and its exports (src/export/overviewFormat.ts).
import { strict as assert } from 'node:assert';
import { eachBounded } from '../../src/overview/bounded';
import { FiguresMemo } from '../../src/overview/figuresMemo';
import { overviewFigures } from '../../src/overview/overviewRow';
import { DEFAULT_THRESHOLDS } from '../../src/advice/vocabulary';
import type { DmarcRecord } from '../../src/api/types';
import { OVERVIEW_CSV_COLUMNS, overviewToCsv, overviewToJson } from '../../src/export/overviewFormat';
import type { OverviewRow } from '../../src/shared/overviewProtocol';
import { columnInfo, deltaPassText, latestDaily, nextSort, OVERVIEW_COLUMNS, signedCount, sortRows, sortValue, type OverviewColumn } from '../../media/webview/overview/columns';
import { segments, sparklineLabel } from '../../media/webview/overview/sparkline';
import { Rng } from '../server/data';

type Figures = NonNullable<OverviewRow['figures']>;

function row(name: string, f?: Partial<Figures>, state: OverviewRow['state'] = f ? 'loaded' : 'loading'): OverviewRow {
  const figures: Figures = {
    emails: 10, passRate: 0.5, before: 8, passBefore: 0.4, deltaEmails: 2, deltaPass: 10, status: 'kept', needsFixing: 1, unauthenticated: 3,
    readiness: { kind: 'fix', label: 'Fix 1 source', text: 'Fix 1 source first.' }, daily: [0.5, null, 0.7], lastDay: '2026-11-16', ...f,
  };
  return { key: JSON.stringify(['a', name]), organizationId: name, name, account: 'Acct', reportFiles: false, state, ...(state === 'loaded' ? { figures } : {}), ...(state === 'error' ? { error: 'HTTP 403' } : {}) };
}

describe('overview: sorting and wording (webview, DOM-free)', () => {
  it('every column sorts, both ways; rows without figures stay last, failed after loading', () => {
    const r = new Rng(9);
    const steps = ['losing', 'fix', 'forwarded', 'quarantine', 'reject', 'enforced', 'no-mail'] as const;
    const rows = Array.from({ length: 60 }, (_, i) => {
      if (i % 13 === 0) return row(`e${i}`, undefined, 'error');
      if (i % 11 === 0) return row(`l${i}`);
      return row(`org${r.int(0, 30)}-${i}`, {
        emails: r.int(0, 1000), passRate: r.chance(0.1) ? null : r.next(), deltaEmails: r.int(-50, 50), deltaPass: r.chance(0.1) ? null : r.next() * 40 - 20,
        needsFixing: r.int(0, 4), unauthenticated: r.int(0, 100), readiness: { kind: r.pick(steps), label: '', text: '' },
        daily: [r.next(), r.chance(0.3) ? null : r.next()], lastDay: r.chance(0.1) ? null : `2026-11-${String(r.int(1, 16)).padStart(2, '0')}`,
      });
    });
    for (const column of OVERVIEW_COLUMNS) {
      for (const descending of [false, true]) {
        const sorted = sortRows(rows, { column, descending });
        assert.equal(sorted.length, rows.length);
        const groups = sorted.map((x) => (x.state === 'loaded' ? 0 : x.state === 'loading' ? 1 : 2));
        assert.deepEqual(groups, [...groups].sort(), `${column}: loaded, then loading, then failed`);
        const values = sorted.filter((x) => x.state === 'loaded').map((x) => sortValue(x, column));
        const defined = values.filter((v) => v !== undefined);
        assert.deepEqual(values.slice(defined.length), Array(values.length - defined.length).fill(undefined), `${column}: no value last`);
        for (let i = 1; i < defined.length; i++) {
          const ok = descending ? defined[i - 1]! >= defined[i]! : defined[i - 1]! <= defined[i]!;
          assert.ok(ok, `${column} ${descending ? 'desc' : 'asc'} at ${i}: ${defined[i - 1]} then ${defined[i]}`);
        }
      }
    }
  });

  it('readiness sorts what asks for action first; the trend by its latest day; a first click the worrying end', () => {
    const rows = (['reject', 'losing', 'no-mail', 'fix'] as const).map((kind) => row(kind, { readiness: { kind, label: kind, text: '' } }));
    assert.deepEqual(sortRows(rows, { column: 'readiness', descending: false }).map((x) => x.name), ['losing', 'fix', 'reject', 'no-mail']);
    assert.equal(latestDaily([0.2, 0.9, null]), 0.9);
    assert.equal(latestDaily([null, null]), undefined);
    const first = (c: OverviewColumn) => nextSort({ column: 'organization', descending: false }, c).descending;
    assert.deepEqual([first('pass'), first('deltaPass'), first('emails'), first('needsFixing'), first('lastDay')], [false, false, true, true, false]);
    assert.deepEqual(nextSort({ column: 'pass', descending: false }, 'pass'), { column: 'pass', descending: true }, 'the same column again: the other way');
    for (const c of OVERVIEW_COLUMNS) assert.ok(columnInfo()[c].label && columnInfo()[c].help, c);
  });

  it('changes read with their sign, in words for screen readers, and New / Gone without a rate', () => {
    assert.deepEqual([signedCount(1234), signedCount(-56), signedCount(0)], ['+1,234', '−56', '0']);
    const f = row('x', {}).figures!;
    assert.deepEqual(deltaPassText({ ...f, deltaPass: 3.24 }), { text: '+3.2 pts', label: 'Up 3.2 points', tone: 'pass' });
    assert.deepEqual(deltaPassText({ ...f, deltaPass: -36 }), { text: '−36.0 pts', label: 'Down 36.0 points', tone: 'fail' });
    assert.equal(deltaPassText({ ...f, deltaPass: 0.01 }).text, '0.0 pts');
    assert.equal(deltaPassText({ ...f, status: 'new', deltaPass: null }).text, 'New');
    assert.equal(deltaPassText({ ...f, status: 'gone', deltaPass: null }).text, 'Gone');
  });

  it('the sparkline breaks at days without mail and says what it draws', () => {
    assert.deepEqual(segments([0.5, 0.6, null, 0.9, null, null, 1, 0.2]), [[0, [0.5, 0.6]], [3, [0.9]], [6, [1, 0.2]]]);
    assert.deepEqual(segments([null, null]), []);
    const start = Date.UTC(2026, 10, 1);
    assert.equal(sparklineLabel([0.5, null, 0.25, 0.75], start), 'Daily DMARC pass from 50% on 2026-11-01 to 75% on 2026-11-04; lowest 25% on 2026-11-03');
    assert.equal(sparklineLabel([null], start), 'No day with emails');
  });
});

describe('overview: bounded requests (src/overview/bounded.ts)', () => {
  it('never more than the limit at once, every item once, in order; none started after an abort', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const items = Array.from({ length: 23 }, (_, i) => i);
    await eachBounded(items, 4, new AbortController().signal, async (i) => {
      started.push(i);
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, (i * 7) % 5));
      running--;
      if (i === 5) throw new Error('one fails, the others go on');
    });
    assert.equal(most, 4);
    assert.deepEqual(started, items);
    const ac = new AbortController();
    const seen: number[] = [];
    await eachBounded(items, 3, ac.signal, async (i) => {
      seen.push(i);
      if (i === 4) ac.abort();
      await new Promise((r) => setTimeout(r, 1));
    });
    assert.deepEqual(seen, [0, 1, 2, 3, 4], 'those under way finish; nothing new starts');
  });
});

describe('overview: figures memoised (src/overview/figuresMemo.ts)', () => {
  it('once per records array, period, thresholds and marks; the cached look never computes', () => {
    let computed = 0;
    const memo = new FiguresMemo((...args) => (computed++, overviewFigures(...args)));
    const records: DmarcRecord[] = [];
    const p30 = { start: new Date(Date.UTC(2026, 9, 18)), end: new Date(Date.UTC(2026, 10, 17) - 1) };
    const p7 = { start: new Date(Date.UTC(2026, 10, 10)), end: p30.end };
    const opts = { thresholds: { ...DEFAULT_THRESHOLDS } };
    assert.equal(memo.get(records, p30, opts, true), undefined, 'not computed yet');
    const a = memo.get(records, p30, opts);
    assert.equal(memo.get(records, p30, { thresholds: { ...DEFAULT_THRESHOLDS } }), a, 'equal thresholds: the same figures');
    assert.equal(memo.get(records, p30, opts, true), a);
    assert.equal(computed, 1);
    memo.get(records, p7, opts);
    assert.equal(memo.get(records, p30, opts), a, 'each period kept');
    memo.get(records, p30, { thresholds: { ...DEFAULT_THRESHOLDS, compliant: 0.9 } });
    const marks = new Map([['X', 'mine' as const]]);
    memo.get(records, p30, { ...opts, marks });
    assert.equal(memo.get(records, p30, { ...opts, marks }, true) !== undefined, true);
    memo.get([], p30, opts);
    assert.equal(computed, 5, 'another period, thresholds, marks or array: computed again');
  });
});

describe('overview: exports (src/export/overviewFormat.ts)', () => {
  const rows = [row('Acme, Inc.', { emails: 7601, passRate: 0.45 }), row('=cmd', undefined, 'error'), row('Later')];

  it('CSV: column names as words, one line per organization, formulas defused, failures say why', () => {
    const csv = overviewToCsv(rows);
    const lines = csv.split('\r\n');
    assert.equal(lines[0], 'Organization,Organization ID,Account,Emails,DMARC pass,Emails in the previous period,DMARC pass in the previous period,Change in emails,Change in DMARC pass (points),Sources needing fixing,Unauthenticated emails,Readiness,Last day with rows,Error');
    assert.equal(lines.length, rows.length + 2, 'a header, a line each, and the final line end');
    assert.equal(lines[1], '"Acme, Inc.","Acme, Inc.",Acct,7601,0.45,8,0.4,2,10,1,3,Fix 1 source,2026-11-16,');
    assert.equal(lines[2], "'=cmd,'=cmd,Acct,,,,,,,,,,,HTTP 403");
    assert.match(lines[3]!, /,Not loaded yet$/);
    assert.equal(OVERVIEW_CSV_COLUMNS.length, lines[0]!.split(',').length);
  });

  it('JSON: the period, every row with its daily rates, fractions and points as numbers', () => {
    const json = JSON.parse(overviewToJson('t', { start: 's', end: 'e', previousStart: 'ps', previousEnd: 'pe' }, rows)) as { overview: string; period: unknown; organizations: Record<string, unknown>[] };
    assert.equal(json.overview, 't');
    assert.deepEqual(json.period, { start: 's', end: 'e', previousStart: 'ps', previousEnd: 'pe' });
    assert.equal(json.organizations.length, 3);
    assert.deepEqual(json.organizations[0]!.dailyDmarcPass, [0.5, null, 0.7]);
    assert.equal(json.organizations[0]!.dmarcPass, 0.45);
    assert.equal(json.organizations[1]!.error, 'HTTP 403');
    assert.equal(json.organizations[1]!.emails, null);
  });
});
