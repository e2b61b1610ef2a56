// What the watch remembers (src/watch/findingStore.ts): a finding raised once while it lasts and
// again only after it cleared; seen once opened; muted never raised again; failures replaced by
// the next outcome; bounded; a damaged saved state dropped, not trusted; kept across sessions.
import { strict as assert } from 'node:assert';
import type { Finding } from '../../src/advice/findings';
import { FindingStore, MAX_FINDINGS, MAX_MUTED, WATCH_STATE_KEY, type Memento } from '../../src/watch/findingStore';

class MemoryMemento implements Memento {
  readonly data = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  update(key: string, value: unknown): Promise<void> {
    // As globalState does: what is stored is a JSON copy.
    this.data.set(key, JSON.parse(JSON.stringify(value)));
    return Promise.resolve();
  }
}

const f = (kind: Finding['kind'], subject = '', emails = 500): Finding => ({ kind, subject, emails, before: 0, start: 0, end: 86_399_999 });

describe('watch: what it remembers', () => {
  it('raises a finding once while it lasts, again only after it cleared', async () => {
    const s = new FindingStore(new MemoryMemento());
    assert.deepEqual(s.record('a', 'acme', 'Acme', [f('new-sender', 'Brevo')], 0, 1).map((x) => x.subject), ['Brevo']);
    assert.deepEqual(s.record('a', 'acme', 'Acme', [f('new-sender', 'Brevo')], 0, 2), [], 'still there: not raised again');
    assert.equal(s.active().length, 1);
    assert.deepEqual(s.record('a', 'acme', 'Acme', [], 0, 3), []);
    assert.equal(s.active().length, 0, 'cleared: no longer active');
    const again = s.record('a', 'acme', 'Acme', [f('new-sender', 'Brevo')], 0, 4);
    assert.equal(again.length, 1, 'back after it cleared: raised again');
    assert.equal(again[0]!.seen, false);
    assert.equal(again[0]!.firstSeen, 4);
  });

  it('one organization’s run leaves the others’ findings alone', () => {
    const s = new FindingStore(new MemoryMemento());
    s.record('a', 'acme', 'Acme', [f('volume-spike')], 0, 1);
    s.record('a', 'globex', 'Globex', [f('pass-drop')], 0, 1);
    s.record('a', 'acme', 'Acme', [], 0, 2);
    assert.deepEqual(s.active().map((x) => x.orgId), ['globex']);
  });

  it('seen lowers the unseen count; muted is never raised or listed again', async () => {
    const s = new FindingStore(new MemoryMemento());
    const [a, b] = s.record('a', 'acme', 'Acme', [f('new-sender', 'X'), f('pass-drop', 'Y')], 0, 1);
    assert.equal(s.unseenCount(), 2);
    await s.markSeen(a!.id);
    assert.equal(s.unseenCount(), 1);
    assert.deepEqual(s.active().map((x) => x.subject), ['Y', 'X'], 'unseen first');
    await s.mute(b!.id);
    assert.equal(s.unseenCount(), 0);
    assert.deepEqual(s.active().map((x) => x.subject), ['X']);
    s.record('a', 'acme', 'Acme', [f('new-sender', 'X')], 0, 2);
    s.record('a', 'acme', 'Acme', [], 0, 3);
    assert.deepEqual(s.record('a', 'acme', 'Acme', [f('pass-drop', 'Y')], 0, 4), [], 'muted: cleared and back, still not raised');
  });

  it('a failure is replaced by the organization’s next outcome', () => {
    const s = new FindingStore(new MemoryMemento());
    s.fail('a', 'acme', 'Acme', 'HTTP 403', 1);
    s.fail('a', 'acme', 'Acme', 'HTTP 500', 2);
    assert.deepEqual(s.failures().map((x) => x.message), ['HTTP 500']);
    s.record('a', 'acme', 'Acme', [], 0, 3);
    assert.equal(s.failures().length, 0);
  });

  it('is bounded: the oldest inactive findings go first; mutes too', async () => {
    const s = new FindingStore(new MemoryMemento());
    for (let i = 0; i < MAX_FINDINGS; i++) s.record('a', `old${i}`, 'Old', [f('volume-spike')], 0, i);
    for (let i = 0; i < MAX_FINDINGS; i++) s.record('a', `old${i}`, 'Old', [], 0, 1000 + i);
    s.record('a', 'new', 'New', [f('reports-stopped')], 0, 5000);
    assert.equal(s.active().length, 1);
    assert.ok(s.get(s.active()[0]!.id));
    for (let i = 0; i < MAX_MUTED + 10; i++) await s.mute(`m${i}`);
    assert.ok(!s.isMuted('m0') && s.isMuted(`m${MAX_MUTED + 9}`));
  });

  it('is kept across sessions; a damaged state is dropped', async () => {
    const m = new MemoryMemento();
    const s = new FindingStore(m);
    const [x] = s.record('a', 'acme', 'Acme', [f('new-sender', 'Brevo')], 0, 1);
    await s.mute('other');
    await s.finishRun(10);
    const t = new FindingStore(m);
    assert.equal(t.lastRun, 10);
    assert.equal(t.get(x!.id)?.subject, 'Brevo');
    assert.ok(t.isMuted('other'));
    for (const bad of [{ findings: 'no' }, { findings: [{ kind: 'evil' }], muted: [], failures: [] }, 42, null]) {
      m.data.set(WATCH_STATE_KEY, bad);
      const u = new FindingStore(m);
      assert.equal(u.active().length, 0);
      assert.equal(u.lastRun, undefined);
    }
  });
});
