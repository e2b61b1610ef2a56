import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { accept, answer, closeAllEditors, closeExport, cspViolations, findWebviewFrame, openDmarcView, tabText, waitForPanelReady } from './harness';

interface Harness {
  repoRoot: string;
  screenshots: string;
  launchBrowser(o?: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } }): Promise<{ browser: Browser; page: Page }>;
}
const h = () => (globalThis as unknown as { __dmarcHarness: Harness }).__dmarcHarness;

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Every process below `root` (from /proc), and whether a process still runs (a zombie does not). */
function descendants(root: number): number[] {
  const parentOf = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(ppid, [...(parentOf.get(ppid) ?? []), Number(name)]);
    } catch {
      /* gone meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (pid: number): void => {
    for (const c of parentOf.get(pid) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function listening(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

describe('npm run demo, end to end in the browser', () => {
  let demo: ChildProcess;
  let out = '';
  let browser: Browser;
  let page: Page;
  let editorPort: number;
  let apiPort: number;

  /**
   * A screenshot of the page, of a part of it (`clip`) or of one element (a Locator, in the page or
   * in the panel's webview): the README's pictures are of the region their caption is about, which
   * keeps them legible and the .vsix that ships them small.
   */
  async function shot(name: string, region?: { x: number; y: number; width: number; height: number } | Locator): Promise<void> {
    const file = join(h().screenshots, `demo-${name}.png`);
    if (region && 'screenshot' in region) await region.screenshot({ path: file });
    else await page.screenshot({ path: file, ...(region ? { clip: region } : {}) });
    // The README shows these; DMARC_README_SCREENSHOTS=1 refreshes its copies.
    if (process.env.DMARC_README_SCREENSHOTS && !name.startsWith('FAILED')) {
      mkdirSync(join(h().repoRoot, 'media', 'screenshots'), { recursive: true });
      copyFileSync(file, join(h().repoRoot, 'media', 'screenshots', `${name}.png`));
    }
  }

  before(async () => {
    editorPort = await freePort();
    apiPort = await freePort();
    demo = spawn(process.execPath, [join(h().repoRoot, 'test/demo/demo.mjs'), '--browser', '--no-build', '--port', String(editorPort), '--api-port', String(apiPort)], {
      cwd: h().repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    demo.stdout!.on('data', (b) => (out += b));
    demo.stderr!.on('data', (b) => (out += b));
    const deadline = Date.now() + 240_000;
    while (!/Press Ctrl\+C to stop the demo/.test(out)) {
      if (demo.exitCode !== null) throw new Error(`the demo exited: ${out}`);
      if (Date.now() > deadline) throw new Error(`the demo did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    // A common laptop's width (the panel's first columns fit at 1280 px with the filters open); the
    // README's screenshots, which ship in the .vsix, are a fifth smaller than at 1400 × 900.
    ({ browser, page } = await h().launchBrowser({ colorScheme: 'dark', viewport: { width: 1280, height: 800 } }));
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page && !page.isClosed()) await shot(`FAILED-${this.currentTest.title.slice(0, 30).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  after(async () => {
    await browser?.close();
    if (demo && demo.exitCode === null) demo.kill('SIGKILL');
  });

  it('prints the editor URL, the local base URL and a demo key', () => {
    assert.match(out, new RegExp(`http://127\\.0\\.0\\.1:${editorPort}/\\?folder=`));
    assert.match(out, new RegExp(`base URL:\\s+http://127\\.0\\.0\\.1:${apiPort}`));
    assert.match(out, /API key:\s+demo-key-\S+/);
  });

  it('a user adds the demo account (base URL pre-filled), expands a month, opens its records and exports two rows', async () => {
    const url = /(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/.exec(out)![1];
    const key = /API key:\s+(\S+)/.exec(out)![1];
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await openDmarcView(page);
    await page.locator('.sidebar .composite.title', { hasText: /demo/i }).first().waitFor({ timeout: 30_000 });

    await page.locator('.welcome-view-content .monaco-button', { hasText: 'Add Account' }).click();
    await answer(page, 'Demo');
    const baseUrlBox = page.locator('.quick-input-widget input');
    await baseUrlBox.waitFor({ state: 'visible' });
    assert.equal(await baseUrlBox.inputValue(), `http://127.0.0.1:${apiPort}`, 'the base URL is pre-filled');
    await accept(page);
    await answer(page, key);
    await answer(page, 'acme');
    await answer(page, 'Acme Corporation');
    const org = page.locator('.sidebar .monaco-list-row', { hasText: 'Acme Corporation' }).first();
    await org.waitFor({ state: 'visible', timeout: 30_000 });
    await org.click();

    const month = page.locator('.sidebar .monaco-list-row', { hasText: /^(January|February|March|April|May|June|July|August|September|October|November|December) \d{4}/ }).nth(1);
    await month.waitFor({ state: 'visible' });
    await month.click();
    await page.locator('.sidebar .monaco-list-row', { hasText: /% pass · [\d,]+ emails?/ }).first().waitFor({ state: 'visible', timeout: 60_000 });
    await shot('tree');

    await month.hover();
    await month.locator('.action-label[aria-label="Open Records"]').click();
    let frame = await findWebviewFrame(page, '[data-testid="records-panel"]', 60_000);
    await waitForPanelReady(frame);
    // The month's pass rate reads the same in the tree and in the panel.
    const treeRate = /^(\S+%) pass/.exec(await page.locator('.sidebar .monaco-list-row', { hasText: /% pass · [\d,]+ emails?/ }).first().innerText())?.[1];
    assert.ok(treeRate, 'the tree shows the month\u2019s pass rate');
    assert.equal(await frame.locator('[data-testid="summary-pass"]').innerText(), `DMARC pass ${treeRate}`);

    // What do I fix, and am I ready for p=reject? The month's Health in the tree and the panel's
    // Advice answer the same: legitimate mail is being lost, and which sources to fix, how.
    const health = page.locator('.sidebar .monaco-list-row', { hasText: /^Health/ }).first();
    await health.waitFor({ state: 'visible' });
    assert.equal(await frame.locator('[data-testid="advice-step"]').getAttribute('data-kind'), 'losing');
    assert.match(await health.innerText(), /Legitimate mail being lost/);
    await health.click();
    const needsFixing = page.locator('.sidebar .monaco-list-row', { hasText: /^Needs fixing \(\d+\)/ }).first();
    await needsFixing.waitFor({ state: 'visible' });
    await needsFixing.click();
    const first = frame.locator('[data-testid="advice-item"]').first();
    const source = String(await first.getAttribute('data-source'));
    assert.match(source, /^(Mailchimp|Salesforce)$/, 'the source losing the most mail is an ESP set up wrong');
    await page.locator('.sidebar .monaco-list-row', { hasText: new RegExp(`^${source}`) }).first().waitFor({ state: 'visible' });
    assert.match(await first.locator('.advice-fix').innerText(), /acme\.com/, 'the fix names the organization\u2019s own domain');
    // Readiness per Header From domain: acme sends as three; choosing one shows its rows alone.
    const domains = frame.locator('[data-testid="advice-domain"]');
    assert.deepEqual((await domains.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.domain))).sort(), ['acme.co.uk', 'acme.com', 'mail.acme.com']);
    await shot('advice', { x: 0, y: 0, width: 1280, height: 520 });
    const rows = Number(await frame.locator('[data-testid="summary-rows"]').getAttribute('data-value'));
    await domains.filter({ hasText: 'acme.co.uk' }).click();
    await frame.waitForFunction(() => document.querySelectorAll('[data-testid="advice-domain"]').length === 0, undefined, { timeout: 15_000 });
    const one = Number(await frame.locator('[data-testid="summary-rows"]').getAttribute('data-value'));
    assert.ok(one > 0 && one < rows, `acme.co.uk's rows: ${one} of ${rows}`);
    await frame.locator('[data-testid="facets-clear"]').click();
    await frame.waitForFunction((n) => document.querySelector('[data-testid="summary-rows"]')?.getAttribute('data-value') === String(n), rows, { timeout: 15_000 });

    await frame.locator('.row:visible').nth(0).click();
    await frame.locator('[data-testid="detail-json"]').waitFor({ state: 'visible' });
    await frame.locator('.row:visible').nth(1).click({ modifiers: ['Shift'] });
    assert.match(await frame.locator('[data-testid="selected-count"]').innerText(), /\b2\b/);
    // The pane as the row's JSON is in (not its "Loading…"), with the DKIM signatures above it.
    const detail = frame.locator('[data-testid="detail"]');
    await detail.locator('[data-testid="detail-json"]').waitFor({ state: 'visible' });
    await detail.locator('[data-testid="detail-dkims"]').waitFor({ state: 'visible' });
    await frame.waitForFunction(() => !document.querySelector('[data-testid="detail"] .placeholder') && (document.querySelector('[data-testid="detail-json"]')?.textContent ?? '').includes('{'));
    // The pane and, to its left, the end of the two selected rows it belongs to (a README image is
    // at least 400 px wide: test/unit/vsix.test.ts).
    const pane = (await detail.boundingBox())!;
    const left = Math.max(0, pane.x + pane.width - 560);
    await shot('json-detail', { x: left, y: pane.y, width: pane.x + pane.width - left, height: pane.height });
    await frame.locator('[data-testid="export-json"]').click();
    // At 1280 px the panel is narrower than 1,440: the export waits in a tab behind it, read in
    // front of it (the panel's page then goes, and is built again when it comes back).
    await frame.locator('[data-testid="export-status"]', { hasText: /to the tab dmarc-Acme-Corporation-\d+\.json, next to this one/ }).waitFor();
    assert.deepEqual(await cspViolations(frame), [], 'no CSP violation in the demo panel');
    const exported = JSON.parse(await tabText(page, /dmarc-Acme-Corporation-\d+\.json/));
    assert.equal(exported.length, 2);
    assert.ok(exported.every((r: { visibleFrom?: string; from?: string }) => /acme/.test(String(r.visibleFrom ?? r.from))));
    frame = await closeExport(page);

    // The analysis: three days chosen on the trend, then the senders grouped by DKIM domain and selector.
    // Chart.js is a script of its own, loaded by the page under its nonce when it first drew the trend.
    await frame.waitForFunction(() => typeof (window as unknown as { __dmarcChart?: unknown }).__dmarcChart === 'function');
    assert.deepEqual(
      (await frame.evaluate(() => [...document.querySelectorAll<HTMLScriptElement>('script[src]')].map((s) => [new URL(s.src).pathname.split('/').pop(), s.nonce !== '']))).sort(),
      [['chart.js', true], ['webview.js', true]],
    );
    const canvas = frame.locator('[data-testid="trend-canvas"]');
    await canvas.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Enter');
    await frame.locator('[data-testid="chip-days"]').waitFor();
    // The keyboard's day tooltip goes with the focus, so the three chosen days are in sight.
    await canvas.evaluate((c) => (c as HTMLElement).blur());
    await frame.locator('[data-testid="trend"] [role="tooltip"], [data-testid="trend"] .trend-tip').first().waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
    await shot('trend', frame.locator('[data-testid="trend"]'));
    await frame.locator('[data-testid="chip-days-remove"]').click();
    // The details pane closed, so the groups have the width they would have in a user's editor.
    await frame.locator('[data-testid="detail-toggle"]').click();
    await frame.locator('[data-testid="detail-toggle"][aria-pressed="false"]').waitFor();
    await frame.getByLabel('Group by', { exact: true }).selectOption('source');
    await frame.getByLabel('Then by', { exact: true }).selectOption('dkimPair');
    const mailchimp = frame.locator('.groups-line.level-0[data-key="Mailchimp"]');
    await mailchimp.waitFor();
    await mailchimp.locator('.twisty').click();
    await frame.locator('.groups-line.level-1', { hasText: 'mcsv.net s=k2' }).first().waitFor();
    // The Groups table itself (below the Advice and the trend), with its Verdict column in sight.
    const groups = frame.locator('[data-testid="groups"]');
    await groups.scrollIntoViewIfNeeded();
    await groups.locator('.group-verdict').first().waitFor({ state: 'visible' });
    await shot('groups', groups);
    assert.deepEqual(await frame.evaluate(() => (window as unknown as { __dmarcPerf: { csp: string[] } }).__dmarcPerf.csp), [], 'no CSP violation in the demo panel');
  });

  it('the records panel fits a small and a large window: opened at 1024 × 700 and at 1440 × 900, sidebar open (the README\u2019s screenshots)', async () => {
    const month = page.locator('.sidebar .monaco-list-row', { hasText: /^(January|February|March|April|May|June|July|August|September|October|November|December) \d{4}/ }).nth(1);
    for (const [width, height] of [[1024, 700], [1440, 900]] as const) {
      await page.setViewportSize({ width, height });
      await closeAllEditors(page);
      const before = new Set(page.frames());
      // Opened at this size, as a user with this window opens it (a small panel starts compact).
      await month.hover();
      await month.locator('.action-label[aria-label="Open Records"]').click();
      const frame = await findWebviewFrame(page, '[data-testid="records-panel"]', 60_000, before);
      await waitForPanelReady(frame);
      const fit = await frame.evaluate(() => {
        const area = document.querySelector('.table-area')!.getBoundingClientRect();
        const rows = [...document.querySelectorAll<HTMLElement>('.row')].filter((r) => {
          const b = r.getBoundingClientRect();
          return r.offsetParent !== null && b.height > 0 && b.top >= area.top && b.bottom <= Math.min(innerHeight, area.bottom);
        });
        // Numbers are never cut (the summary's counts, the Emails cells in sight); a header cut
        // short has its whole label in its tooltip.
        const numbers = [...document.querySelectorAll<HTMLElement>('[data-testid="summary-rows"], [data-testid="summary-emails"]'), ...rows.map((r) => r.querySelector<HTMLElement>('[data-column="emails"]')!)];
        const labels = [...document.querySelectorAll<HTMLElement>('.header-cell .header-label')];
        return {
          rows: rows.length,
          cut: numbers.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent),
          untold: labels.filter((l) => l.scrollWidth > l.clientWidth + 1 && !(l.closest('.header-cell') as HTMLElement).title.includes(l.textContent ?? '')).map((l) => l.textContent),
        };
      });
      // A small panel keeps eight rows in sight (the Advice, trend and details closed); a large one
      // has the Advice and the trend open above its rows.
      assert.ok(fit.rows >= (width < 1440 ? 8 : 5), `${width} × ${height}: ${fit.rows} table rows in sight`);
      assert.deepEqual(fit.cut, [], `${width} × ${height}: numbers cut`);
      assert.deepEqual(fit.untold, [], `${width} × ${height}: headers cut without their label in a tooltip`);
      for (const pane of ['advice-toggle', 'trend-toggle']) assert.equal(await frame.locator(`[data-testid="${pane}"]`).getAttribute('aria-expanded'), String(width >= 1440), `${width} × ${height}: ${pane}`);
      assert.deepEqual(await cspViolations(frame), [], 'no CSP violation');
      // The panel as it is in that window (the editor area: the tree has a screenshot of its own,
      // and the .vsix that ships the README's images has a budget).
      const editor = await page.locator('.part.editor').boundingBox();
      await shot(`panel-${width}x${height}`, editor ?? undefined);
    }
  });

  it('what changed since last week: Last 7 days of Acme Corporation, its sources marked new or ▲/▼ points against the 7 days before (the README\u2019s screenshot)', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await closeAllEditors(page);
    // The month opened above folds away, so the tree shows the organization's periods and the week.
    const month = page.locator('.sidebar .monaco-list-row', { hasText: /^(January|February|March|April|May|June|July|August|September|October|November|December) \d{4}/ }).nth(1);
    if ((await month.getAttribute('aria-expanded')) === 'true') await month.click();
    const last7 = page.locator('.sidebar .monaco-list-row', { hasText: /^Last 7 days/ }).first();
    await last7.waitFor({ state: 'visible' });
    if ((await last7.getAttribute('aria-expanded')) !== 'true') await last7.click();
    // The previous 7 days come in the background; then the sources say what moved. The demo's
    // story (test/server/story.ts) has a new sender and pass rates that moved this week.
    const moved = page.locator('.sidebar .monaco-list-row', { hasText: /· (new|[▲▼][\d.]+ pts)/ });
    await moved.first().waitFor({ state: 'visible', timeout: 60_000 });
    assert.ok((await moved.count()) >= 2, `sources that moved: ${(await moved.allInnerTexts()).join(' | ')}`);
    // The side bar wide enough for a source's whole description (pass rate · emails · change).
    const sidebar = page.locator('.part.sidebar');
    let bar = (await sidebar.boundingBox())!;
    await page.mouse.move(bar.x + bar.width - 1, bar.y + bar.height / 2);
    await page.mouse.down();
    await page.mouse.move(bar.x + 540, bar.y + bar.height / 2, { steps: 8 });
    await page.mouse.up();
    await page.mouse.move(1200, 780);
    bar = (await sidebar.boundingBox())!;
    // The activity bar and the side bar from the organization down to the period after the week.
    const last30 = (await page.locator('.sidebar .monaco-list-row', { hasText: /^Last 30 days/ }).first().boundingBox())!;
    await shot('what-changed', { x: 0, y: bar.y, width: bar.x + bar.width, height: Math.ceil(last30.y + last30.height - bar.y) + 4 });
  });

  it('Ctrl+C stops everything the demo started', async () => {
    await browser.close();
    assert.ok(await listening(editorPort));
    demo.kill('SIGINT');
    const code = await new Promise<number | null>((r) => (demo.exitCode !== null ? r(demo.exitCode) : demo.once('exit', (c) => r(c))));
    assert.equal(code, 0);
    assert.match(out, /demo: stopped\./);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await listening(editorPort), false, 'the editor is gone');
    assert.equal(await listening(apiPort), false, 'the API server is gone');
  });

  it('a signal to the npm process (SIGINT, SIGTERM, SIGHUP) or npm killed outright leaves no process and no port behind', async function () {
    this.timeout(600_000);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'] as const) {
      const ports = [await freePort(), await freePort()];
      // What a process manager or an IDE task runs, and then signals: npm alone, not its group.
      const npm = spawn('npm', ['run', 'demo', '--', '--browser', '--port', String(ports[0]), '--api-port', String(ports[1])], { cwd: h().repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      npm.stdout!.on('data', (b) => (text += b));
      npm.stderr!.on('data', (b) => (text += b));
      const deadline = Date.now() + 240_000;
      while (!/Press Ctrl\+C to stop the demo/.test(text)) {
        if (npm.exitCode !== null) throw new Error(`npm run demo exited: ${text}`);
        if (Date.now() > deadline) throw new Error(`npm run demo did not start: ${text}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const started = descendants(npm.pid!);
      assert.ok(started.length >= 4, `${signal}: the demo runs as several processes (${started.length})`);
      assert.ok((await listening(ports[0]!)) && (await listening(ports[1]!)), `${signal}: the editor and the API answer`);
      process.kill(npm.pid!, signal);
      const until = Date.now() + 30_000;
      let left = started.filter(running);
      while ((left.length > 0 || (await listening(ports[0]!)) || (await listening(ports[1]!))) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 250));
        left = started.filter(running);
      }
      assert.deepEqual(left, [], `${signal}: no process of the demo is left`);
      assert.equal(await listening(ports[0]!), false, `${signal}: the editor's port is closed`);
      assert.equal(await listening(ports[1]!), false, `${signal}: the API's port is closed`);
    }
  });

  it('the editor\u2019s port in use: a clear message, and the API server it had started is stopped too', async () => {
    const net = await import('node:net');
    const blocker = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const busy = (blocker.address() as { port: number }).port;
    const api = await freePort();
    try {
      const child = spawn(process.execPath, [join(h().repoRoot, 'test/demo/demo.mjs'), '--browser', '--no-build', '--port', String(busy), '--api-port', String(api)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout!.on('data', (b) => (text += b));
      child.stderr!.on('data', (b) => (text += b));
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      assert.equal(code, 1);
      assert.match(text, new RegExp(`port ${busy} \\(the editor\\) is already in use`));
      assert.match(text, /demo: stopped\./, 'what it had started was stopped');
      assert.equal(await listening(api), false, 'the API server is not left running');
    } finally {
      blocker.close();
    }
  });

  it('a port already in use gives a clear message and a way to choose another', async () => {
    const net = await import('node:net');
    const blocker = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const busy = (blocker.address() as { port: number }).port;
    try {
      const child = spawn(process.execPath, [join(h().repoRoot, 'test/demo/demo.mjs'), '--browser', '--no-build', '--api-port', String(busy)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout!.on('data', (b) => (text += b));
      child.stderr!.on('data', (b) => (text += b));
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      assert.equal(code, 1);
      assert.match(text, new RegExp(`port ${busy} .*already in use`));
      assert.match(text, /--api-port \d+/);
    } finally {
      blocker.close();
    }
  });
});
