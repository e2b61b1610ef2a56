import { strict as assert } from 'node:assert';
import { Busy, settledWithin } from '../../src/shared/busy';

describe('Busy: work others wait for', () => {
  const settled = async (p: Promise<void>): Promise<boolean> => {
    let done = false;
    void p.then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    return done;
  };

  it('is quiet at once when nothing is busy, and once every piece of work has ended', async () => {
    const busy = new Busy();
    assert.equal(await settled(busy.quiet()), true);
    const a = busy.begin();
    const b = busy.begin();
    assert.equal(busy.busy, true);
    const q = busy.quiet();
    a();
    a(); // ending twice counts once
    assert.equal(await settled(q), false);
    b();
    assert.equal(await settled(q), true);
    assert.equal(busy.busy, false);
  });

  it('stops waiting after its longest wait, and a later end does not fail', async () => {
    const busy = new Busy();
    const end = busy.begin();
    const t0 = Date.now();
    await busy.quiet(30);
    assert.ok(Date.now() - t0 >= 25);
    end();
    assert.equal(busy.busy, false);
  });

  it('settledWithin: once every promise has settled (rejected too; other values count as settled), or after its longest wait', async () => {
    assert.equal(await settled(settledWithin([undefined, 1, 'x'], 10_000)), true);
    let ok!: () => void;
    let fail!: (e: Error) => void;
    const a = new Promise<void>((r) => (ok = r));
    const b = new Promise<void>((_, r) => (fail = r));
    const both = settledWithin([a, undefined, b], 10_000);
    ok();
    assert.equal(await settled(both), false, 'one still pending');
    fail(new Error('gone'));
    assert.equal(await settled(both), true);
    const t0 = Date.now();
    await settledWithin([new Promise(() => undefined)], 30);
    assert.ok(Date.now() - t0 >= 25, 'a promise that never settles is waited for 30 ms');
  });
});
