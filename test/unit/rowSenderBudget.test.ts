// The records panel's row sender (src/panel/rowSender.ts) while its encodes run slow, as they do
// while V8 marks a large heap: smaller chunks, a pause after each far over the budget, then back.
import { strict as assert } from 'node:assert';
import { RowSender } from '../../src/panel/rowSender';
import type { HostMessage } from '../../src/shared/protocol';
import { S } from '../../src/shared/rowCodec';
import { chunkOf, records } from './rowsMessage';

type Rows = Extract<HostMessage, { type: 'rows' }>;

/** The `source` of every row posted, in row order. */
function sourcesOf(posted: readonly Rows[]): string[] {
  const out: string[] = [];
  for (const m of posted) {
    const c = chunkOf(m);
    for (let i = 0; i < c.count; i++) out.push(c.strings[c.scalars[S.source]![i]!]!);
  }
  return out;
}

describe('row sender: the encode budget', () => {
  it('an encode over its budget makes the next chunks smaller and pauses before the next; fast ones double them back to 1,250', async () => {
    // The clock makes each encode look 30 ms long while `slow` holds (as during a full
    // collection's marking, when the host's steps run many times slower).
    let slow = 0;
    let t = 0;
    const now = (): number => (t += slow > 0 ? 30 : 0);
    const posted: Rows[] = [];
    const at: number[] = [];
    const sender = new RowSender(
      (m) => {
        if (m.type === 'rows') {
          posted.push(m);
          at.push(performance.now());
          // The three encodes after the fifth chunk look slow.
          if (posted.length === 5) slow = 3;
          else if (slow > 0 && posted.length > 5) slow--;
        }
        return Promise.resolve(true);
      },
      () => true,
      false,
      { budgetMs: 12, now },
    );
    const rows = records(20_000);
    await sender.finish(rows);
    const counts = posted.map((m) => m.count);
    assert.equal(counts.reduce((a, b) => a + b, 0), 20_000, 'every row once');
    assert.deepStrictEqual(sourcesOf(posted), rows.map((r) => r.source));
    assert.deepStrictEqual(counts.slice(0, 5), [1000, 1250, 1250, 1250, 1250], `full chunks while encodes are quick: ${counts.join(',')}`);
    // The sixth took 30 ms for 1,250 rows against a budget of 12: 500 rows next; 30 ms for
    // those: 200; 30 ms for those: 125 (the least).
    assert.deepStrictEqual(counts.slice(5, 9), [1250, 500, 200, 125], `smaller while slow: ${counts.join(',')}`);
    // Quick again: twice as many each time, up to 1,250.
    assert.deepStrictEqual(counts.slice(9, 13), [250, 500, 1000, 1250], `then back: ${counts.join(',')}`);
    // Each encode over twice the budget was followed by a pause (25 ms), not the next at once.
    for (const k of [6, 7, 8]) assert.ok(at[k]! - at[k - 1]! >= 20, `a pause before chunk ${k} (${(at[k]! - at[k - 1]!).toFixed(1)} ms)`);
  });
});
