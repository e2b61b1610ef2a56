// The demo's week-over-week story (test/server/story.ts), read over real HTTP from the local API
// server: each part where it should be, the rest of the data untouched, and no story unless asked.
import { strict as assert } from 'node:assert';
import { DAY_MS, findOrganization, generateDay, type WireRow } from '../server/data';
import { startApiServer, type ApiServer } from '../server/server';
import { storyDay } from '../server/story';
import { DEFAULT_WATCH, findingsOf, watchWindow, type WatchRow } from '../../src/advice/findings';
import { NOW, apiUrl, get, range } from './serverHelpers';

const nowDay = Math.floor(NOW.getTime() / DAY_MS);
const dayOf = (row: WireRow) => Math.floor(Date.parse(row.date) / DAY_MS);
const emailsOf = (rows: readonly WireRow[]) => rows.reduce((n, r) => n + r.emails, 0);
/** Email-weighted DMARC pass rate in percent. */
const passRate = (rows: readonly WireRow[]) => (100 * emailsOf(rows.filter((r) => r.alignedSpf === 'pass' || r.alignedDkim === 'pass'))) / emailsOf(rows);
/** The rows of the days `from`..`to` (ages: days before the server's today) as one list. */
const between = (rows: readonly WireRow[], from: number, to: number) => rows.filter((r) => nowDay - dayOf(r) <= from && nowDay - dayOf(r) >= to);

