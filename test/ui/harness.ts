// Shared set-up for the browser layer: a fresh VS Code Server with this extension loaded and a
// headless Chromium on its workbench. The launcher lives in test/host (plain ESM, also used by
// test/run.mjs); test/host/layer.mjs hands it over through a global.
import type { Browser, Page, Frame, Locator } from 'playwright-core';
import { join } from 'node:path';

interface Host {
  url: string;
  workspace: string;
  output: string[];
  workbenchUrl(o: { extensionPath: string; testsPath?: string; folder?: string }): string;
  close(): Promise<void>;
}
interface Harness {
  repoRoot: string;
  screenshots: string;
  startHost(o: { env?: Record<string, string>; userSettings?: Record<string, unknown> }): Promise<Host>;
  launchBrowser(o?: { colorScheme?: 'light' | 'dark' }): Promise<{ browser: Browser; page: Page }>;
}

function harness(): Harness {
  const h = (globalThis as { __dmarcHarness?: Harness }).__dmarcHarness;
  if (!h) throw new Error('the UI tests run through test/host/layer.mjs (npm test)');
  return h;
}

export interface Workbench {
  page: Page;
  host: Host;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openWorkbench(opts: {
  env?: Record<string, string>;
  userSettings?: Record<string, unknown>;
  colorScheme?: 'light' | 'dark';
} = {}): Promise<Workbench> {
  const h = harness();
  const host = await h.startHost({ env: opts.env, userSettings: opts.userSettings });
  let browser: Browser | undefined;
  try {
    const launched = await h.launchBrowser({ colorScheme: opts.colorScheme });
    browser = launched.browser;
    const page = launched.page;
    await page.goto(host.workbenchUrl({ extensionPath: h.repoRoot }));
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    return {
      page,
      host,
      async screenshot(name: string) {
        const path = join(h.screenshots, `${name}.png`);
        await page.screenshot({ path });
        return path;
      },
      async close() {
        await browser?.close().catch(() => undefined);
        await host.close();
      },
    };
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await host.close();
    throw err;
  }
}

/** Clicks the DMARC activity-bar item and waits for its view container to be visible. */
export async function openDmarcView(page: Page): Promise<void> {
  const item = page.locator('.activitybar .action-item a[aria-label^="DMARC"]');
  await item.waitFor({ state: 'visible', timeout: 30_000 });
  const selected = await item.evaluate((el) => el.closest('.action-item')?.classList.contains('checked'));
  if (!selected) await item.click();
  // With one view in the container, VS Code hides the pane header and titles the side bar instead.
  await page.locator('.sidebar .composite.title h2', { hasText: /DMARC/i }).waitFor({ state: 'visible', timeout: 30_000 });
}

/**
 * Presses F1 and types `>title` into the command palette, three tries. With the focus in a
 * webview (a renderer process of its own, see test/host/launch.mjs), the key reaches the workbench
 * as a message, and a focus message from the webview still on its way can close the palette again
 * right after it opened; a user then presses F1 again, and so does this.
 */
export async function openPalette(page: Page, title: string): Promise<void> {
  await withRetries(() => typeInPalette(page, title));
}

/** Runs a command through the command palette, as a user would (again from F1 if the palette closed meanwhile). */
export async function runCommand(page: Page, title: string): Promise<void> {
  // Click the matching row: Enter would run whichever row is first (recently used ones move up).
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await withRetries(async () => {
    await typeInPalette(page, title);
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    await row.click({ timeout: 5_000 });
  });
}

async function typeInPalette(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${title}`, { timeout: 5_000 });
}

async function withRetries(attempt: () => Promise<void>, tries = 3): Promise<void> {
  for (let k = 1; ; k++) {
    try {
      return await attempt();
    } catch (err) {
      if (k === tries) throw err;
    }
  }
}

/**
 * The innermost frame of a webview whose document has an element matching `selector`; `not`:
 * frames already known (a panel opened earlier), so that a new panel's frame is the one found.
 */
export async function findWebviewFrame(page: Page, selector: string, timeoutMs = 30_000, not: ReadonlySet<Frame> = new Set()): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame() || not.has(frame)) continue;
      try {
        if (await frame.$(selector)) return frame;
      } catch {
        /* frame navigated away */
      }
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no webview frame with ${selector} within ${timeoutMs} ms`);
}

