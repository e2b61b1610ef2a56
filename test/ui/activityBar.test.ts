import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { startApiServer } from '../server/server';
import { answer, openWorkbench, openDmarcView, type Workbench } from './harness';

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

  it('after an account without organizations, the welcome says what is true: added, not connected', async () => {
    const server = await startApiServer({ keys: { 'ui-welcome-key-1f': ['org-w'] } });
    try {
      await openDmarcView(wb.page); // open already when the test before ran
      await wb.page.locator('.welcome-view-content .monaco-button', { hasText: 'Add Account' }).click();
      await answer(wb.page, 'Welcome test');
      await answer(wb.page, server.url);
      await answer(wb.page, 'ui-welcome-key-1f');
      // The organization step, dismissed: the account exists, nothing was requested.
      await wb.page.locator('.quick-input-widget input').waitFor({ state: 'visible' });
      await wb.page.keyboard.press('Escape');
      const welcome = wb.page.locator('.welcome-view-content', { hasText: 'Account added.' });
      await welcome.waitFor({ state: 'visible', timeout: 30_000 });
      assert.doesNotMatch(await welcome.innerText(), /connected/i);
      assert.equal(await welcome.locator('.monaco-button', { hasText: 'Add Organization' }).count(), 1);
      assert.equal(server.requests.length, 0, 'no request was made, so none is claimed');
    } finally {
      await server.close();
    }
  });
});