describe('local API server: the week-over-week story', () => {
  let story: ApiServer;
  let plain: ApiServer;
  before(async () => {
    [story, plain] = await Promise.all([startApiServer({ now: NOW, story: true }), startApiServer({ now: NOW })]);
  });
  after(() => Promise.all([story.close(), plain.close()]));

  /** The rows of `org` from `oldest` days before today to `newest` days before today (whole UTC days). */
  async function rows(server: ApiServer, org: string, oldest: number, newest = 0): Promise<WireRow[]> {
    const day = (age: number) => new Date((nowDay - age) * DAY_MS).toISOString().slice(0, 10);
    const r = await get(apiUrl(server.url, range(org, `${day(oldest)}T00:00:00.000Z`, `${day(newest)}T23:59:59.999Z`)));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.dmarcRecords;
  }

  it('acme: a sender never seen before, Brevo, sends only in the last 2 days, a few hundred to a few thousand emails a day, all rejected', async () => {
    const all = await rows(story, 'acme', 395);
    const brevo = all.filter((r) => r.source === 'Brevo');
    assert.deepEqual([...new Set(brevo.map((r) => nowDay - dayOf(r)))].filter((age) => age > 1), [], 'no Brevo row before the last 2 days');
    const [yesterday, today] = [1, 0].map((age) => between(brevo, age, age));
    // Yesterday is whole (the watch's last full day); today is served up to the server's now (noon).
    assert.ok(yesterday!.length >= 3 && yesterday!.length <= 5, `yesterday: ${yesterday!.length} rows`);
    assert.ok(emailsOf(yesterday!) >= 300 && emailsOf(yesterday!) <= 3000, `yesterday: ${emailsOf(yesterday!)} emails`);
    assert.ok(today!.length >= 1, 'and today so far');
    // Signed only as itself, SPF for its own bounce domain: neither aligns, and acme's p=reject rejects it.
    for (const r of brevo) {
      assert.deepEqual(r.dkims.map((d) => `${d.domain} ${d.result}`), ['sendinblue.com pass']);
      assert.equal(r.returnPath, 'bounces.sendinblue.com');
      assert.deepEqual([r.spf, r.alignedSpf, r.alignedDkim, r.dmarc, r.category], ['pass', 'fail', 'fail', 'reject', 'rejected']);
      assert.ok(findOrganization('acme')!.domains.includes(r.visibleFrom));
    }
    // Everything else of acme is the generator's.
    assert.deepEqual(between(all, 20, 0).filter((r) => r.source !== 'Brevo'), await rows(plain, 'acme', 20));
  });

  it('globex: Amazon SES passes every time the week before, then a broken key rotation drops its pass rate by far more than 20 points', async () => {
    const fortnight = await rows(story, 'globex', 13);
    const ses = fortnight.filter((r) => r.source === 'Amazon SES');
    const before = between(ses, 13, 7);
    const last = between(ses, 6, 0);
    assert.ok(before.length >= 10 && last.length >= 10, `${before.length} and ${last.length} rows`);
    const [was, is] = [passRate(before), passRate(last)];
    assert.equal(was, 100);
    assert.ok(was - is > 20, `pass rate ${was.toFixed(1)}% → ${is.toFixed(1)}%`);
    assert.ok(is < 15, `at most 15% of its mail still passes: ${is.toFixed(1)}%`);
    // Every failing row: SES's own MAIL FROM, globex's signature under the new selector failing, quarantined.
    const failing = last.filter((r) => r.alignedDkim !== 'pass');
    assert.ok(failing.length > last.length / 2, `${failing.length} of ${last.length} rows fail`);
    for (const r of failing) {
      assert.deepEqual(r.dkims.filter((d) => d.domain === r.visibleFrom).map((d) => `${d.selector} ${d.result}`), ['rotated2025a7kq fail']);
      assert.deepEqual([r.returnPath, r.alignedSpf, r.dmarc, r.category], ['amazonses.com', 'fail', 'quarantine', 'quarantined']);
    }
    assert.ok(before.every((r) => r.dkims.every((d) => d.selector !== 'rotated2025a7kq')), 'the new selector appears only after the rotation');
    // globex's other sources are the generator's.
    assert.deepEqual(
      fortnight.filter((r) => r.source !== 'Amazon SES'),
      (await rows(plain, 'globex', 13)).filter((r) => r.source !== 'Amazon SES'),
    );
  });

  it('initech: the last 2 days hold at least 3× the average daily emails of the 14 days before, and 4× the rows', async () => {
    const all = await rows(story, 'initech', 15);
    const usual = emailsOf(between(all, 15, 2)) / 14;
    const spike = emailsOf(between(all, 1, 0)) / 2;
    assert.ok(spike >= 3 * usual, `${spike.toFixed(0)} emails a day against ${usual.toFixed(0)}`);
    // Yesterday, a whole day: four times its usual rows; the 14 days before are the generator's.
    const plainRows = await rows(plain, 'initech', 15);
    assert.equal(between(all, 1, 1).length, 4 * between(plainRows, 1, 1).length);
    assert.ok(emailsOf(between(all, 1, 1)) >= 4 * usual - 20, 'yesterday: at least 4× the usual emails (rounding aside)');
    assert.deepEqual(between(all, 15, 2), between(plainRows, 15, 2));
  });

  it('soylent: no rows at all in the last 4 days, rows on every day before', async () => {
    const all = await rows(story, 'soylent', 13);
    assert.deepEqual(between(all, 3, 0), []);
    for (let age = 13; age >= 4; age--) assert.ok(between(all, age, age).length > 0, `rows ${age} days ago`);
    assert.ok(between(await rows(plain, 'soylent', 3), 3, 0).length > 0, 'without the story, soylent reports as usual');
  });

  it('a day of the story reads the same whatever range asked for it', async () => {
    for (const org of ['acme', 'globex', 'initech']) {
      assert.deepEqual(await rows(story, org, 1, 1), between(await rows(story, org, 20), 1, 1), org);
    }
  });

  it('off by default: every organization\u2019s rows are the generator\u2019s, and the story leaves the others alone', async () => {
    for (const id of ['acme', 'globex', 'initech', 'soylent', 'umbrella']) {
      const org = findOrganization(id)!;
      const generated: WireRow[] = [];
      for (let d = nowDay - 20; d <= nowDay; d++) generated.push(...generateDay(org, d, 1).filter((r) => Date.parse(r.date) <= NOW.getTime()));
      assert.deepEqual(await rows(plain, id, 20), JSON.parse(JSON.stringify(generated)), id);
    }
    assert.deepEqual(await rows(story, 'umbrella', 20), await rows(plain, 'umbrella', 20));
  });
  it('is what the watch finds, run on any day of a year: Brevo new, Amazon SES\u2019s pass rate down, the spike, the silence', () => {
    // The watch judges the last full day against the 14 before (src/advice/findings.ts), on the
    // real date in the extension host's test: Amazon SES sent too few emails on 45% of the days
    // for its drop to be judged, and that test failed on those days.
    const year = 365;
    for (let k = -year / 2; k <= year / 2; k += 1) {
      const now = NOW.getTime() + Math.round(k) * DAY_MS;
      const w = watchWindow(now, DEFAULT_WATCH);
      const today = Math.floor(now / DAY_MS);
      const found = new Set<string>();
      for (const id of ['acme', 'globex', 'initech', 'soylent']) {
        const rows: WatchRow[] = [];
        for (let d = Math.floor(w.baselineStart / DAY_MS); d <= Math.floor(w.end / DAY_MS); d++) {
          for (const r of storyDay(findOrganization(id)!, d, today, 1)) rows.push({ dateMs: Date.parse(r.date), source: r.source, emails: r.emails, alignedSpf: r.alignedSpf, alignedDkim: r.alignedDkim });
        }
        for (const f of findingsOf(rows, w, DEFAULT_WATCH)) found.add(`${id}:${f.kind}:${f.subject}`);
      }
      const day = new Date(now).toISOString().slice(0, 10);
      for (const want of ['acme:new-sender:Brevo', 'globex:pass-drop:Amazon SES', 'initech:volume-spike:', 'soylent:reports-stopped:']) assert.ok(found.has(want), `${day}: ${want} in ${[...found].join(', ')}`);
    }
  });
});