export interface QuickInputStep {
  title: string;
  value: string;
}

/** The open quick input's title and value (which step of a flow it shows). */
async function quickInputStep(page: Page): Promise<QuickInputStep> {
  return page.evaluate(() => ({
    title: document.querySelector('.quick-input-widget .quick-input-title')?.textContent ?? '',
    value: document.querySelector<HTMLInputElement>('.quick-input-widget input')?.value ?? '',
  }));
}

/**
 * Waits until the quick input that showed `step` has taken its answer: VS Code hides it once the
 * answer passes validation (an extension-host round trip), then the extension may show its next
 * step, which has another title (every multi-step flow here numbers or names its steps) or value.
 * An answer refused by validation leaves the step as it was, and this times out.
 */
export async function untilAnswered(page: Page, step: QuickInputStep, timeoutMs = 30_000): Promise<void> {
  await page.waitForFunction(
    (s) => {
      const widget = document.querySelector<HTMLElement>('.quick-input-widget');
      if (!widget || !widget.checkVisibility()) return true;
      const title = widget.querySelector('.quick-input-title')?.textContent ?? '';
      const value = widget.querySelector<HTMLInputElement>('input')?.value ?? '';
      return title !== s.title || value !== s.value;
    },
    step,
    { timeout: timeoutMs },
  );
}

/** Presses Enter in the open quick input and waits until it has taken the answer. */
export async function accept(page: Page): Promise<void> {
  const step = await quickInputStep(page);
  await page.keyboard.press('Enter');
  await untilAnswered(page, step);
}

/**
 * Types an answer into the open quick input, presses Enter and waits until it is taken. No wait
 * before Enter: VS Code validates the value the input holds when Enter is pressed.
 */
export async function answer(page: Page, text: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(text);
  await accept(page);
}

/** Picks a quick-pick item by its label and waits until the pick is taken. */
export async function choose(page: Page, label: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(label);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible' });
  const step = await quickInputStep(page);
  await row.click();
  await untilAnswered(page, step);
}

/** Mean of R, G, B of a webview's computed page background, 0-255. */
export async function pageBrightness(f: Frame): Promise<number> {
  const bg = await f.locator('body').evaluate((b) => getComputedStyle(b).backgroundColor);
  const [r, g, b] = (bg.match(/\d+/g) ?? ['0', '0', '0']).map(Number);
  return (r! + g! + b!) / 3;
}

/**
 * Runs Fetch Records for Date Range…: picks `orgName` when the command asks for an organization
 * (there are several), then `range`. Does not wait for the panel.
 */
export async function fetchRecords(page: Page, orgName: string, range: string): Promise<void> {
  await runCommand(page, 'DMARC: Fetch Records for Date Range…');
  const title = page.locator('.quick-input-widget .quick-input-title');
  await title.waitFor({ state: 'visible' });
  if (!/^Fetch Records of /.test(await title.innerText())) await choose(page, orgName);
  await choose(page, range);
}

/** Add Account through the command palette, the way a user does it. */
export async function addAccount(page: Page, o: { label: string; baseUrl: string; key: string; orgId: string; orgName: string }): Promise<void> {
  await runCommand(page, 'DMARC: Add Account…');
  await answer(page, o.label);
  await answer(page, o.baseUrl);
  await answer(page, o.key);
  await answer(page, o.orgId);
  await answer(page, o.orgName);
  await page.locator('.sidebar .monaco-list-row', { hasText: o.orgName }).first().waitFor({ state: 'visible', timeout: 30_000 });
}

/**
 * Closes every editor, unsaved exports too: after a test that failed before it closed its export,
 * VS Code asks whether to save it, and that dialog would block every test after it.
 */
export async function closeAllEditors(page: Page): Promise<void> {
  const dirty = await page.locator('.tab.dirty').count();
  await runCommand(page, 'View: Close All Editors');
  if (dirty === 0) return;
  const dontSave = page.locator('.monaco-dialog-box .monaco-button', { hasText: /Don.t Save/ });
  await dontSave.click({ timeout: 5_000 }).catch(() => undefined);
}

