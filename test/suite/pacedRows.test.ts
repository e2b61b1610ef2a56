// The download paced by the table (src/panel/rowSender.ts, room()): while VS Code delivers the
// rows messages slowly, the panel takes rows from the network only as fast as they are delivered,
// PACE_ROWS ahead at most; the rest of the body waits in the network. Real panel, store and client
// in the extension host, over real HTTP against the local API server.
import { strict as assert } from 'node:assert';
import { bigLoadAccount, selectedCounts, untilWebviewHas } from './helpers';
import { PACE_ROWS } from '../../src/panel/rowSender';

const PER_DAY = 14_000;
/** A week of them: more than PACE_ROWS ahead of a slow webview. */
const ROWS = 7 * PER_DAY;

describe('the download paced by the webview (extension host, local API server)', () => {
  const ctx = bigLoadAccount('Paced rows', 'paced-rows-key-7d03', { id: 'org-paced-rows', name: 'Paced Org' }, PER_DAY);

  it('takes rows from the network no faster than the webview gets them, then every row', async function () {
    this.timeout(180_000);
    const account = ctx.api.accounts.get(ctx.accountId)!;
    const day0 = Math.floor(Date.now() / 86_400_000) - 90;
    const opened = ctx.api.panels.open({ account, org: account.organizations[0]!, start: new Date(day0 * 86_400_000), end: new Date((day0 + 7) * 86_400_000 - 1) });
    const webview = opened.panel.webview;
    const post = webview.postMessage.bind(webview);
    const selected = selectedCounts(opened);
    // The first load (the page starting meanwhile) ends with every row in the page.
    await untilWebviewHas(opened, selected, ROWS, 120_000);
    // Then a refresh, with VS Code slow: after the first, one rows message (1,250 rows) is
    // delivered every 400 ms.
    let delivered = 0;
    // Rows taken when the page read the first message: what came before it started reading is let through.
    let startup: number | undefined;
    const queue: (() => void)[] = [];
    let fast = false;
    (webview as unknown as { postMessage: (m: Record<string, unknown>) => Thenable<boolean> }).postMessage = async (m) => {
      if (m.type !== 'rows') return post(m);
      const ok = await post(m);
      if (m.offset === 0) startup = opened.rows.length;
      else if (!fast) await new Promise<void>((r) => queue.push(r));
      delivered += Number(m.count);
      return ok;
    };
    const trickle = setInterval(() => queue.shift()?.(), 400);
    try {
      selected.length = 0;
      const loading = opened.load(true);
      // While it loads: the rows taken stay within PACE_ROWS (and one read's rows) of those
      // delivered, besides those taken before the page read the first message and not delivered yet.
      let ahead = 0;
      let samples = 0;
      let done = false;
      void loading.finally(() => (done = true));
      for (const t0 = Date.now(); !done && Date.now() - t0 < 6_000; samples++) {
        if (startup !== undefined) ahead = Math.max(ahead, opened.rows.length - delivered - Math.max(0, startup - delivered));
        await new Promise((r) => setTimeout(r, 50));
      }
      const taken = opened.rows.length;
      assert.ok(samples > 50 && !done, `still loading after 6 s of slow delivery (${taken} rows taken, ${delivered} delivered)`);
      assert.ok(taken < ROWS, `not every row taken meanwhile (${taken} of ${ROWS})`);
      assert.ok(ahead > PACE_ROWS / 2 && ahead <= PACE_ROWS + 10_000, `at most ${PACE_ROWS} rows ahead of the webview, and one read (${ahead}; ${startup} before it read)`);
      // VS Code catches up: every row comes, and the webview has them all.
      fast = true;
      queue.splice(0).forEach((r) => r());
      await loading;
      const rows = opened.rows.length;
      assert.equal(rows, ROWS, 'every row in the end');
      await untilWebviewHas(opened, selected, rows);
    } finally {
      clearInterval(trickle);
      fast = true;
      queue.splice(0).forEach((r) => r());
      opened.panel.dispose();
    }
  });
});
