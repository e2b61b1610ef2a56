import { strict as assert } from 'node:assert';
import type { Frame } from 'playwright-core';
import { presetRange } from '../../src/records/dateInput';
import { startApiServer, type ApiServer } from '../server/server';
import { addAccount, choose, cspViolations, findWebviewFrame, openDmarcView, openWorkbench, runCommand, waitForPanelReady, type Workbench } from './harness';

const KEY = 'ui-compare-key-7731';
const ORG = 'org-ui-compare';
const DAY = 86_400_000;

interface WireRow { source: string; emails: number; date: string; alignedSpf: string; alignedDkim: string }

const num = (text: string): number => Number(text.replace(/[^\d.]/g, ''));
/** Δ emails as the table writes it: +1,234, −56 (a true minus), 0. */
const signed = (n: number): string => (n > 0 ? `+${n.toLocaleString('en-US')}` : n < 0 ? `\u2212${(-n).toLocaleString('en-US')}` : '0');
const points = (p: number | undefined): string => {
  if (p === undefined) return '';
  const shown = Math.round(Math.abs(p) * 10) / 10;
  return shown === 0 ? '±0.0' : `${p > 0 ? '▲' : '▼'}${shown.toFixed(1)}`;
};

interface Naive { key: string; emails: number; before: number; passNow?: number; passBefore?: number; deltaPass?: number }

/** Per source, the obvious way: emails and pass rate in each period. */
function naive(now: WireRow[], before: WireRow[]): Naive[] {
  const sums = (rows: WireRow[]) => {
    const m = new Map<string, { e: number; p: number }>();
    for (const r of rows) {
      const s = m.get(r.source) ?? { e: 0, p: 0 };
      s.e += r.emails;
      if (r.alignedSpf === 'pass' || r.alignedDkim === 'pass') s.p += r.emails;
      m.set(r.source, s);
    }
    return m;
  };
  const a = sums(now);
  const b = sums(before);
  return [...new Set([...a.keys(), ...b.keys()])].map((key) => {
    const n = a.get(key);
    const p = b.get(key);
    const passNow = n && n.e > 0 ? n.p / n.e : undefined;
    const passBefore = p && p.e > 0 ? p.p / p.e : undefined;
    return { key, emails: n?.e ?? 0, before: p?.e ?? 0, passNow, passBefore, ...(passNow !== undefined && passBefore !== undefined ? { deltaPass: (passNow - passBefore) * 100 } : {}) };
  });
}