/**
 * The text of the tab named like `name` (an export), with its group made the active one (what the
 * test does next, such as Revert and Close Editor, acts on it). A panel narrower than 1,440 px
 * opens its export as a tab of its own group behind it (src/export/openExport.ts exportPlace):
 * that tab is brought forward as a user does, by a click on it (the panel's page goes then, and
 * is built again when the panel comes back: closeExport). A wider panel opens it beside itself.
 * The panel's webview, which had the keyboard when the export was asked for, can keep its own
 * group the active one after the export's editor opened there, even after a click in that editor
 * (1 run in 3 here, in more than one test); the group's number key (Ctrl+2: Focus Second Editor
 * Group) then makes the export's group active.
 */
export async function tabText(page: Page, name: RegExp): Promise<string> {
  const tab = page.locator('.tab', { hasText: name }).first();
  await tab.waitFor({ state: 'visible', timeout: 30_000 });
  if (!(await tab.evaluate((t) => t.classList.contains('active')))) {
    await tab.click();
    await page.locator('.tab.active', { hasText: name }).first().waitFor({ timeout: 30_000 });
  }
  const group = page.locator('.editor-group-container', { has: page.locator('.tab.active', { hasText: name }) }).first();
  const number = 1 + (await page.locator('.editor-group-container').evaluateAll((groups, re) => {
    const test = new RegExp(re.source, re.flags);
    return groups.findIndex((g) => [...g.querySelectorAll('.tab.active')].some((t) => test.test(t.textContent ?? '')));
  }, { source: name.source, flags: name.flags }));
  for (let k = 0; k < 5 && !(await group.evaluate((g) => g.classList.contains('active'))); k++) {
    await group.locator('.monaco-editor .view-lines').first().click({ timeout: 30_000 });
    if (k > 0 && number >= 1 && number <= 8) await page.keyboard.press(`Control+${number}`);
    await page.waitForTimeout(300);
  }
  return activeEditorText(page);
}

/**
 * Closes the active editor (an export read with tabText) without saving, and returns the records
 * panel's frame once it is ready: the same one when the export was beside the panel, a new one
 * when it was in front of it (VS Code builds a hidden panel's page again when it comes back).
 */
export async function closeExport(page: Page): Promise<Frame> {
  await runCommand(page, 'View: Revert and Close Editor');
  return findReadyPanel(page);
}

/** The text of the active editor, read through the clipboard (Monaco renders only visible lines). */
export async function activeEditorText(page: Page): Promise<string> {
  return editorText(page, page.locator('.editor-group-container.active .monaco-editor .view-lines').first());
}

async function editorText(page: Page, lines: Locator): Promise<string> {
  // An editor that has just opened may not have its text (or the clipboard its copy) yet: copy
  // again until something arrives, for up to 10 s; an editor that stays empty reads as empty.
  const deadline = Date.now() + 10_000;
  for (;;) {
    // A click in the editor gives it the keyboard, whatever input element this Monaco version
    // uses (a textarea or an EditContext).
    await lines.click({ timeout: 30_000 });
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+C');
    await page.waitForTimeout(200);
    const text = await page.evaluate(() => navigator.clipboard.readText());
    if (text || Date.now() > deadline) return text;
  }
}

/** Waits until a records panel has received all its rows. */
export async function waitForPanelReady(frame: Frame, timeoutMs = 60_000): Promise<void> {
  await frame.locator('[data-testid="records-panel"][data-phase="ready"]').waitFor({ state: 'attached', timeout: timeoutMs });
  await frame.locator('.row').first().waitFor({ state: 'visible', timeout: timeoutMs });
}

/**
 * The records panel's frame once it is ready, when frames may come and go meanwhile (after a
 * window reload VS Code can replace a restored webview's frame while it loads): a frame that
 * detaches while we wait is looked for again, until the deadline.
 */
export async function findReadyPanel(page: Page, timeoutMs = 60_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = await findWebviewFrame(page, '[data-testid="records-panel"]', Math.max(1, deadline - Date.now()));
    try {
      await waitForPanelReady(frame, Math.max(1, deadline - Date.now()));
      return frame;
    } catch (e) {
      if (!frame.isDetached() || Date.now() >= deadline) throw e;
    }
  }
}

/**
 * The Content-Security-Policy violations the records webview saw (it records every
 * `securitypolicyviolation` event of its document): tests assert there are none.
 */
export async function cspViolations(frame: Frame): Promise<string[]> {
  return frame.evaluate(() => (window as unknown as { __dmarcPerf?: { csp?: string[] } }).__dmarcPerf?.csp ?? ['the panel recorded no CSP list']);
}
