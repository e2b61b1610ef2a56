import { strict as assert } from 'node:assert';
import { startApiServer, type ApiServer } from '../server/server';
import { addAccount, openWorkbench, openDmarcView, type Workbench } from './harness';

const KEY = 'ui-tree-key-55e1';
const ORG = 'org-ui-1';

describe('DMARC tree in the browser', () => {
  let wb: Workbench;
  let server: ApiServer;
  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 60 });
    wb = await openWorkbench();
    await openDmarcView(wb.page);
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  const ACME = { label: 'Acme mail', orgId: ORG, orgName: 'Acme Org' };
  /** The account the first test adds; added here when a test runs without it (alone, or in another order). */
  async function acme(): Promise<void> {
    if (server.requests.some((r) => r.query.organizationId === ORG)) return;
    await addAccount(wb.page, { ...ACME, baseUrl: server.url, key: KEY });
  }

  it('adds an account through the command palette, as a user would', async () => {
    await addAccount(wb.page, { ...ACME, baseUrl: server.url, key: KEY });
    const org = wb.page.locator('.sidebar .monaco-list-row', { hasText: 'Acme Org' });
    await org.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await org.count(), 1);
  });

  it('expanding "Last 7 days" shows the summary and the sources', async () => {
    await acme();
    await wb.page.locator('.sidebar .monaco-list-row', { hasText: 'Acme Org' }).click();
    const last7 = wb.page.locator('.sidebar .monaco-list-row', { hasText: 'Last 7 days' });
    await last7.waitFor({ state: 'visible' });
    await last7.click();
    const summary = wb.page.locator('.sidebar .monaco-list-row', { hasText: /% pass · [\d,]+ emails?/ }).first();
    await summary.waitFor({ state: 'visible', timeout: 30_000 });
    const rows = await wb.page.locator('.sidebar .monaco-list-row').allInnerTexts();
    const sourceRows = rows.filter((r) => /[\d.]+% pass · [\d,]+ emails?/.test(r));
    assert.ok(sourceRows.length >= 3, `summary and sources shown: ${rows.join(' | ')}`);
    // Then, in the background, the previous 7 days (what changed): the sources say ▲/▼ or new.
    const moved = wb.page.locator('.sidebar .monaco-list-row', { hasText: /% pass · [\d,]+ emails? · ([▲▼][\d.]+ pts|±0 pts|new)/ }).first();
    await moved.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(server.requests.filter((r) => r.query.organizationId === ORG).length, 3, 'the access check, one fetch for the bucket, one for the 7 days before it');
    await wb.screenshot('tree-last-7-days');
  });

  it('with one account (no account level), its commands are on the organization and in the view\u2019s … menu', async () => {
    await acme();
    await wb.page.locator('.sidebar .monaco-list-row', { hasText: 'Acme Org' }).click({ button: 'right' });
    const menu = wb.page.locator('.context-view .monaco-menu');
    await menu.waitFor({ state: 'visible' });
    const items = await menu.locator('.action-label').allInnerTexts();
    for (const wanted of ['Test Connection', 'Update API Key…', 'Rename Account…']) assert.ok(items.some((i) => i.startsWith(wanted)), `organization menu: ${items.join(' | ')}`);
    await wb.page.keyboard.press('Escape');
    await wb.page.locator('.sidebar .title-actions .action-label[aria-label="More Actions..."], .sidebar .actions-container .action-label[aria-label="Views and More Actions..."]').first().click();
    await menu.waitFor({ state: 'visible' });
    const more = await menu.locator('.action-label').allInnerTexts();
    for (const wanted of ['Update API Key…', 'Rename Account…', 'Remove Account…']) assert.ok(more.some((i) => i.startsWith(wanted)), `view menu: ${more.join(' | ')}`);
    await wb.page.keyboard.press('Escape');
  });
});
