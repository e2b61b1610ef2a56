// The panel's Compare (src/panel/previousRows.ts) marks the host busy from the request until the
// previous period's rows are all with the page, as the panel's own load does: the disk cache waits
// for quiet (src/shared/busy.ts) before it writes a range, and a million rows written while they
// were still being sent fought them for the host's main thread (issue 44).
import { strict as assert } from 'node:assert';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord, FetchResult } from '../../src/api/types';
import { PreviousRows } from '../../src/panel/previousRows';
import type { RecordScope, RecordStore } from '../../src/records/recordStore';
import { Busy } from '../../src/shared/busy';
import type { HostMessage } from '../../src/shared/protocol';

function records(n: number, day: string): DmarcRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const r = normaliseRow({
      source: `S${i}`, reporter: 'r', visibleFrom: 'a.example', returnPath: 'a.example', ipAddress: `10.0.${i >> 8}.${i & 255}`, rdns: [],
      emails: i + 1, category: 'authorized', date: `${day}T00:00:00Z`, dmarc: 'none', alignedSpf: 'pass', alignedDkim: 'pass', spf: 'pass', dkims: [],
    });
    if (!('record' in r)) throw new Error(r.reason);
    return r.record;
  });
}

const scope = { accountId: 'a', organizationId: 'o' } as RecordScope;
const target = { start: new Date('2026-11-08T00:00:00Z'), end: new Date('2026-11-14T23:59:59.999Z') };

describe('panel Compare: the host is busy while the previous period comes', () => {
  it('busy from the request until every row was taken by the page, then quiet; a failed request ends it too', async () => {
    const busy = new Busy();
    let answer!: (r: FetchResult) => void;
    let fail!: (e: Error) => void;
    const store = { get: () => new Promise<FetchResult>((res, rej) => ((answer = res), (fail = rej))) } as unknown as RecordStore;
    const acks: (() => void)[] = [];
    const posted: HostMessage['type'][] = [];
    const post = (m: HostMessage): Promise<boolean> => {
      posted.push(m.type);
      // Row chunks are taken when the test says so; other messages at once.
      return m.type === 'compareRows' ? new Promise((r) => acks.push(() => r(true))) : Promise.resolve(true);
    };
    const previous = new PreviousRows(post, () => true, store, async () => scope, target, () => undefined, busy);
    const shown = previous.show();
    await new Promise((r) => setImmediate(r));
    assert.equal(busy.busy, true, 'busy while the request is out');
    answer({ records: records(3_000, '2026-11-02'), warnings: [], rejected: { count: 0, samples: [] } });
    let quiet = false;
    void busy.quiet().then(() => (quiet = true));
    for (let i = 0; i < 20 && acks.length === 0; i++) await new Promise((r) => setImmediate(r));
    assert.ok(acks.length > 0, 'rows were posted');
    assert.equal(busy.busy, true, 'still busy while the page has not taken the rows');
    assert.equal(quiet, false);
    // The page takes every chunk, including those posted as earlier ones are taken (deflated first,
    // in libuv's pool: a few milliseconds each, for at most 5 s in all).
    for (const end = Date.now() + 5_000; !quiet && Date.now() < end; ) {
      acks.splice(0).forEach((ack) => ack());
      await new Promise((r) => setTimeout(r, 2));
    }
    await shown;
    assert.equal(busy.busy, false, 'quiet once the page has every row');
    assert.equal(quiet, true);
    assert.equal(previous.records.length, 3_000);
    assert.ok(posted.includes('compareRows'));

    // A refresh that fails: busy while it is out, quiet after its error.
    const again = previous.show(true);
    await new Promise((r) => setImmediate(r));
    assert.equal(busy.busy, true);
    fail(new Error('network down'));
    await again;
    assert.equal(busy.busy, false, 'a failed request leaves the host quiet');
  });
});
