// The records panel's row sender (src/panel/rowSender.ts): rows posted in order, each once, as
// they arrive, before the webview is ready; again from the row a webview asks for when it missed
// some (with the webview's own side of that, media/webview/data/rowStream.ts).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { RowStream, type Resend } from '../../media/webview/data/rowStream';
import { PACE_RESUME_ROWS, PACE_ROWS, PACK_AFTER_BYTES, RowSender } from '../../src/panel/rowSender';
import { encodeRows } from '../../src/records/tuple';
import type { HostMessage } from '../../src/shared/protocol';
import { S } from '../../src/shared/rowCodec';
import { chunkOf, records } from './rowsMessage';

type Rows = Extract<HostMessage, { type: 'rows' }>;

/** No encode budget: chunks of CHUNK rows whatever the machine does meanwhile (the tests of pacing count them). */
const FIXED = { budgetMs: Infinity, now: (): number => 0 };

/** A sender whose posts are acknowledged after `ackMs`, and what it posted. */
function harness(ackMs = 0) {
  const posted: Rows[] = [];
  const sender = new RowSender(
    (m) => {
      if (m.type === 'rows') posted.push(m);
      return new Promise((r) => setTimeout(() => r(true), ackMs));
    },
    () => true,
    false,
    FIXED,
  );
  /** The `source` of every row posted, in row order, checking offsets follow on. */
  const sources = (): string[] => {
    const out: string[] = [];
    for (const m of posted) {
      if (m.offset === 0) out.length = 0;
      assert.equal(m.offset, out.length, 'offsets follow on');
      const c = chunkOf(m);
      assert.equal(c.count, m.count);
      for (let i = 0; i < c.count; i++) out.push(c.strings[c.scalars[S.source]![i]!]!);
    }
    return out;
  };
  return { posted, sender, sources };
}

/**
 * A sender of 100,000 rows whose posts VS Code holds: the first is acknowledged, then none until
 * `release`; resolves once the sender stopped posting (encoding 80,000 rows takes a moment).
 */
/** A sender of 100k rows whose messages VS Code holds; `pageBehind`: what the page has said (null: nothing). */
async function heldSender(pageBehind: boolean | null = false) {
  const posted: Rows[] = [];
  const acks: (() => void)[] = [];
  const sender = new RowSender(
    (m) => {
      if (m.type !== 'rows') return Promise.resolve(true);
      posted.push(m);
      return new Promise((r) => acks.push(() => r(true)));
    },
    () => true,
    false,
    FIXED,
  );
  if (pageBehind !== null) sender.pageBehind(pageBehind);
  sender.add(records(1000));
  sender.add(records(99_000, 1000));
  const done = sender.finish();
  await new Promise((r) => setTimeout(r, 50));
  acks.splice(0).forEach((ack) => ack()); // the first message: the sender waits for it alone
  for (let seen = -1; seen !== posted.length; ) {
    seen = posted.length;
    await new Promise((r) => setTimeout(r, 300));
  }
  /** Acknowledges every message as it comes from now on, until the last is posted. */
  const release = async (): Promise<void> => {
    const timer = setInterval(() => acks.splice(0).forEach((ack) => ack()), 1);
    await done;
    clearInterval(timer);
  };
  return { posted, release, sender, acks };
}

