import { strict as assert } from 'node:assert';
import type { Frame } from 'playwright-core';
import { periodHealth } from '../../src/advice/health';
import { adviceOf } from '../../src/advice/reasons';
import type { SourceAdvice } from '../../src/advice/tally';
import { DEFAULT_THRESHOLDS, termOf } from '../../src/advice/vocabulary';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord } from '../../src/api/types';
import { presetRange } from '../../src/records/dateInput';
import { startApiServer, type ApiServer } from '../server/server';
import { addAccount, choose, closeAllEditors, closeExport, cspViolations, findWebviewFrame, openDmarcView, openWorkbench, runCommand, tabText, waitForPanelReady, type Workbench } from './harness';

const KEY = 'ui-advice-key-41a7';
/** The demo's organization whose Mailchimp mail is rejected: legitimate mail lost, a source to fix. */
const ORG = 'wayne';

/** The sources the Advice lists, in its order (media/webview/ui/advice.ts), computed here from the wire. */
function listed(records: readonly DmarcRecord[], days: number): SourceAdvice[] {
  return periodHealth(records, { thresholds: DEFAULT_THRESHOLDS, days })
    .sources.filter((s) => s.verdict !== 'compliant' && s.verdict !== '')
    .sort((a, b) => b.failing - a.failing || b.mix[3] - a.mix[3] || (a.source < b.source ? -1 : 1));
}

