// The records panel's row sender (src/panel/rowSender.ts) while its encodes run slow, as they do
// while V8 marks a large heap: cut at the budget, smaller chunks, a pause after each, then back.
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
  it('an encode still running at its budget ends there, the next chunks are smaller with a pause before each, and fast ones double them back to 1,250', async () => {
    // The clock moves as rows are encoded (each row's `emails` is read once by the encoder):
    // 0.8 ms a row while `slow` holds (as during a full collection's marking, when the host's
    // steps run many times slower: 1,250 rows would take a second), not at all otherwise.
    let slow = 0;
    let t = 0;
    const posted: Rows[] = [];
    const at: number[] = [];
    const sender = new RowSender(
      (m) => {
        if (m.type === 'rows') {
          posted.push(m);
          at.push(performance.now());
          // The three encodes after the fifth chunk are slow.
          if (posted.length === 5) slow = 3;
          else if (slow > 0 && posted.length > 5) slow--;
        }
        return Promise.resolve(true);
      },
      () => true,
      false,
      { budgetMs: 12, now: () => t },
    );
    const rows = records(20_000);
    for (const r of rows) {
      const emails = r.emails;
      Object.defineProperty(r, 'emails', { get: () => ((t += slow > 0 ? 0.8 : 0), emails), enumerable: true });
    }
    await sender.finish(rows);
    slow = 0;
    const counts = posted.map((m) => m.count);
    assert.equal(counts.reduce((a, b) => a + b, 0), 20_000, 'every row once');
    assert.deepStrictEqual(sourcesOf(posted), rows.map((r) => r.source));
    assert.deepStrictEqual(counts.slice(0, 5), [1000, 1250, 1250, 1250, 1250], `full chunks while encodes are quick: ${counts.join(',')}`);
    // The sixth asks whether to stop every 32 rows: at 32 rows it is 25.6 ms in, over the
    // budget of 12, and ends there; the next ask for 125 (the least), and end at 32 as well.
    assert.deepStrictEqual(counts.slice(5, 8), [32, 32, 32], `cut at the budget while slow: ${counts.join(',')}`);
    // Quick again: twice as many each time, up to 1,250.
    assert.deepStrictEqual(counts.slice(8, 13), [125, 250, 500, 1000, 1250], `then back: ${counts.join(',')}`);
    // Each took over twice the budget (25.6 ms) and was followed by a pause (25 ms), not the next at once.
    for (const k of [6, 7, 8]) assert.ok(at[k]! - at[k - 1]! >= 20, `a pause before chunk ${k} (${(at[k]! - at[k - 1]!).toFixed(1)} ms)`);
    // And none after a quick one.
    assert.ok(at[12]! - at[9]! < 60, `no pauses once quick (${(at[12]! - at[9]!).toFixed(1)} ms for three chunks)`);
  });
});
