import { strict as assert } from 'node:assert';
import { Busy } from '../../src/shared/busy';

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
});
