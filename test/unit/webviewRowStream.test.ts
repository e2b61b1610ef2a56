// Which rows chunks the records webview takes (media/webview/data/rowStream.ts): the next one of
// its load, or a load starting over; a gap is asked for again once; init's count finds a lost start.
import { strict as assert } from 'node:assert';
import { RowStream } from '../../media/webview/data/rowStream';

describe('webview row stream (which chunks are taken)', () => {
  it('takes chunks in order, starts over at offset 0, and drops a chunk sent twice without asking', () => {
    const s = new RowStream();
    assert.deepStrictEqual(s.take({ load: 3, offset: 0, count: 1000 }), { take: true });
    assert.deepStrictEqual(s.take({ load: 3, offset: 1000, count: 2500 }), { take: true });
    assert.equal(s.taken(3), 3500);
    assert.deepStrictEqual(s.take({ load: 3, offset: 1000, count: 2500 }), { take: false });
    assert.deepStrictEqual(s.take({ load: 4, offset: 0, count: 10 }), { take: true }, 'a new load starts over');
    assert.equal(s.taken(3), 0);
    assert.equal(s.taken(4), 10);
  });

  it('a gap is asked for once, from the first row missing; another load missed from its start is asked from 0', () => {
    const s = new RowStream();
    s.take({ load: 1, offset: 0, count: 1000 });
    assert.deepStrictEqual(s.take({ load: 1, offset: 3500, count: 2500 }), { take: false, resend: { load: 1, from: 1000 } });
    assert.deepStrictEqual(s.take({ load: 1, offset: 6000, count: 2500 }), { take: false }, 'asked already');
    assert.deepStrictEqual(s.take({ load: 1, offset: 1000, count: 2500 }), { take: true }, 'the rows asked for');
    assert.deepStrictEqual(s.take({ load: 2, offset: 2500, count: 2500 }), { take: false, resend: { load: 2, from: 0 } });
  });

  it('init: rows sent before it that were missed are asked for, even if a chunk asked already before init', () => {
    const s = new RowStream();
    assert.equal(s.sync(0, 0), undefined, 'nothing sent, nothing missing');
    s.take({ load: 5, offset: 2500, count: 2500 }); // the first chunks went to a page that was not listening
    assert.deepStrictEqual(s.sync(5, 5000), { load: 5, from: 0 });
    assert.deepStrictEqual(s.take({ load: 5, offset: 5000, count: 10 }), { take: false }, 'asked by init already');
    const t = new RowStream();
    t.take({ load: 0, offset: 0, count: 1000 });
    assert.equal(t.sync(0, 1000), undefined, 'all there');
    assert.deepStrictEqual(t.sync(1, 7), { load: 1, from: 0 }, 'another load');
  });

  it('after a reset (a load failed or starts over) only offset 0 is taken', () => {
    const s = new RowStream();
    s.take({ load: 1, offset: 0, count: 100 });
    s.reset();
    assert.equal(s.take({ load: 1, offset: 100, count: 100 }).take, false);
    assert.equal(s.current, -1);
    assert.equal(s.take({ load: 2, offset: 0, count: 100 }).take, true);
    assert.equal(s.current, 2, 'the load being taken: a status for load 2 or before is old news');
  });
});
