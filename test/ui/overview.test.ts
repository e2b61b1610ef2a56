import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { startApiServer, type ApiServer } from '../server/server';
import { addAccount, answer, closeAllEditors, findWebviewFrame, openDmarcView, openWorkbench, runCommand, waitForPanelReady, type Workbench } from './harness';

const KEY = 'ui-overview-key-6e0b';
const ORGS: [string, string][] = [['acme', 'Acme Corporation'], ['globex', 'Globex'], ['wayne', 'Wayne Enterprises'], ['initech', 'Initech']];

/** The Overview page's Content-Security-Policy violations (it records every one it sees). */
function overviewCsp(frame: Frame): Promise<string[]> {
  return frame.evaluate(() => (window as unknown as { __dmarcOverview?: { csp?: string[] } }).__dmarcOverview?.csp ?? ['the page recorded no CSP list']);
}

describe('Overview of all organizations in the browser', () => {
  let wb: Workbench;
  let server: ApiServer;
  let frame: Frame;

  const cells = (column: string) => frame.locator(`tr[data-key] td[data-column="${column}"]`).allInnerTexts();
  const numbers = async (column: string) => (await cells(column)).map((t) => Number(t.replace(/[^\d.-]/g, '')));
  /** Which cell has the keyboard: its row's organization (or "header") and its column. */
  const focused = () => frame.evaluate(() => {
    const a = document.activeElement as HTMLElement | null;
    const tr = a?.closest('tr');
    return { row: tr?.getAttribute('data-key') ? JSON.parse(tr.getAttribute('data-key')!)[1] as string : 'header', column: a?.getAttribute('data-column') ?? '' };
  });
  const sortOf = (column: string) => frame.locator(`th[data-column="${column}"]`).getAttribute('aria-sort');

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: ORGS.map(([id]) => id) }, rowsPerDay: 40 });
    // Two requests at a time: with four organizations, some are in while others wait (the Cancel test).
    wb = await openWorkbench({ userSettings: { 'workbench.colorTheme': 'Default Dark Modern', 'dmarc.overview.concurrency': 2 } });
    await openDmarcView(wb.page);
    await addAccount(wb.page, { label: 'Overview', baseUrl: server.url, key: KEY, orgId: ORGS[0]![0], orgName: ORGS[0]![1] });
    for (const [id, name] of ORGS.slice(1)) {
      await runCommand(wb.page, 'DMARC: Add Organization…');
      await answer(wb.page, id);
      await answer(wb.page, name);
      await wb.page.locator('.sidebar .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: 30_000 });
    }
  });
  afterEach(async function () {
    if (frame && !frame.isDetached() && this.currentTest?.state === 'passed') assert.deepEqual(await overviewCsp(frame), [], 'CSP violations in the Overview');
    if (this.currentTest?.state === 'failed') await wb?.screenshot(`FAILED-overview-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  it('opens from the command palette: a row per organization with its figures and a sparkline, one request each', async () => {
    await closeAllEditors(wb.page);
    server.resetRequests();
    await runCommand(wb.page, 'DMARC: Open Overview of All Organizations');
    frame = await findWebviewFrame(wb.page, '[data-testid="overview"]', 60_000);
    await frame.locator('[data-testid="overview"][data-phase="done"]').waitFor({ timeout: 60_000 });
    assert.equal(await frame.locator('tr[data-key]').count(), ORGS.length);
    assert.equal(await frame.locator('tr[data-state="loaded"]').count(), ORGS.length);
    assert.equal(await frame.locator('tr[data-key] svg.sparkline').count(), ORGS.length, 'a sparkline per row');
    assert.ok((await frame.locator('tr[data-key] svg.sparkline polyline').count()) >= ORGS.length, 'drawn as lines');
    assert.match(String(await frame.locator('tr[data-key] svg.sparkline').first().getAttribute('aria-label')), /^Daily DMARC pass from \d/);
    assert.equal(await frame.locator('[data-testid="overview-status"]').innerText(), '4 organizations');
    assert.match(await frame.locator('[data-testid="overview-range"]').innerText(), / – .* \(UTC\)$/);
    // Sorted by DMARC pass, lowest first, as it opens.
    assert.equal(await sortOf('pass'), 'ascending');
    const pass = await numbers('pass');
    assert.deepEqual(pass, [...pass].sort((a, b) => a - b));
    assert.deepEqual(server.requests.map((r) => r.query.organizationId).sort(), ORGS.map(([id]) => id).sort(), 'one request per organization');
    for (const name of (await frame.locator('tr[data-key] .ov-name').allInnerTexts())) assert.ok(ORGS.some(([, n]) => n === name), name);
    await wb.screenshot('overview');
    // The README's picture: the editor area alone, its rows loaded (DMARC_README_SCREENSHOTS=1).
    if (process.env.DMARC_README_SCREENSHOTS) {
      await wb.page.mouse.move(0, 0);
      // The editor area down to the table's last row (not the empty space below it).
      const editor = (await wb.page.locator('.part.editor').boundingBox())!;
      const table = (await frame.locator('table').first().boundingBox())!;
      const height = Math.min(editor.height, Math.ceil(table.y + table.height - editor.y) + 12);
      await wb.page.screenshot({ path: join(__dirname, '..', '..', 'media', 'screenshots', 'overview.png'), clip: { ...editor, height } });
    }
  });

  it('sorts by a column with a click, the other way with a second, and says so', async () => {
    const header = frame.locator('th[data-column="emails"]');
    await header.click();
    assert.equal(await sortOf('emails'), 'descending', 'numbers biggest first');
    assert.equal(await sortOf('pass'), 'none');
    const first = await numbers('emails');
    assert.deepEqual(first, [...first].sort((a, b) => b - a));
    await header.click();
    assert.equal(await sortOf('emails'), 'ascending');
    const second = await numbers('emails');
    assert.deepEqual(second, [...first].reverse());
    assert.equal(await frame.locator('[data-testid="overview-announce"]').innerText(), 'Sorted by Emails, ascending');
  });

  it('keyboard: arrows move cell by cell, Enter on a header sorts by it', async () => {
    await frame.locator('th[data-column="organization"]').focus();
    await wb.page.keyboard.press('ArrowRight');
    await wb.page.keyboard.press('ArrowRight');
    assert.deepEqual(await focused(), { row: 'header', column: 'pass' });
    await wb.page.keyboard.press('End');
    await wb.page.keyboard.press('ArrowLeft');
    await wb.page.keyboard.press('ArrowLeft');
    await wb.page.keyboard.press('ArrowLeft');
    assert.deepEqual(await focused(), { row: 'header', column: 'unauthenticated' });
    await wb.page.keyboard.press('Enter');
    assert.equal(await sortOf('unauthenticated'), 'descending');
    const unauth = await numbers('unauthenticated');
    assert.deepEqual(unauth, [...unauth].sort((a, b) => b - a));
    assert.equal(await frame.locator('[data-testid="overview-announce"]').innerText(), 'Sorted by Unauthenticated, descending');
    assert.deepEqual(await focused(), { row: 'header', column: 'unauthenticated' }, 'the keyboard stays on the header');
    await wb.page.keyboard.press(' ');
    assert.equal(await sortOf('unauthenticated'), 'ascending', 'Space too');
    // Down into the rows, in the order shown; Home and Ctrl+End.
    const order = (await frame.locator('tr[data-key]').evaluateAll((rows) => rows.map((r) => JSON.parse(r.getAttribute('data-key')!)[1] as string)));
    await wb.page.keyboard.press('ArrowDown');
    assert.deepEqual(await focused(), { row: order[0], column: 'unauthenticated' });
    await wb.page.keyboard.press('ArrowDown');
    assert.deepEqual(await focused(), { row: order[1], column: 'unauthenticated' });
    await wb.page.keyboard.press('Home');
    assert.deepEqual(await focused(), { row: order[1], column: 'organization' });
    await wb.page.keyboard.press('Control+End');
    assert.deepEqual(await focused(), { row: order.at(-1), column: 'organization' });
    await wb.page.keyboard.press('ArrowDown');
    assert.deepEqual(await focused(), { row: order.at(-1), column: 'organization' }, 'the last row stays the last');
    assert.equal(await frame.locator('td[tabindex="0"], th[tabindex="0"]').count(), 1, 'one cell in the tab order');
  });

  it('Enter on a row opens that organization\u2019s records for the period', async () => {
    await frame.locator('th[data-column="organization"]').click();
    assert.equal(await sortOf('organization'), 'ascending');
    await frame.locator('th[data-column="organization"]').focus();
    await wb.page.keyboard.press('ArrowDown');
    await wb.page.keyboard.press('ArrowDown');
    const name = [...ORGS].map(([, n]) => n).sort()[1]!;
    assert.equal((await focused()).row, ORGS.find(([, n]) => n === name)![0]);
    const known = new Set(wb.page.frames());
    server.resetRequests();
    await wb.page.keyboard.press('Enter');
    const panel = await findWebviewFrame(wb.page, '[data-testid="records-panel"]', 60_000, known);
    await waitForPanelReady(panel);
    await wb.page.locator('.tab.active', { hasText: name }).waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await panel.locator('[data-testid="range"]').innerText(), / – /);
    assert.equal(server.requests.length, 0, 'the records come from what the Overview fetched');
  });

  it('opening it again reveals the same panel and sends no request', async () => {
    server.resetRequests();
    await runCommand(wb.page, 'DMARC: Open Overview of All Organizations');
    await wb.page.locator('.tab.active', { hasText: 'DMARC Overview' }).waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await wb.page.locator('.tab', { hasText: 'DMARC Overview' }).count(), 1, 'one Overview at a time');
    frame = await findWebviewFrame(wb.page, '[data-testid="overview"][data-phase="done"]', 30_000);
    assert.equal(await frame.locator('tr[data-state="loaded"]').count(), ORGS.length);
    assert.equal(server.requests.length, 0);
  });

  it('Refresh fetches again under one progress notification; its Cancel keeps the rows in and marks the rest', async () => {
    server.setFaults({ latencyMs: 2500 });
    try {
      server.resetRequests();
      await frame.locator('[data-testid="overview-refresh"]').click();
      const toast = wb.page.locator('.notification-toast', { hasText: 'DMARC Overview: fetching 4 organizations' });
      await toast.waitFor({ state: 'visible', timeout: 15_000 });
      assert.equal(await toast.count(), 1, 'one notification for every organization');
      await frame.locator('tr[data-state="loaded"]').first().waitFor({ timeout: 30_000 });
      assert.ok(server.requests.length <= 4);
      await toast.hover();
      await toast.locator('.monaco-button', { hasText: 'Cancel' }).click();
      await frame.locator('[data-testid="overview"][data-phase="done"]').waitFor({ timeout: 15_000 });
      const states = await frame.locator('tr[data-key]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-state')));
      assert.ok(states.includes('loaded'), `the rows in stay: ${states}`);
      assert.ok(states.includes('cancelled'), `the others say they were not loaded: ${states}`);
      assert.match(await frame.locator('tr[data-state="cancelled"] td[data-column="emails"]').first().innerText(), /Not loaded: cancelled/);
      assert.match(await frame.locator('[data-testid="overview-status"]').innerText(), /^4 organizations: \d loaded, 0 failed, \d not loaded$/);
    } finally {
      server.setFaults({});
    }
  });
});
