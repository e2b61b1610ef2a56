import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { openWorkbench, openDmarcView, type Workbench } from './harness';

describe('DMARC activity bar (real workbench in Chromium)', () => {
  let wb: Workbench;
  before(async () => {
    wb = await openWorkbench();
  });
  after(async () => {
    await wb?.close();
  });

  it('shows the DMARC icon in the activity bar', async () => {
    const item = wb.page.locator('.activitybar .action-item a[aria-label^="DMARC"]');
    await item.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await item.count(), 1);
  });

  it('opens the view with its welcome text and an Add Account button', async () => {
    await openDmarcView(wb.page);
    const welcome = wb.page.locator('.welcome-view-content', { hasText: 'See who sends mail as your domains' });
    await welcome.waitFor({ state: 'visible', timeout: 30_000 });
    const button = welcome.locator('a.monaco-button, .monaco-button', { hasText: 'Add Account' });
    assert.equal(await button.count(), 1);
    const shot = await wb.screenshot('activity-bar-welcome');
    assert.ok(existsSync(shot));
  });
});
