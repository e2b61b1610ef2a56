// The records panel in VS Code's own frame (a real VS Code, driven in a browser): the dark theme
// and the tab's icon for it, and Cancel on the progress notification of a fetch.
import { strict as assert } from 'node:assert';
import type { Frame } from 'playwright-core';
import { startApiServer, type ApiServer } from '../server/server';
import { addAccount, choose, closeAllEditors, cspViolations, fetchRecords, findWebviewFrame, openDmarcView, openWorkbench, pageBrightness, runCommand, waitForPanelReady, type Workbench } from './harness';

const KEY = 'ui-chrome-key-6633';
const ORG = 'org-ui-chrome';

describe('records panel in VS Code\u2019s frame', () => {
  let wb: Workbench;
  let server: ApiServer;
  let frame: Frame | undefined;

  /** The only editor: a new panel over the last 30 days, with every row in. */
  async function openPanel(): Promise<Frame> {
    await closeAllEditors(wb.page);
    await fetchRecords(wb.page, 'Chrome Org', 'Last 30 days');
    const f = await findWebviewFrame(wb.page, '[data-testid="records-panel"]', 60_000);
    await waitForPanelReady(f);
    return f;
  }

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 120 });
    wb = await openWorkbench({ userSettings: { 'workbench.colorTheme': 'Default Light Modern' } });
    await openDmarcView(wb.page);
    await addAccount(wb.page, { label: 'Chrome', baseUrl: server.url, key: KEY, orgId: ORG, orgName: 'Chrome Org' });
  });
  beforeEach(() => {
    server.setFaults({});
    frame = undefined;
  });
  afterEach(async function () {
    if (frame && !frame.isDetached() && this.currentTest?.state === 'passed') assert.deepEqual(await cspViolations(frame), [], 'CSP violations in the panel');
    if (this.currentTest?.state === 'failed') await wb?.screenshot(`FAILED-chrome-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  it('reads in the dark theme too, with the dark tab icon', async () => {
    frame = await openPanel();
    // VS Code draws a webview tab's icon as the ::before background of its label, per theme.
    const tabIcon = () => wb.page.locator('.tabs-container .tab.active .monaco-icon-label').first().evaluate((el) => getComputedStyle(el, '::before').backgroundImage);
    const iconIs = (name: string) =>
      wb.page.waitForFunction((n) => getComputedStyle(document.querySelector('.tabs-container .tab.active .monaco-icon-label')!, '::before').backgroundImage.includes(n), name, { timeout: 10_000 });
    assert.match(await tabIcon(), /panel-light\.svg/, 'the light icon in the light theme');
    const setTheme = async (name: string) => {
      await runCommand(wb.page, 'Preferences: Color Theme');
      await choose(wb.page, name);
    };
    await setTheme('Dark Modern');
    try {
      await frame.waitForFunction(() => {
        const [r, g, b] = (getComputedStyle(document.body).backgroundColor.match(/\d+/g) ?? ['255', '255', '255']).map(Number);
        return (r! + g! + b!) / 3 < 100;
      }, undefined, { timeout: 10_000 });
      await iconIs('panel-dark.svg');
      await wb.screenshot('panel-dark');
      assert.ok((await pageBrightness(frame)) < 100, 'dark background');
      assert.match(await tabIcon(), /panel-dark\.svg/, 'the dark icon in the dark theme');
    } finally {
      // The other tests read the light theme.
      await setTheme('Light Modern');
    }
    await iconIs('panel-light.svg');
  });
  it('Cancel on the progress notification stops the fetch and closes the panel it opened', async () => {
    await closeAllEditors(wb.page);
    const tabs = wb.page.locator('.tab', { hasText: 'Chrome Org ·' });
    const before = await tabs.count();
    server.setFaults({ latencyMs: 15_000 });
    try {
      server.resetRequests();
      await fetchRecords(wb.page, 'Chrome Org', 'Last 90 days');
      // The panel is open (loading) while the notification shows the fetch.
      await wb.page.waitForFunction((n) => [...document.querySelectorAll('.tab')].filter((t) => t.textContent?.includes('Chrome Org ·')).length > n, before, { timeout: 30_000 });
      const toast = wb.page.locator('.notification-toast', { hasText: 'Fetching DMARC records for Chrome Org' });
      await toast.waitFor({ state: 'visible', timeout: 30_000 });
      await toast.getByRole('button', { name: 'Cancel' }).click();
      await wb.page.waitForFunction((n) => [...document.querySelectorAll('.tab')].filter((t) => t.textContent?.includes('Chrome Org ·')).length === n, before, { timeout: 30_000 });
      await toast.waitFor({ state: 'hidden', timeout: 30_000 });
      assert.equal(server.requests.filter((r) => r.path === '/api/public/dmarc-records').length, 1, 'one request, given up');
      assert.equal(await wb.page.locator('.notification-toast', { hasText: /error|could not/i }).count(), 0, 'a cancel is not an error');
    } finally {
      server.setFaults({});
    }
  });
});
