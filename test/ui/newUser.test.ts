// What a new user tripped on, round 2 (issue 43), in the browser: each test fails without its fix.
import { strict as assert } from 'node:assert';
import type { Frame } from 'playwright-core';
import { startApiServer, type ApiServer } from '../server/server';
import { addAccount, choose, closeAllEditors, closeExport, cspViolations, findWebviewFrame, openDmarcView, openWorkbench, runCommand, tabText, waitForPanelReady, type Workbench } from './harness';

const KEY = 'ui-new-user-key-43c1';
const ORG = 'acme';

/** [r, g, b, a] of a CSS colour as getComputedStyle gives it. */
function rgba(css: string): number[] {
  const [r = 0, g = 0, b = 0, a = 1] = (css.match(/[\d.]+/g) ?? []).map(Number);
  return [r, g, b, css.startsWith('rgba') ? a : 1];
}

describe('what a new user tripped on, round 2, in the browser (Light+ theme)', () => {
  let wb: Workbench;
  let server: ApiServer;
  let frame: Frame;

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 40 });
    wb = await openWorkbench({ userSettings: { 'workbench.colorTheme': 'Default Light+' } });
    await openDmarcView(wb.page);
    await addAccount(wb.page, { label: 'New user', baseUrl: server.url, key: KEY, orgId: ORG, orgName: 'Acme' });
    await closeAllEditors(wb.page);
    await runCommand(wb.page, 'DMARC: Fetch Records for Date Range…');
    await choose(wb.page, 'Last 30 days');
    frame = await findWebviewFrame(wb.page, '[data-testid="records-panel"]', 60_000);
    await waitForPanelReady(frame);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'passed') assert.deepEqual(await cspViolations(frame), [], 'CSP violations in the panel');
    if (this.currentTest?.state === 'failed') await wb?.screenshot(`FAILED-new-user-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  it('(13) the table opens sorted by Emails, biggest first: its first rows are the range\u2019s biggest', async () => {
    const header = frame.locator('.header-cell[data-column="emails"]');
    assert.equal(await header.getAttribute('aria-sort'), 'descending');
    // The range's rows as the server sends them (Last 30 days: today and the 29 days before, UTC).
    const now = new Date();
    const url = new URL('/api/public/dmarc-records', server.url);
    url.searchParams.set('organizationId', ORG);
    url.searchParams.set('startDate', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 29)).toISOString());
    url.searchParams.set('endDate', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - 1).toISOString());
    const sent = ((await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as { dmarcRecords: { emails: number }[] }).dmarcRecords.map((r) => r.emails);
    assert.ok(sent.some((e, k) => k > 0 && e > sent[k - 1]!), 'the server sends rows in another order than by emails');
    const shown = (await frame.locator('.row:visible [data-column="emails"]').allInnerTexts()).map((t) => Number(t.replace(/\D/g, '')));
    assert.ok(shown.length >= 8, `rows shown: ${shown.length}`);
    assert.deepEqual(shown, [...sent].sort((a, b) => b - a).slice(0, shown.length));
  });

  it('(11) a facet\u2019s filter box and the search box have a visible border in a theme without an input border', async () => {
    for (const selector of ['[data-testid="facet-filter-source"]', '.search-input']) {
      const [border, background] = await frame.locator(selector).evaluate((e) => [getComputedStyle(e).borderTopColor, getComputedStyle(e).backgroundColor]);
      const [r, g, b, a] = rgba(border);
      const [br, bg, bb] = rgba(background);
      assert.ok(a! > 0.1, `${selector}: border ${border}`);
      assert.ok(Math.abs(r! - br!) + Math.abs(g! - bg!) + Math.abs(b! - bb!) > 30, `${selector}: border ${border} on ${background}`);
    }
  });

  it('(6) Clear all empties a facet\u2019s filter text too: the facet lists every value again', async () => {
    const filter = frame.locator('[data-testid="facet-filter-source"]');
    const options = frame.locator('.facet-option[data-facet="source"]');
    const all = await options.count();
    await filter.fill('mail');
    await frame.waitForFunction((n) => document.querySelectorAll('.facet-option[data-facet="source"]').length < n, all);
    await options.filter({ hasText: 'Mailchimp' }).click();
    await frame.locator('[data-testid="facets-clear"]').click();
    await frame.waitForFunction((n) => document.querySelectorAll('.facet-option[data-facet="source"]').length === n, all);
    assert.equal(await filter.inputValue(), '');
    assert.equal(await frame.locator('.facet-option[data-facet="source"].checked').count(), 0);
  });

  it('(7) hovering a value explains it: a table cell, a summary count and a filter say the README\u2019s words', async () => {
    const cell = frame.locator('.row:visible [data-column="category"]').first();
    const value = (await cell.innerText()).trim();
    const words: Record<string, RegExp> = {
      authorized: /^Category authorized: DMARC passed/,
      rejected: /^Category rejected: DMARC failed and the receiver rejected/,
      quarantined: /^Category quarantined: DMARC failed and the receiver quarantined/,
      'partially-authorized': /^Category partially-authorized: DMARC failed but the receiver delivered/,
    };
    assert.ok(words[value], `a category: ${value}`);
    assert.match(String(await cell.getAttribute('title')), words[value]!);
    const summary = frame.locator('.stat-item[data-value="rejected"]').first();
    assert.match(String(await summary.getAttribute('title')), /^Category rejected: .*\n[\d,]+ emails \(/s);
    assert.match(String(await frame.locator('.facet-option[data-facet="dmarc"][data-value="reject"]').getAttribute('title')), /^Disposition reject: rejected/);
    const aligned = frame.locator('.row:visible [data-column="alignedSpf"]').first();
    assert.match(String(await aligned.getAttribute('title')), /^Aligned SPF \S+: /);
  });
});

describe('what a new user tripped on, round 2: a small window (1024 × 700, sidebar open)', () => {
  let wb: Workbench;
  let server: ApiServer;

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 40 });
    wb = await openWorkbench();
    await wb.page.setViewportSize({ width: 1024, height: 700 });
    await openDmarcView(wb.page);
    await addAccount(wb.page, { label: 'Small', baseUrl: server.url, key: KEY, orgId: ORG, orgName: 'Acme' });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb?.screenshot(`FAILED-new-user-small-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  async function open(range: string): Promise<Frame> {
    await closeAllEditors(wb.page);
    const before = new Set(wb.page.frames());
    await runCommand(wb.page, 'DMARC: Fetch Records for Date Range…');
    await choose(wb.page, range);
    const f = await findWebviewFrame(wb.page, '[data-testid="records-panel"]', 60_000, before);
    await waitForPanelReady(f);
    return f;
  }

  /** Table rows wholly in sight: inside the table's area and the page. */
  const rowsInSight = (f: Frame): Promise<number> =>
    f.evaluate(() => {
      const area = document.querySelector('.table-area')!.getBoundingClientRect();
      return [...document.querySelectorAll<HTMLElement>('.row')].filter((r) => {
        const b = r.getBoundingClientRect();
        return r.offsetParent !== null && b.height > 0 && b.top >= area.top && b.bottom <= Math.min(innerHeight, area.bottom);
      }).length;
    });

  it('(3) the table keeps at least 8 rows in sight: the Advice, trend and details start closed, each a click away, and the choice is remembered', async () => {
    const f = await open('Last 30 days');
    assert.ok((await rowsInSight(f)) >= 8, `rows in sight: ${await rowsInSight(f)}`);
    assert.equal(await f.locator('[data-testid="trend-toggle"]').getAttribute('aria-expanded'), 'false');
    assert.equal(await f.locator('[data-testid="advice-toggle"]').getAttribute('aria-expanded'), 'false');
    // Opened by the user: the next panel opens with the trend too.
    await f.locator('[data-testid="trend-toggle"]').click();
    await f.locator('[data-testid="trend-canvas"]').waitFor({ state: 'visible' });
    const next = await open('Last 7 days');
    assert.equal(await next.locator('[data-testid="trend-toggle"]').getAttribute('aria-expanded'), 'true');
    assert.equal(await next.locator('[data-testid="advice-toggle"]').getAttribute('aria-expanded'), 'false');
    assert.deepEqual(await cspViolations(next), []);
    // Closed again, so other tests' panels start as they did.
    await next.locator('[data-testid="trend-toggle"]').click();
  });

  it('(5) an export of a panel narrower than 1,440 px waits in a tab behind it: no group beside it, the panel in front as it was', async () => {
    const f = await open('Last 7 days');
    await f.locator('.row:visible').first().click();
    await f.locator('[data-testid="export-json"]').click();
    await f.locator('[data-testid="export-status"]', { hasText: /^Exported 1 selected row as JSON to the tab dmarc-Acme-\d+\.json, next to this one\.$/ }).waitFor();
    assert.equal(await wb.page.locator('.editor-group-container').count(), 1, 'no group beside the panel');
    assert.equal(await wb.page.locator('.tab.active', { hasText: /dmarc-Acme-\d+\.json/ }).count(), 0, 'the export is not in front');
    assert.ok(!f.isDetached(), 'the panel kept its page');
    assert.ok((await rowsInSight(f)) >= 8, 'the panel in front, as it was');
    assert.equal(JSON.parse(await tabText(wb.page, /dmarc-Acme-\d+\.json/)).length, 1);
    assert.ok((await rowsInSight(await closeExport(wb.page))) >= 8, 'the panel back once the export is closed');
  });

  it('(5) beside a panel of 1,440 px or more; when the export closes, the table is back as it was, its first columns in sight', async () => {
    await wb.page.setViewportSize({ width: 1920, height: 1000 });
    try {
      const f = await open('Last 7 days');
      const width = await f.evaluate(() => innerWidth);
      assert.ok(width >= 1440, `the panel is ${width} px wide`);
      await f.locator('.row:visible').first().click();
      await f.locator('[data-testid="export-json"]').click();
      await f.waitForFunction((w) => innerWidth < w * 0.6, width, { timeout: 30_000 });
      assert.equal(await wb.page.locator('.editor-group-container').count(), 2, 'a group beside the panel');
      // Squeezed, the user scrolls the table sideways to the columns that went out of sight.
      await f.locator('[data-testid="grid"]').evaluate((g) => (g.scrollLeft = 600));
      assert.ok((await f.locator('[data-testid="grid"]').evaluate((g) => g.scrollLeft)) > 0);
      assert.equal(JSON.parse(await tabText(wb.page, /dmarc-Acme-\d+\.json/)).length, 1);
      const back = await closeExport(wb.page);
      assert.equal(back, f, 'the same page: it stayed in sight');
      await back.waitForFunction((w) => innerWidth === w, width);
      await back.waitForFunction(() => document.querySelector('[data-testid="grid"]')!.scrollLeft === 0, undefined, { timeout: 5_000 });
      const first = await back.evaluate(() => {
        const g = document.querySelector('[data-testid="grid"]')!.getBoundingClientRect();
        return document.elementFromPoint(g.left + 10, g.top + 10)?.closest('[data-column]')?.getAttribute('data-column');
      });
      assert.equal(first, 'source', 'the first column in sight again');
    } finally {
      await closeAllEditors(wb.page);
      await wb.page.setViewportSize({ width: 1024, height: 700 });
    }
  });

  it('(4) a rate in the Groups table is never cut: each number fits its cell', async () => {
    const f = await open('Last 30 days');
    await f.getByLabel('Group by', { exact: true }).selectOption('source');
    await f.locator('.groups-line').first().waitFor();
    const cut = await f.locator('.groups-line .groups-cell.numeric').evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent));
    assert.deepEqual(cut, []);
    assert.ok(await f.locator('[data-testid="groups-note"]').getAttribute('title'), 'the note\u2019s whole text in its tooltip');
  });
});