describe('the Advice region in the browser: readiness, sources to fix, keyboard, copy and export', () => {
  let wb: Workbench;
  let server: ApiServer;
  let frame: Frame;
  let records: DmarcRecord[] = [];

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 50 });
    wb = await openWorkbench();
    await openDmarcView(wb.page);
    await addAccount(wb.page, { label: 'Advice', baseUrl: server.url, key: KEY, orgId: ORG, orgName: 'Wayne' });
    // The rows the server sends for the range, read apart from the extension.
    const r = presetRange('last30', new Date());
    const url = new URL('/api/public/dmarc-records', server.url);
    url.searchParams.set('organizationId', ORG);
    url.searchParams.set('startDate', r.start.toISOString());
    url.searchParams.set('endDate', r.end.toISOString());
    const body = (await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as { dmarcRecords: unknown[] };
    records = body.dmarcRecords.map(normaliseRow).flatMap((x) => ('record' in x ? [x.record] : []));
    // A window restored with an earlier run's panels open: only this test's panel is looked for.
    await closeAllEditors(wb.page);
    const before = new Set(wb.page.frames());
    await runCommand(wb.page, 'DMARC: Fetch Records for Date Range…');
    await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Fetch Records of Wayne: range' }).waitFor({ state: 'visible' });
    await choose(wb.page, 'Last 30 days');
    frame = await findWebviewFrame(wb.page, '[data-testid="records-panel"]', 60_000, before);
    await waitForPanelReady(frame);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'passed') assert.deepEqual(await cspViolations(frame), [], 'CSP violations in the panel');
    if (this.currentTest?.state === 'failed') await wb?.screenshot(`FAILED-advice-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  it('names the next step and lists the sources to fix as the rules compute them from the rows', async () => {
    const health = periodHealth(records, { thresholds: DEFAULT_THRESHOLDS, days: 30 });
    const expected = listed(records, 30);
    assert.ok(expected.length >= 2, 'the data has sources to list');
    const region = frame.getByRole('region', { name: 'Advice' });
    await region.waitFor({ state: 'visible' });
    // The Advice follows the rows (the analysis redraws once a frame is painted): it ends on every row's.
    await frame
      .waitForFunction((text) => document.querySelector('[data-testid="advice-step"]')?.textContent === text, health.readiness.step.text, { timeout: 15_000 })
      .catch(() => undefined);
    assert.equal(await frame.locator('[data-testid="advice-step"]').innerText(), health.readiness.step.text);
    assert.equal(health.readiness.step.kind, 'losing', 'Wayne loses Mailchimp mail to rejection');
    const items = frame.locator('[data-testid="advice-item"]');
    assert.deepEqual(await items.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.source)), expected.map((s) => s.source));
    const first = items.first();
    // The fix as words: its `quoted` domains drawn as code, never as HTML.
    assert.equal(await first.locator('.advice-fix').innerText(), expected[0]!.fix.replace(/`/g, ''));
    assert.ok((await first.locator('.advice-fix code').count()) >= 2, 'domains shown as code');
    assert.match(await first.innerText(), new RegExp(termOf(expected[0]!.verdict)!.label));
    // API rows carry no override reason: that facet is not offered.
    assert.equal(await frame.locator('[data-facet-group="override"]').isVisible(), false);
    // The API states no published policy, and the Advice says so.
    assert.match(await frame.locator('[data-testid="advice-policy"]').innerText(), /Published\s*not in the API’s rows/);
  });

  it('keyboard: arrows move through the sources, Enter filters the table to that source and its verdict', async () => {
    const expected = listed(records, 30);
    const items = frame.locator('[data-testid="advice-item"]');
    await items.first().focus();
    await wb.page.keyboard.press('ArrowDown');
    assert.equal(await frame.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.source), expected[1]!.source);
    await wb.page.keyboard.press('ArrowUp');
    await wb.page.keyboard.press('Enter');
    const want = records.filter((r) => r.source === expected[0]!.source && adviceOf(r).cls === expected[0]!.verdict);
    await frame.waitForFunction((n) => document.querySelector('[data-testid="summary-rows"]')?.getAttribute('data-value') === String(n), want.length, { timeout: 15_000 });
    assert.equal(Number(await frame.locator('[data-testid="summary-emails"]').getAttribute('data-value')), want.reduce((a, r) => a + r.emails, 0));
    // The Advice follows the filter: only that source is left.
    await frame.waitForFunction(() => document.querySelectorAll('[data-testid="advice-item"]').length === 1);
  });

  it('Copy puts the fix on the clipboard; the list exports as JSON', async () => {
    // The table shows the first source's rows of its verdict's class (the test before chose it).
    const top = listed(records, 30)[0]!;
    const expected = listed(records.filter((r) => r.source === top.source && adviceOf(r).cls === top.verdict), 30);
    const item = frame.locator('[data-testid="advice-item"]').first();
    await item.locator('.advice-copy').click();
    await frame.locator('[data-testid="export-status"]', { hasText: 'Fix text copied.' }).waitFor({ state: 'visible' });
    assert.equal(await wb.page.evaluate(() => navigator.clipboard.readText()), expected[0]!.fix);
    await frame.locator('[data-testid="advice-export-json"]').click();
    // This panel is narrower than 1,440 px: the export waits in a tab behind it, and the page says which.
    await frame.locator('[data-testid="export-status"]', { hasText: /^Exported the advice on \d+ sources? as JSON to the tab dmarc-Wayne-advice-\d+\.json, next to this one\.$/ }).waitFor();
    // Read in front of the panel, whose page goes meanwhile: what it saw is checked first.
    assert.deepEqual(await cspViolations(frame), [], 'CSP violations in the panel');
    const json = JSON.parse(await tabText(wb.page, /dmarc-Wayne-advice-\d+\.json/)) as { advice: string; sources: { source: string; fix: string; emails: number }[] };
    assert.deepEqual(json.sources.map((s) => [s.source, s.emails, s.fix]), expected.map((s) => [s.source, s.emails, s.fix]));
    // Back to the panel: its page built again as it was.
    frame = await closeExport(wb.page);
  });

  it('collapses and opens again from its header, and says so to screen readers', async () => {
    await frame.locator('[data-testid="records-panel"]').waitFor();
    const toggle = frame.locator('[data-testid="advice-toggle"]');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await frame.locator('#advice-body').isVisible(), false);
    await toggle.press('Enter');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    // And the view recomputed on the change leaves it as the user set it.
    await frame.waitForTimeout(300);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await frame.locator('[data-testid="advice-list"]').waitFor({ state: 'visible' });
  });

  it('grouped by source, each group carries the verdict the Advice and the tree give it, sorted worst first; the verdict is a Group by field and a filter', async () => {
    const health = periodHealth(records, { thresholds: DEFAULT_THRESHOLDS, days: 30 });
    await frame.locator('[data-testid="facets-clear"]').click();
    await frame.waitForFunction((n) => document.querySelector('[data-testid="summary-rows"]')?.getAttribute('data-value') === String(n), records.length, { timeout: 15_000 });
    await frame.getByLabel('Group by', { exact: true }).selectOption('source');
    const grid = frame.getByRole('grid', { name: 'Groups' });
    await grid.locator('.groups-line.level-0').first().waitFor();
    const shown = async (): Promise<[string, string][]> =>
      grid.locator('.groups-line.level-0').evaluateAll((els) => els.map((e) => [(e as HTMLElement).dataset.key ?? '', e.querySelector('.group-verdict')?.textContent ?? '']));
    const want = new Map(health.sources.map((s) => [s.source, s.verdict ? termOf(s.verdict)!.label : '']));
    const lines = await shown();
    assert.ok(lines.length >= 3, 'several sources');
    for (const [source, verdict] of lines) assert.equal(verdict, want.get(source), `the verdict of ${source}`);
    assert.ok(lines.some(([, v]) => v === 'Needs fixing') && lines.some(([, v]) => v === 'Compliant'));
    // The verdict's tooltip gives the mix; a click on its header puts what needs fixing first.
    const mailchimp = health.sources.find((s) => s.source === 'Mailchimp')!;
    assert.match(String(await grid.locator('.groups-line.level-0[data-key="Mailchimp"] .group-verdict').getAttribute('title')), new RegExp(`Needs fixing ${mailchimp.mix[2].toLocaleString('en-US')}`));
    await grid.locator('[data-column="verdict"]').click();
    await frame.waitForFunction(() => document.querySelector('[data-column="verdict"]')?.getAttribute('aria-sort') === 'descending');
    const sorted = (await shown()).map(([, v]) => v);
    const rank = (v: string): number => ['Needs fixing', 'Unauthenticated', 'Forwarded', 'Compliant', ''].indexOf(v);
    assert.deepEqual(sorted, [...sorted].sort((a, b) => rank(a) - rank(b)));
    // Grouped by the verdict of each row's source: one group per verdict, with its sources' emails.
    await frame.getByLabel('Group by', { exact: true }).selectOption('verdict');
    await frame.waitForFunction(() => document.querySelector('[data-testid="groups-note"]')?.textContent?.includes('Verdict of its source'));
    const byVerdict = await grid.locator('.groups-line.level-0').evaluateAll((els) => els.map((e) => [(e as HTMLElement).dataset.key ?? '', e.querySelectorAll('.groups-cell')[2]?.textContent ?? '']));
    const emailsOf = (label: string): string => health.sources.filter((x) => want.get(x.source) === label).reduce((n, x) => n + x.emails, 0).toLocaleString('en-US');
    assert.ok(byVerdict.length >= 2);
    for (const [label, emails] of byVerdict) assert.equal(emails, emailsOf(label), label);
    await frame.getByLabel('Group by', { exact: true }).selectOption('');
    // And a filter: ticking Needs fixing keeps the rows of the sources judged so.
    const fixing = new Set(health.sources.filter((x) => x.verdict === 'needs-fixing').map((x) => x.source));
    const fixingRows = records.filter((r) => fixing.has(r.source));
    await frame.locator('.facet-option[data-facet="verdict"][data-value="Needs fixing"]').click();
    await frame.waitForFunction((n) => document.querySelector('[data-testid="summary-rows"]')?.getAttribute('data-value') === String(n), fixingRows.length, { timeout: 15_000 });
    assert.match(String(await frame.locator('.facet-option[data-facet="verdict"][data-value="Needs fixing"]').getAttribute('title')), /^Rows of sources whose verdict is Needs fixing/);
    await frame.locator('[data-testid="facets-clear"]').click();
  });
});
