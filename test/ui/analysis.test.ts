import { strict as assert } from 'node:assert';
import type { Frame } from 'playwright-core';
import { presetRange } from '../../src/records/dateInput';
import { RateFormat } from '../../src/shared/percent';
import { startApiServer, type ApiServer } from '../server/server';
import { addAccount, choose, closeExport, cspViolations, findWebviewFrame, openDmarcView, openWorkbench, runCommand, tabText, waitForPanelReady, type Workbench } from './harness';

const KEY = 'ui-analysis-key-5120';
const ORG = 'org-ui-analysis';

interface WireRow {
  source: string;
  visibleFrom: string;
  emails: number;
  date: string;
  alignedSpf: string;
  alignedDkim: string;
  dkims: { domain: string; selector: string; result: string }[];
}

const num = (text: string): number => Number(text.replace(/[^\d.]/g, ''));

describe('records panel analysis in the browser: trend, groups, DKIM fields, layout', () => {
  let wb: Workbench;
  let server: ApiServer;
  let frame: Frame;
  let wire: WireRow[] = [];
  const frames = new Set<Frame>();

  const summaryRows = async (f = frame) => Number(await f.locator('[data-testid="summary-rows"]').getAttribute('data-value'));
  const summaryEmails = async (f = frame) => Number(await f.locator('[data-testid="summary-emails"]').getAttribute('data-value'));

  async function openPanel(range: string): Promise<Frame> {
    await runCommand(wb.page, 'DMARC: Fetch Records for Date Range…');
    // One organization: no pick, the range step names it.
    await wb.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Fetch Records of Analysis Org: range' }).waitFor({ state: 'visible' });
    await choose(wb.page, range);
    // The new panel's frame, not one opened before (which may be detaching as this one opens).
    const f = await findWebviewFrame(wb.page, '[data-testid="records-panel"]', 60_000, frames);
    await waitForPanelReady(f);
    frames.add(f);
    return f;
  }

  /** The rows the server sends for a preset, fetched independently of the extension. */
  async function wireRows(preset: 'last7' | 'last30'): Promise<WireRow[]> {
    const r = presetRange(preset, new Date());
    const url = new URL('/api/public/dmarc-records', server.url);
    url.searchParams.set('organizationId', ORG);
    url.searchParams.set('startDate', r.start.toISOString());
    url.searchParams.set('endDate', r.end.toISOString());
    const body = (await (await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as { dmarcRecords: WireRow[] };
    return body.dmarcRecords;
  }

  before(async () => {
    server = await startApiServer({ keys: { [KEY]: [ORG] }, rowsPerDay: 60 });
    wb = await openWorkbench({ userSettings: { 'workbench.colorTheme': 'Default Dark Modern' } });
    await openDmarcView(wb.page);
    await addAccount(wb.page, { label: 'Analysis', baseUrl: server.url, key: KEY, orgId: ORG, orgName: 'Analysis Org' });
    wire = await wireRows('last7');
    frame = await openPanel('Last 7 days');
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'passed') {
      for (const f of frames) if (!f.isDetached()) assert.deepEqual(await cspViolations(f), [], 'CSP violations in the panel');
    }
    if (this.currentTest?.state === 'failed') await wb?.screenshot(`FAILED-analysis-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  it('draws emails per day, named for screen readers, with the numbers one keystroke away', async () => {
    const total = wire.reduce((a, r) => a + r.emails, 0);
    assert.equal(await summaryEmails(), total);
    const canvas = frame.locator('[data-testid="trend-canvas"]');
    assert.match(String(await canvas.getAttribute('aria-label')), /^Emails per day, /);
    await canvas.focus();
    await wb.page.keyboard.press('t');
    const table = frame.locator('[data-testid="trend-table"]');
    await table.waitFor({ state: 'visible' });
    const days = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th')!.textContent!, tr.querySelectorAll('td')[0]!.textContent!]));
    assert.equal(days.length, 7, 'one line per day of Last 7 days');
    // Each day's emails, independently from the server's rows.
    for (const [day, emails] of days) {
      const expected = wire.filter((r) => new Date(r.date).toISOString().slice(0, 10) === day).reduce((a, r) => a + r.emails, 0);
      assert.equal(num(emails!), expected, `emails on ${day}`);
    }
    await wb.page.keyboard.press('t');
    await table.waitFor({ state: 'hidden' });
    await wb.screenshot('analysis-trend');
  });

  it('choosing days on the trend (keyboard, then mouse) narrows the table, shown as a removable chip', async () => {
    const canvas = frame.locator('[data-testid="trend-canvas"]');
    await canvas.focus();
    await wb.page.keyboard.press('Home');
    await wb.page.keyboard.press('Shift+ArrowRight');
    await wb.page.keyboard.press('Shift+ArrowRight');
    await wb.page.keyboard.press('Enter');
    const chip = frame.locator('[data-testid="chip-days"]');
    await chip.waitFor();
    const r = presetRange('last7', new Date());
    const d0 = r.start.toISOString().slice(0, 10);
    const d2 = new Date(r.start.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
    assert.equal(await chip.locator('.chip-label').innerText(), `Date: ${d0} – ${d2}`);
    const inDays = wire.filter((w) => { const d = w.date.slice(0, 10); return d >= d0 && d <= d2; });
    assert.equal(await summaryRows(), inDays.length);
    assert.equal(await summaryEmails(), inDays.reduce((a, w) => a + w.emails, 0));
    const dates = await frame.locator('.row:visible [data-column="date"]').allInnerTexts();
    assert.ok(dates.length > 0 && dates.every((t) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/.test(t) && t.slice(0, 10) >= d0 && t.slice(0, 10) <= d2), dates.join(' | '));
    await frame.locator('[data-testid="chip-days-remove"]').click();
    await chip.waitFor({ state: 'detached' });
    assert.equal(await summaryRows(), wire.length);

    // A drag across the right half of the chart.
    const box = (await canvas.boundingBox())!;
    await wb.page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.5);
    await wb.page.mouse.down();
    await wb.page.mouse.move(box.x + box.width * 0.9, box.y + box.height * 0.5, { steps: 8 });
    await wb.page.mouse.up();
    await chip.waitFor();
    const [from, to = from] = (await chip.locator('.chip-label').innerText()).replace('Date: ', '').split(' – ');
    assert.ok(from! > d0, `dragged days start after the first day: ${from}`);
    const dragged = wire.filter((w) => w.date.slice(0, 10) >= from! && w.date.slice(0, 10) <= to!);
    assert.equal(await summaryRows(), dragged.length);
    await frame.locator('[data-testid="chip-days-remove"]').click();
    await chip.waitFor({ state: 'detached' });
  });

  it('is redrawn in the new colours when the theme changes', async () => {
    const canvas = frame.locator('[data-testid="trend-canvas"]');
    const before = await canvas.evaluate((c) => (c as HTMLCanvasElement).toDataURL());
    await runCommand(wb.page, 'Preferences: Color Theme');
    await choose(wb.page, 'Light Modern');
    await frame.waitForFunction((b) => (document.querySelector('[data-testid="trend-canvas"]') as HTMLCanvasElement).toDataURL() !== b, before, { timeout: 15_000 });
    await wb.screenshot('analysis-trend-light');
  });

  it('groups by source then IP address with email-weighted rates; a group filters the records; groups export', async () => {
    const groupBy = frame.getByLabel('Group by', { exact: true });
    await groupBy.selectOption('source');
    const grid = frame.getByRole('grid', { name: 'Groups' });
    await grid.waitFor();
    const lines = grid.locator('.groups-line.level-0');
    await lines.first().waitFor();
    const bySource = new Map<string, WireRow[]>();
    for (const w of wire) bySource.set(w.source, [...(bySource.get(w.source) ?? []), w]);
    assert.equal(await grid.getAttribute('aria-rowcount'), String(bySource.size + 1), 'one line per source, plus the header');
    assert.match(await frame.locator('[data-testid="groups-note"]').innerText(), new RegExp(`^${bySource.size} groups? by Source`));
    const top = [...bySource].sort((a, b) => b[1].reduce((s, w) => s + w.emails, 0) - a[1].reduce((s, w) => s + w.emails, 0))[0]!;
    const first = lines.first();
    assert.equal(await first.getAttribute('data-key'), top[0], 'biggest sender first (emails, descending)');
    const cells = await first.locator('[role="gridcell"]').allInnerTexts();
    const emails = top[1].reduce((s, w) => s + w.emails, 0);
    const pass = top[1].filter((w) => w.alignedSpf === 'pass' || w.alignedDkim === 'pass').reduce((s, w) => s + w.emails, 0);
    assert.equal(num(cells[1]!), top[1].length, 'rows');
    assert.equal(num(cells[2]!), emails, 'emails');
    assert.equal(cells[4], new RateFormat('en').format(pass / emails), 'email-weighted DMARC pass, written as the tree writes rates');

    await frame.getByLabel('Then by', { exact: true }).selectOption('ipAddress');
    await grid.focus();
    await wb.page.keyboard.press('Home');
    await wb.page.keyboard.press('ArrowRight');
    const subs = grid.locator('.groups-line.level-1');
    await subs.first().waitFor();
    const ips = new Set(top[1].map((w) => (w as unknown as { ipAddress: string }).ipAddress));
    assert.equal(await grid.getAttribute('aria-rowcount'), String(bySource.size + ips.size + 1), 'the biggest source opened into its IPs');
    // Down to its first IP, then Left: back to the source's line.
    await wb.page.keyboard.press('ArrowDown');
    assert.equal(await grid.getAttribute('aria-activedescendant'), 'group-line-1');
    assert.equal(await grid.locator('#group-line-1').getAttribute('aria-level'), '2');
    await wb.page.keyboard.press('ArrowLeft');
    assert.equal(await grid.getAttribute('aria-activedescendant'), 'group-line-0');
    await wb.screenshot('analysis-groups');

    await first.click();
    const chip = frame.locator('[data-testid="chip-group-0"]');
    await chip.waitFor();
    assert.equal(await chip.locator('.chip-label').innerText(), `Source: ${top[0]}`);
    assert.equal(await summaryRows(), top[1].length);
    assert.equal(await summaryEmails(), emails);

    await frame.locator('[data-testid="groups-export-json"]').click();
    const exported = JSON.parse(await tabText(wb.page, /dmarc-Analysis-Org-groups-\d+\.json/)) as { groupedBy: string; groups: { group: string; subgroup?: string; emails: number; rows: number }[] };
    assert.equal(exported.groupedBy, 'Source → IP address');
    const level0 = exported.groups.filter((g) => g.subgroup === undefined);
    assert.deepEqual(level0.map((g) => [g.group, g.rows, g.emails]), [[top[0], top[1].length, emails]], 'the filtered table: one source');
    assert.equal(exported.groups.filter((g) => g.subgroup !== undefined).reduce((s, g) => s + g.emails, 0), emails, 'its IPs add up');
    // The export was read in front of the panel (narrower than 1,440 px: its tab waited behind it),
    // whose page is built again when it comes back, with its group-by and group filter (a frame
    // known from then on: a panel opened later is looked for among the others).
    frame = await closeExport(wb.page);
    frames.add(frame);
    await frame.locator('[data-testid="groups-export-csv"]').click();
    const csv = (await tabText(wb.page, /dmarc-Analysis-Org-groups-\d+\.csv/)).split(/\r?\n/).filter(Boolean);
    assert.equal(csv[0], 'Group,Subgroup,Rows,Emails,Share,DMARC pass,Aligned SPF,Aligned DKIM,Verdict,Delivered,Quarantined,Rejected,First,Last');
    assert.equal(csv.length, exported.groups.length + 1, 'one line per group and subgroup');
    frame = await closeExport(wb.page);
    frames.add(frame);

    await frame.locator('[data-testid="chip-group-0-remove"]').click();
    await frame.locator('[data-testid="chip-group-0"]').waitFor({ state: 'detached' });
    await frame.getByLabel('Group by', { exact: true }).selectOption('');
    await frame.getByRole('grid', { name: 'Groups' }).waitFor({ state: 'hidden' });
  });

  it('shows DKIM domains and selectors as columns, searches them, and offers top-value facets', async () => {
    // A signing domain that is not the Header From domain (a sender's own, such as mcsv.net).
    const counts = new Map<string, number>();
    for (const w of wire) for (const d of new Set(w.dkims.filter((x) => x.domain !== w.visibleFrom).map((x) => x.domain))) counts.set(d, (counts.get(d) ?? 0) + 1);
    const [domain, rowsWith] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    // Past the top values, the facet's filter box finds it.
    await frame.locator('[data-testid="facet-filter-dkimDomain"]').fill(domain);
    const option = frame.locator(`[data-facet="dkimDomain"][data-value="${domain}"]`);
    await option.click();
    await frame.locator('[data-testid="summary-rows"]', { hasText: new RegExp(`^${rowsWith.toLocaleString('en-US')} rows?`) }).waitFor();
    const sigs = await frame.locator('.row:visible [data-column="dkimDomains"]').allInnerTexts();
    assert.ok(sigs.length > 0 && sigs.every((t) => t.includes(`d=${domain} s=`)), sigs.slice(0, 5).join(' | '));
    await option.click();
    await frame.locator('[data-testid="facet-filter-dkimDomain"]').fill('');

    const selector = wire.flatMap((w) => w.dkims.map((d) => d.selector)).find((s) => s.length >= 2)!;
    const matching = wire.filter((w) => JSON.stringify(w).toLowerCase().includes(selector.toLowerCase()));
    await frame.locator('[data-testid="search"]').fill(selector);
    await frame.locator('[data-testid="summary-rows"]', { hasText: new RegExp(`^${matching.length.toLocaleString('en-US')} rows?`) }).waitFor();
    await frame.locator('[data-testid="search"]').fill('');

    for (const f of ['source', 'visibleFrom', 'reporter', 'ipCountryCode', 'dkimDomain']) {
      assert.ok((await frame.locator(`[data-facet="${f}"]`).count()) > 0, `facet ${f} lists values`);
    }
    const filter = frame.locator('[data-testid="facet-filter-source"]');
    const someSource = wire[0]!.source;
    await filter.fill(someSource.slice(0, 4));
    const shown = await frame.locator('[data-facet="source"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-value') ?? ''));
    assert.ok(shown.length > 0 && shown.every((v) => v.toLowerCase().includes(someSource.slice(0, 4).toLowerCase())), shown.join(','));
    await filter.fill('');

    await frame.getByLabel('Group by', { exact: true }).selectOption('dkimDomain');
    await frame.locator('[data-testid="groups-multi"]', { hasText: 'more than 100%' }).waitFor();
    await frame.getByLabel('Group by', { exact: true }).selectOption('');
  });

  it('fits the key columns at 1280 px with the filters open, remembers moved and resized columns, and collapses details to an edge', async () => {
    const inner = await frame.evaluate(() => window.innerWidth);
    const vp = wb.page.viewportSize()!;
    await wb.page.setViewportSize({ width: vp.width + (1280 - inner), height: vp.height });
    await frame.waitForFunction(() => window.innerWidth === 1280);
    const right = await frame.locator('[data-testid="grid"]').evaluate((g) => g.getBoundingClientRect().right);
    for (const c of ['source', 'ipAddress', 'emails', 'dmarcResult', 'alignedSpf', 'alignedDkim', 'dmarc']) {
      const r = await frame.locator(`[data-testid="grid"] [role="columnheader"][data-column="${c}"]`).evaluate((h) => h.getBoundingClientRect().right);
      assert.ok(r <= right + 1, `${c} is visible (${r} ≤ ${right})`);
    }
    // Move Emails first with the keyboard; widen Source by dragging its edge.
    await frame.locator('[data-testid="grid"] [role="columnheader"][data-column="emails"]').focus();
    await wb.page.keyboard.press('Alt+ArrowLeft');
    await wb.page.keyboard.press('Alt+ArrowLeft');
    const order = async (f: Frame) => f.locator('[data-testid="grid"] [role="columnheader"]').evaluateAll((hs) => hs.map((h) => h.getAttribute('data-column')));
    assert.deepEqual((await order(frame)).slice(0, 3), ['emails', 'source', 'ipAddress']);
    const sash = frame.locator('[data-testid="grid"] [role="columnheader"][data-column="source"] .sash');
    const sb = (await sash.boundingBox())!;
    const width = async (f: Frame) => f.locator('[data-testid="grid"] [role="columnheader"][data-column="source"]').evaluate((h) => Math.round(h.getBoundingClientRect().width));
    const w0 = await width(frame);
    await wb.page.mouse.move(sb.x + sb.width / 2, sb.y + sb.height / 2);
    await wb.page.mouse.down();
    await wb.page.mouse.move(sb.x + sb.width / 2 + 60, sb.y + sb.height / 2, { steps: 6 });
    await wb.page.mouse.up();
    assert.equal(await width(frame), w0 + 60);

    // Another panel opens with the same layout (kept per user, not per panel).
    const other = await openPanel('Last 30 days');
    assert.deepEqual((await order(other)).slice(0, 3), ['emails', 'source', 'ipAddress']);
    assert.equal(await width(other), w0 + 60);

    // Selecting rows does not move the toolbar's buttons.
    const exportX = async () => other.locator('[data-testid="export-json"]').evaluate((b) => b.getBoundingClientRect().left);
    const x0 = await exportX();
    await other.locator('.row:visible').first().click();
    await wb.page.keyboard.press('Control+A');
    await other.locator('[data-testid="selected-count"][data-value]:not([data-value="0"])').waitFor();
    assert.equal(await exportX(), x0, 'Export JSON stays put when the selection changes');
    await wb.page.keyboard.press('Escape');

    // Details collapse to a strip at the edge, and open from it.
    await other.locator('[data-testid="detail-toggle"]').click();
    const edge = other.locator('[data-testid="detail-edge"]');
    await edge.waitFor({ state: 'visible' });
    const detailWidth = await other.locator('[data-testid="detail"]').evaluate((d) => d.getBoundingClientRect().width);
    assert.ok(detailWidth > 0 && detailWidth <= 40, `collapsed to ${detailWidth}px`);
    await edge.click();
    await edge.waitFor({ state: 'hidden' });
    assert.ok((await other.locator('[data-testid="detail"]').evaluate((d) => d.getBoundingClientRect().width)) > 200);

    // Reset for the next test run in the same profile.
    await other.locator('[data-testid="columns-menu"]').click();
    await other.locator('[role="menuitem"]', { hasText: 'Reset Column Order and Widths' }).click();
    assert.deepEqual((await order(other)).slice(0, 3), ['source', 'ipAddress', 'emails']);
  });
});
