// The records panel's row sender (src/panel/rowSender.ts): rows posted in order, each once, as
// they arrive; held while the webview is not ready; all again when it starts over.
import { strict as assert } from 'node:assert';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord } from '../../src/api/types';
import { RowSender } from '../../src/panel/rowSender';
import type { HostMessage } from '../../src/shared/protocol';
import { decodeChunk, S } from '../../src/shared/rowCodec';

type Rows = Extract<HostMessage, { type: 'rows' }>;

function records(n: number, from = 0): DmarcRecord[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const r = normaliseRow({
      source: `S${i}`, reporter: 'r', visibleFrom: 'a.example', returnPath: 'a.example', ipAddress: `10.0.${i >> 8}.${i & 255}`, rdns: [],
      emails: i + 1, category: 'authorized', date: '2026-11-16T00:00:00Z', dmarc: 'none', alignedSpf: 'pass', alignedDkim: 'pass', spf: 'pass', dkims: [],
    });
    if (!('record' in r)) throw new Error(r.reason);
    return r.record;
  });
}

/** A sender whose posts are acknowledged after `ackMs`, and what it posted. */
function harness(ackMs = 0) {
  const posted: Rows[] = [];
  const sender = new RowSender(
    (m) => {
      if (m.type === 'rows') posted.push(m);
      return new Promise((r) => setTimeout(() => r(true), ackMs));
    },
    () => true,
  );
  /** The `source` of every row posted, in row order, checking offsets follow on. */
  const sources = (): string[] => {
    const out: string[] = [];
    for (const m of posted) {
      if (m.offset === 0) out.length = 0;
      assert.equal(m.offset, out.length, 'offsets follow on');
      const c = decodeChunk(m.data);
      assert.equal(c.count, m.count);
      for (let i = 0; i < c.count; i++) out.push(c.strings[c.scalars[S.source]![i]!]!);
    }
    return out;
  };
  return { posted, sender, sources };
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
    assert.ok(posted.every((m) => m.count <= 2500), 'chunks stay small');
  });

  it('holds rows while paused; resume posts them all; resuming again (a webview that started over) posts them all again', async () => {
    const { posted, sender, sources } = harness();
    sender.pause();
    sender.add(records(4000));
    const done = sender.finish();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(posted.length, 0, 'nothing posted before the webview is ready');
    sender.resume();
    await done;
    assert.equal(sources().length, 4000);
    const before = posted.length;
    sender.resume();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(posted[before]!.offset, 0, 'from the first row again');
    assert.deepStrictEqual(sources(), records(4000).map((r) => r.source));
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
});
