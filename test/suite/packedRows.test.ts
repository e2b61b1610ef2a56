// Rows to the webview deflated while VS Code holds many of them (src/panel/rowSender.ts,
// PACK_IN_FLIGHT): the real webview of the test host inflates them and has every row.
import { strict as assert } from 'node:assert';
import { bigLoadAccount, selectedCounts, until, untilWebviewHas } from './helpers';

describe('rows deflated on their way to the webview (extension host, local API server)', () => {
  const ctx = bigLoadAccount('Packed rows', 'packed-rows-key-51c2', { id: 'org-packed-rows', name: 'Packed Org' }, 8_000);

  it('while VS Code holds 32 messages or more they go deflated, and the webview reads every row', async function () {
    this.timeout(180_000);
    const account = ctx.api.accounts.get(ctx.accountId)!;
    const day0 = Math.floor(Date.now() / 86_400_000) - 60;
    const opened = ctx.api.panels.open({ account, org: account.organizations[0]!, start: new Date(day0 * 86_400_000), end: new Date((day0 + 7) * 86_400_000 - 1) });
    const webview = opened.panel.webview;
    const post = webview.postMessage.bind(webview);
    const selected = selectedCounts(opened);
    const told: boolean[] = [];
    let forwardReports = true;
    const handle = opened.handleMessage.bind(opened);
    opened.handleMessage = (m: unknown) => {
      const msg = m as { type?: unknown; behind?: unknown };
      if (msg?.type === 'rowsBehind' && typeof msg.behind === 'boolean') {
        told.push(msg.behind);
        if (!forwardReports) return Promise.resolve();
        if (!msg.behind) forwardReports = false; // the last report the host hears: it keeps up
      }
      return handle(m);
    };
    // The page has started and says it reads rows as they come: the host deflates only then.
    // Its later reports stay with the test: whether it falls behind for a moment while the body
    // arrives depends on the machine (on a cold CI machine it was still starting, and nothing was
    // deflated), and this test is about deflated rows reaching the page whole.
    await until(() => told.includes(false) || undefined, 'the page to say it keeps up', 60_000);
    let packed = 0;
    let plain = 0;
    // VS Code behind: it takes no rows message until the whole body is in, then one every 20 ms,
    // so 64 stay in flight with the rest of the rows waiting behind them.
    const acks: (() => void)[] = [];
    let releasing: ReturnType<typeof setInterval> | undefined;
    (webview as unknown as { postMessage: (m: Record<string, unknown>) => Thenable<boolean> }).postMessage = async (m) => {
      if (m.type !== 'rows') return post(m);
      if (m.packed === true) packed++;
      else plain++;
      const ok = await post(m);
      if (m.offset !== 0) await new Promise<void>((r) => acks.push(r));
      return ok;
    };
    try {
      const loading = opened.load(false);
      // Until the rows stop coming (the body is in), then VS Code takes them, slowly.
      for (let seen = -1; seen !== opened.rows.length; ) {
        seen = opened.rows.length;
        await new Promise((r) => setTimeout(r, 1000));
      }
      releasing = setInterval(() => acks.shift()?.(), 20);
      await loading;
      clearInterval(releasing);
      const rows = opened.rows.length;
      assert.ok(rows >= 50_000, `a load of many messages (${rows} rows)`);
      assert.ok(packed > 0 && plain > 32, `some deflated (${packed}), the first ones not (${plain})`);
      // Select All in the webview: it says how many rows it selected, which is every row it read.
      await untilWebviewHas(opened, selected, rows);
    } finally {
      clearInterval(releasing);
      acks.splice(0).forEach((ack) => ack());
      opened.panel.dispose();
    }
  });
});