describe('records panel Compare in the browser: Δ columns, biggest drop first, the previous line', () => {
  let wb: Workbench;
  let server: ApiServer;
  let frame: Frame;
  const frames = new Set<Frame>();
  let now: WireRow[] = [];
  let earlier: WireRow[] = [];
  const range = presetRange('last7', new Date());
  const prevStart = new Date(range.start.getTime() - (range.end.getTime() - range.start.getTime() + 1));
  const prevEnd = new Date(range.start.getTime() - 1);

  async function wireRows(start: Date, end: Date): Promise<WireRow[]> {
    const url = new URL('/api/public/dmarc-records', server.url);
    url.searchParams.set('organizationId', ORG);
    url.searchParams.set('startDate', start.toISOString());
    url.searchParams.set('endDate', end.toISOString());
    return ((await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as { dmarcRecords: WireRow[] }).dmarcRecords;
  }

  async function openPanel(label: string): Promise<Frame> {
    await runCommand(wb.page, 'DMARC: Fetch Records for Date Range…');
    await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Fetch Records of Compare Org: range' }).waitFor({ state: 'visible' });
    await choose(wb.page, label);
    const f = await findWebviewFrame(wb.page, '[data-testid="records-panel"]', 60_000, frames);
    await waitForPanelReady(f);
    frames.add(f);
    return f;
  }

  /** Requests the extension sent for the records since `since` (the test's own fetches come before it). */
  const recordRequests = (since: number) => server.requests.filter((r) => r.at >= since && r.path.endsWith('/dmarc-records'));

  before(async () => {
    // 400 a day: the previous period comes in more than one chunk, all but the first deflated (src/panel/previousRows.ts).
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 400 });
    now = await wireRows(range.start, range.end);
    earlier = await wireRows(prevStart, prevEnd);
    assert.ok(earlier.length > 2_250, `${earlier.length} rows before: three chunks or more`);
    wb = await openWorkbench({ userSettings: { 'workbench.colorTheme': 'Default Light Modern' } });
    await openDmarcView(wb.page);
    await addAccount(wb.page, { label: 'Compare', baseUrl: server.url, key: KEY, orgId: ORG, orgName: 'Compare Org' });
    frame = await openPanel('Last 7 days');
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'passed') {
      for (const f of frames) if (!f.isDetached()) assert.deepEqual(await cspViolations(f), [], 'CSP violations in the panel');
    }
    if (this.currentTest?.state === 'failed') await wb?.screenshot(`FAILED-compare-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  it('turns on from the keyboard, fetches the previous period once, and adds Δ columns with the right figures', async () => {
    await frame.getByLabel('Group by', { exact: true }).selectOption('source');
    const grid = frame.getByRole('grid', { name: 'Groups' });
    const lines = grid.locator('.groups-line.level-0');
    await lines.first().waitFor();
    const toggle = frame.locator('[data-testid="compare-toggle"]');
    const day = (d: Date) => d.toISOString().slice(0, 10);
    assert.equal(await toggle.getAttribute('title'), `Compare with the previous period of equal length (${day(prevStart)} – ${day(prevEnd)})`);
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    assert.equal(await grid.locator('[role="columnheader"][data-column="deltaEmails"]').isVisible(), false);
    const since = Date.now();
    await toggle.focus();
    await wb.page.keyboard.press('Space');
    await grid.locator('[role="columnheader"][data-column="deltaPass"]').waitFor({ state: 'visible' });
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    const asked = recordRequests(since);
    assert.equal(asked.length, 1, 'one request for the previous period');
    assert.equal(Date.parse(asked[0]!.query.startDate!), prevStart.getTime());

    const expected = naive(now, earlier);
    assert.equal(await grid.getAttribute('aria-rowcount'), String(expected.length + 1), 'a line per source of either period');
    const top = expected.filter((e) => e.emails > 0).sort((a, b) => b.emails - a.emails)[0]!;
    const first = lines.first();
    assert.equal(await first.getAttribute('data-key'), top.key);
    // Group, Rows, Emails, Δ Emails, Share, DMARC, Δ DMARC, SPF, DKIM, Verdict, Change, …
    const cells = await first.locator('[role="gridcell"]').allInnerTexts();
    assert.equal(num(cells[2]!), top.emails);
    assert.equal(cells[3], signed(top.emails - top.before), 'Δ emails');
    assert.equal(cells[6], points(top.deltaPass), 'Δ DMARC pass in points');
    assert.equal(cells[10], top.before === 0 ? 'New' : '', 'the New/Gone badge');
    // The rows are the panel's own: the summary counts this period only.
    assert.equal(Number(await frame.locator('[data-testid="summary-rows"]').getAttribute('data-value')), now.length);

    // Off and on again: nothing more is sent.
    const again = Date.now();
    await toggle.click();
    await grid.locator('[role="columnheader"][data-column="deltaPass"]').waitFor({ state: 'hidden' });
    await toggle.click();
    await grid.locator('[role="columnheader"][data-column="deltaPass"]').waitFor({ state: 'visible' });
    await frame.waitForTimeout(300);
    assert.equal(recordRequests(again).length, 0, 'a second toggle sends no request');
    await wb.screenshot('compare-groups');
  });

  it('sorts biggest drop first', async () => {
    const grid = frame.getByRole('grid', { name: 'Groups' });
    await grid.locator('[role="columnheader"][data-column="deltaPass"]').click();
    assert.equal(await grid.locator('[role="columnheader"][data-column="deltaPass"]').getAttribute('aria-sort'), 'descending');
    const order = await grid.locator('.groups-line.level-0').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-key')));
    const cmp = (a: Naive, b: Naive) => (a.deltaPass ?? Infinity) - (b.deltaPass ?? Infinity) || (a.emails - a.before) - (b.emails - b.before) || (a.key < b.key ? -1 : 1);
    const expected = naive(now, earlier).sort(cmp).map((e) => e.key);
    assert.deepEqual(order, expected.slice(0, order.length));
    const firstDrop = naive(now, earlier).sort(cmp)[0]!;
    assert.equal((await grid.locator('.groups-line.level-0').first().locator('[role="gridcell"]').allInnerTexts())[6], points(firstDrop.deltaPass));
  });

  it('draws the previous period as a line on the trend, day for day, with a legend entry', async () => {
    const legend = frame.locator('[data-testid="trend-legend-previous"]');
    await legend.waitFor();
    assert.equal(await legend.innerText(), 'Previous period');
    const canvas = frame.locator('[data-testid="trend-canvas"]');
    await canvas.focus();
    await wb.page.keyboard.press('t');
    const table = frame.locator('[data-testid="trend-table"]');
    await table.waitFor({ state: 'visible' });
    const heads = await table.locator('thead th').allInnerTexts();
    assert.equal(heads.at(-1), 'Previous period');
    const prevCells = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.querySelector('td:last-child')!.textContent!));
    assert.equal(prevCells.length, 7);
    prevCells.forEach((text, d) => {
      const emails = earlier.filter((r) => Math.floor((Date.parse(r.date) - prevStart.getTime()) / DAY) === d).reduce((a, r) => a + r.emails, 0);
      assert.equal(num(text), emails, `day ${d + 1} of the previous period`);
    });
    await wb.page.keyboard.press('t');
    await wb.screenshot('compare-trend');
  });

  it('says near the switch when the previous period cannot be fetched, and keeps the rows', async () => {
    const f = await openPanel('Last 30 days');
    const rows = Number(await f.locator('[data-testid="summary-rows"]').getAttribute('data-value'));
    assert.ok(rows > 0);
    server.setFaults({ error400: true });
    try {
      const since = Date.now();
      await f.locator('[data-testid="compare-toggle"]').click();
      const note = f.locator('[data-testid="compare-note"]');
      await f.waitForFunction(() => document.querySelector('[data-testid="compare-note"]')?.textContent?.includes('could not be fetched'), undefined, { timeout: 30_000 });
      assert.ok(await note.isVisible(), 'the note shows beside the switch');
      const text = String(await note.textContent());
      assert.match(text, /^The previous period could not be fetched: .*400/);
      assert.doesNotMatch(text, /\bat \w+ \(|\.js:\d+/, 'no stack trace');
      assert.equal(Number(await f.locator('[data-testid="summary-rows"]').getAttribute('data-value')), rows, 'the rows stay');
      await f.waitForTimeout(500);
      assert.equal(recordRequests(since).length, 1, 'one request, not asked again while the failure is shown');
      // Off and on again: asked once more, and now it answers.
      server.setFaults({});
      await f.locator('[data-testid="compare-toggle"]').click();
      await f.locator('[data-testid="compare-toggle"]').click();
      await f.waitForFunction(() => document.querySelector('[data-testid="compare-note"]')?.textContent === '', undefined, { timeout: 30_000 });
      assert.equal(recordRequests(since).length, 2);
      await f.getByLabel('Group by', { exact: true }).selectOption('source');
      await f.getByRole('grid', { name: 'Groups' }).locator('[role="columnheader"][data-column="deltaEmails"]').waitFor({ state: 'visible' });
    } finally {
      server.setFaults({});
    }
  });
});