describe('row sender (host → records webview)', () => {
  it('posts rows as they are added, small first, in order, each once, the last chunk flagged once', async () => {
    const { posted, sender, sources } = harness(5);
    sender.add(records(300));
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(posted.length >= 1 && posted[0]!.count === 300 && posted[0]!.growing, 'the first rows go out at once, said to be growing');
    for (let k = 1; k < 10; k++) sender.add(records(1000, 300 + (k - 1) * 1000));
    await sender.finish();
    assert.deepStrictEqual(sources(), records(9300).map((r) => r.source));
    assert.equal(posted.filter((m) => m.last).length, 1);
    assert.ok(posted.at(-1)!.last && !posted.at(-1)!.growing && posted.at(-1)!.total === 9300);
    assert.ok(posted.every((m) => m.count <= 1250), 'chunks stay small');
  });

  it('while rows stream in, a few rows wait at most about BATCH_MS (100 ms), then go out without the rest', async () => {
    const { posted, sender, sources } = harness(0);
    sender.add(records(300));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(posted.length, 1, 'the first rows go out at once');
    sender.add(records(10, 300));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(posted.length, 1, 'ten rows wait for more');
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(posted.length, 2, 'then go out on their own');
    assert.ok(posted[1]!.growing && !posted[1]!.last && posted[1]!.count === 10);
    sender.add(records(5, 310));
    await sender.finish();
    assert.deepStrictEqual(sources(), records(315).map((r) => r.source));
  });

  it('a backlog goes out in small messages, never more than 80,000 rows unacknowledged', async () => {
    const { posted, release } = await heldSender();
    const open = posted.slice(1).reduce((n, m) => n + m.count, 0);
    assert.ok(open >= 80_000 && open < 81_250, `the sender waits with 80,000 rows unacknowledged (${open})`);
    await release();
    const counts = posted.map((m) => m.count);
    assert.equal(counts.reduce((a, b) => a + b, 0), 100_000);
    assert.equal(counts[0], 1000, 'the first message stays small');
    assert.ok(counts.length === 81 && counts.slice(1, -1).every((c) => c === 1250), `then 1,250 a message: ${counts.join(',')}`);
  });

  it('room(): nothing to wait for while few rows are on their way, or before the webview reads; far behind, a promise that resolves once they are down to PACE_RESUME_ROWS', async () => {
    const acks: (() => void)[] = [];
    let count = 0;
    const sender = new RowSender(
      (m) => {
        if (m.type === 'rows') count += m.count;
        return new Promise((r) => acks.push(() => r(true)));
      },
      () => true,
      false,
      FIXED,
    );
    sender.add(records(1000));
    assert.equal(sender.room(), undefined, 'a thousand rows on their way: no wait');
    // Rows that pile up while the webview starts hold nothing, before it reads and after.
    const startup = 10_000;
    sender.add(records(startup, 1000));
    assert.equal(sender.room(), undefined, 'the webview has not read the first message yet (still starting): no wait');
    await new Promise((r) => setTimeout(r, 20));
    acks.splice(0).forEach((ack) => ack()); // now it has
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(sender.room(), undefined, 'what piled up while it started holds nothing');
    const behind = Math.ceil((PACE_ROWS + 5000) / 1250) * 1250;
    sender.add(records(behind, 1000 + startup));
    const room = sender.room();
    assert.ok(room instanceof Promise, `${behind} rows more (PACE_ROWS ${PACE_ROWS}): the download is held`);
    let free = false;
    void room.then(() => (free = true));
    // VS Code holds every message: the rows stay on their way, the promise stays pending.
    const all = 1000 + startup + behind;
    for (let waited = 0; count < all && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(free, false, 'still held while nothing is acknowledged');
    assert.equal(count, all, 'the sender posted what it had meanwhile');
    // Acknowledged one by one (the startup rows first): held until PACE_RESUME_ROWS or fewer of the rest are on their way.
    let acked = 0;
    while (!free && acks.length > 0) {
      acks.shift()!();
      acked += 1250;
      await new Promise((r) => setTimeout(r, 5));
      const left = startup + behind - acked - Math.max(0, startup - acked);
      if (left > PACE_RESUME_ROWS) assert.equal(free, false, `${left} rows on their way: still held`);
    }
    assert.equal(free, true, 'resolved once few enough were on their way');
    assert.ok(startup + behind - acked <= PACE_RESUME_ROWS, `resolved at ${startup + behind - acked} rows on their way`);
    assert.equal(sender.room(), undefined);
    acks.splice(0).forEach((ack) => ack());
  });

  it('room(): a webview that acknowledges nothing for 3 s no longer holds the download, until it acknowledges again; a reset frees a hold', async function () {
    this.timeout(10_000);
    // The first message is read; the others wait until `later` acknowledges them.
    const later: (() => void)[] = [];
    const sender = new RowSender((m) => (m.type === 'rows' && m.offset === 0 ? Promise.resolve(true) : new Promise<boolean>((r) => later.push(() => r(true)))), () => true);
    sender.add(records(1000));
    await new Promise((r) => setTimeout(r, 20));
    sender.add(records(PACE_ROWS + 5000, 1000));
    const t0 = Date.now();
    const stuck = sender.room();
    assert.ok(stuck instanceof Promise);
    await stuck;
    const waited = Date.now() - t0;
    assert.ok(waited >= 2900 && waited < 4500, `let go after ${waited} ms without an acknowledgement`);
    sender.add(records(10, PACE_ROWS + 6000));
    assert.equal(sender.room(), undefined, 'still far behind, but nothing acknowledged since: the download is not held again');
    later.shift()!(); // the webview acknowledges a message again
    await new Promise((r) => setTimeout(r, 20));
    const again = sender.room();
    assert.ok(again instanceof Promise, 'far behind and acknowledging: held again');
    sender.reset();
    await again; // a reset (a retry, or a new load) frees it at once
    sender.add(records(PACE_ROWS + 5000));
    assert.equal(sender.room(), undefined, 'a new load: no hold before its first message is read');
    later.splice(0).forEach((ack) => ack());
  });

  it('deflates chunks only while VS Code holds 32 or more of them; every row arrives once, in order', async () => {
    const { posted, release } = await heldSender();
    // VS Code holds them: the first 32 after the first go as they are, the next 32 deflated.
    assert.equal(posted.length, 65);
    assert.deepStrictEqual(posted.map((m) => m.packed === true), [...Array(33).fill(false), ...Array(32).fill(true)]);
    assert.ok(posted[40]!.data.byteLength * 2 < encodeRows(records(100_000), posted[40]!.offset, posted[40]!.count).byteLength, 'deflated: less than half the bytes');
    // Then it keeps up (each acknowledged at once): the rest go as they are.
    await release();
    assert.ok(posted.slice(65).some((m) => m.packed !== true));
    const sources: string[] = [];
    for (const m of posted) {
      assert.equal(m.offset, sources.length, 'offsets follow on');
      const c = chunkOf(m);
      for (let i = 0; i < c.count; i++) sources.push(c.strings[c.scalars[S.source]![i]!]!);
    }
    assert.deepStrictEqual(sources, records(100_000).map((r) => r.source));
  });

  it('deflates nothing while the page says rows wait in it unread, or before it has said it keeps up; from when it does, deflates again', async function () {
    this.timeout(20_000);
    for (const said of [true, null]) {
      const { posted, release } = await heldSender(said);
      assert.equal(posted.length, 65);
      assert.ok(posted.every((m) => m.packed !== true), `page ${said === null ? 'silent' : 'behind'}: every message as it is`);
      await release();
      assert.ok(posted.every((m) => m.packed !== true));
      assert.equal(posted.reduce((n, m) => n + m.count, 0), 100_000);
    }
    // Behind, then caught up while VS Code still holds 64: the next message posted goes deflated.
    const { posted, release, sender, acks } = await heldSender(true);
    sender.pageBehind(false);
    acks.shift()!();
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(posted.length, 66);
    assert.equal(posted.findIndex((m) => m.packed === true), 65, 'the first message after the page caught up is deflated');
    await release();
    assert.deepStrictEqual(posted.map((m) => chunkOf(m).count), posted.map((m) => m.count));
  });

  it('says as sent only rows already posted, not a chunk still being deflated (init would have the page ask for rows on their way)', async function () {
    this.timeout(20_000);
    const { posted, release, sender, acks } = await heldSender(false);
    const samples: [number, number][] = [];
    const timer = setInterval(() => samples.push([sender.syncPoint().sent, posted.reduce((n, m) => n + m.count, 0)]), 0);
    for (let k = 0; k < 12; k++) {
      acks.shift()!();
      await new Promise((r) => setTimeout(r, 25));
    }
    clearInterval(timer);
    assert.ok(posted.slice(65).some((m) => m.packed === true), 'chunks were deflated meanwhile');
    assert.ok(samples.length > 20);
    assert.deepStrictEqual(samples.filter(([said, out]) => said !== out), [], 'syncPoint is the rows posted');
    await release();
  });

  it('posts rows at once, before the webview is ready, and says how many of which load went out', async () => {
    const { posted, sender, sources } = harness();
    assert.deepStrictEqual(sender.syncPoint(), { load: 0, sent: 0 });
    sender.reset();
    sender.add(records(4000));
    await sender.finish();
    assert.deepStrictEqual(sources(), records(4000).map((r) => r.source), 'posted with no ready at all');
    assert.ok(posted.every((m) => m.load === 1), 'each chunk names its load');
    assert.deepStrictEqual(sender.syncPoint(), { load: 1, sent: 4000 });
  });

  it('resendFrom posts the rows of its load again from that row, in order; not for another load or rows not posted yet', async () => {
    const { posted, sender } = harness();
    sender.add(records(6000));
    await sender.finish();
    const before = posted.length;
    assert.equal(sender.resendFrom(1, 0), false, 'another load');
    assert.equal(sender.resendFrom(0, 6001), false, 'rows not posted yet');
    assert.equal(sender.resendFrom(0, -1), false);
    assert.equal(sender.resendFrom(0, 1.5), false);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(posted.length, before, 'nothing posted again');
    assert.equal(sender.resendFrom(0, 3500), true);
    await new Promise((r) => setTimeout(r, 20));
    const again = posted.slice(before);
    assert.deepStrictEqual(again.map((m) => [m.load, m.offset, m.count, m.last, m.total]), [[0, 3500, 1250, false, 6000], [0, 4750, 1250, true, 6000]], 'rows 3500…5999 once, and the end again');
    const c = chunkOf(again[0]!);
    assert.equal(c.strings[c.scalars[S.source]![0]!], 'S3500');
  });

  it('a webview that missed the first messages (its script came late) asks again and ends with every row once, in order', async function () {
    // 40 runs of 30,000 rows, some of them sent twice: a few seconds on a slow machine.
    this.timeout(20_000);
    // The webview's side is the real one (media/webview/data/rowStream.ts); messages go straight
    // to it, the first `lost` of them into a page with no listener yet, and `init` comes after
    // `readyAfter` messages (or after the last, when the load was done by then).
    const rows = records(30_000);
    const first = records(5000, 90_000);
    const all = rows.map((r) => r.source);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 16 }), fc.integer({ min: 0, max: 20 }), fc.boolean(), async (lost, extra, retry) => {
        const stream = new RowStream();
        const got: string[] = [];
        let n = 0;
        let inited = false;
        const resends: Resend[] = [];
        const sender: RowSender = new RowSender((m) => {
          if (m.type !== 'rows') return Promise.resolve(true);
          if (++n <= lost && !inited) return Promise.resolve(true); // delivered before the script listened
          const { take, resend } = stream.take(m);
          if (take) {
            if (m.offset === 0) got.length = 0;
            const c = chunkOf(m);
            for (let i = 0; i < c.count; i++) got.push(c.strings[c.scalars[S.source]![i]!]!);
          } else if (resend && inited) {
            resends.push(resend);
            setImmediate(() => sender.resendFrom(resend.load, resend.from));
          }
          if (!inited && n >= lost + extra) init();
          return Promise.resolve(true);
        }, () => true);
        const init = (): void => {
          inited = true;
          const resend = stream.sync(sender.syncPoint().load, sender.syncPoint().sent);
          if (resend) {
            resends.push(resend);
            setImmediate(() => sender.resendFrom(resend.load, resend.from));
          }
        };
        if (retry) {
          sender.add(first); // a first try, given up (its first chunk went out): not this load's rows
          sender.reset();
        }
        sender.add(rows);
        await sender.finish();
        if (!inited) init();
        for (let k = 0; k < 50 && got.length < all.length; k++) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, 5));
        assert.deepStrictEqual(got, all, `lost ${lost}, ready after ${lost + extra}: every row once, in order`);
        assert.equal(resends.length > 0, lost > (retry ? 1 : 0), 'rows asked for again only when some of this load were missed');
      }),
      { numRuns: 40, seed: 12 },
    );
  });

  it('a reset (a retry that started over) drops what was sent; finish with no rows posts one empty last chunk', async () => {
    const { posted, sender, sources } = harness(2);
    sender.add(records(3000));
    sender.reset();
    sender.add(records(10, 5000));
    await sender.finish();
    assert.deepStrictEqual(sources(), records(10, 5000).map((r) => r.source));
    assert.equal(posted.at(-1)!.total, 10, 'the rows before the reset are not counted');
    const empty = harness();
    await empty.sender.finish([]);
    assert.equal(empty.posted.length, 1);
    assert.deepStrictEqual([empty.posted[0]!.count, empty.posted[0]!.last, empty.posted[0]!.total], [0, true, 0]);
  });
  it('deflates every chunk once a load has posted PACK_AFTER_BYTES as they are, though VS Code and the page keep up; a new load starts plain again', async function () {
    this.timeout(30_000);
    // Rows of ~260 bytes each (a long source name of their own): 16 MB in ~65k rows.
    const rows = records(100_000).map((r, i) => ({ ...r, source: `${r.source}-${String(i).padStart(250, 'x')}` }));
    const { posted, sender, sources } = harness();
    sender.pageBehind(false);
    await sender.finish(rows);
    let plain = 0;
    const firstPacked = posted.findIndex((m) => m.packed === true);
    assert.ok(firstPacked > 1, `the first ${firstPacked} chunks go as they are`);
    for (const m of posted.slice(0, firstPacked)) plain += m.data.byteLength;
    assert.ok(plain >= PACK_AFTER_BYTES && plain - posted[firstPacked - 1]!.data.byteLength < PACK_AFTER_BYTES, `deflated from ${plain} bytes posted as they were`);
    assert.ok(posted.slice(firstPacked).every((m) => m.packed === true), 'every chunk after it deflated');
    assert.ok(posted.length - firstPacked > 10, `${posted.length - firstPacked} chunks deflated`);
    assert.deepStrictEqual(sources(), rows.map((r) => r.source), 'every row arrives once, in order');
    // A new load counts from nothing.
    sender.reset();
    posted.length = 0;
    await sender.finish(rows.slice(0, 20_000));
    assert.ok(posted.length > 5 && posted.every((m) => m.packed !== true), 'a new load of 5 MB: nothing deflated');
  });

  it('deflates every chunk after the first when told to (Compare), and the rows come out the same', async () => {
    const posted: Rows[] = [];
    const sender = new RowSender((m) => {
      if (m.type === 'rows') posted.push(m);
      return Promise.resolve(true);
    }, () => true, true);
    const rows = records(6_000);
    await sender.finish(rows);
    assert.ok(posted.length >= 5, `${posted.length} chunks`);
    assert.equal(posted[0]!.packed, undefined, 'the first goes as it is');
    for (const m of posted.slice(1)) {
      assert.equal(m.packed, true, `chunk at ${m.offset} packed`);
      assert.deepEqual(chunkOf(m), chunkOf({ data: encodeRows(rows, m.offset, m.count) }), `chunk at ${m.offset}`);
    }
    assert.equal(posted.at(-1)!.offset + posted.at(-1)!.count, rows.length);
    // Without the option, a webview that keeps up gets none packed.
    const plain = harness();
    await plain.sender.finish(rows);
    assert.ok(plain.posted.every((m) => m.packed === undefined));
  });
});
