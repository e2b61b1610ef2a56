// What a new user tripped on, round 2 (issue 43), in the browser: each test fails without its fix.
import { strict as assert } from 'node:assert';
import type { Frame } from 'playwright-core';
import { startApiServer, type ApiServer } from '../server/server';
import { addAccount, choose, closeAllEditors, cspViolations, findWebviewFrame, openDmarcView, openWorkbench, runCommand, waitForPanelReady, type Workbench } from './harness';

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
