// Reverse DNS details (src/import/rdns.ts) with exact expectations: which answers are host names,
// what a cache file gives back, the TTL's bound, the timeout, and a PTR's source name.
import { strict as assert } from 'node:assert';
import { MemoryRdnsCache, resolvePtrs, sourceName, type PtrResolver } from '../../src/import';

const table = (answers: Record<string, string[] | Error>): { resolve: PtrResolver; calls: string[] } => {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (ip) => {
      calls.push(ip);
      const a = answers[ip];
      if (a === undefined || a instanceof Error) throw a ?? Object.assign(new Error('queryPtr ENOTFOUND'), { code: 'ENOTFOUND' });
      return a;
    },
  };
};
const coded = (code: string) => Object.assign(new Error(code), { code });

describe('import: reverse DNS names', () => {
  it('an answer keeps host names only, trimmed, without the final dot, lower-cased, in order', async () => {
    const label63 = 'a'.repeat(63);
    const long253 = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}`;
    assert.equal(long253.length, 253);
    const answer = [
      ' Mail.Example.COM. ', '', '.', 'bad name', '-x.example', 'x..example', `${label63}.example`, `${label63}a.example`, 'mx_1.example', 'ok-1.example',
      long253, `${long253}f`, 'host.example.', 'é.example', 'a.example/x',
    ];
    const out = await resolvePtrs(['192.0.2.1'], { resolve: table({ '192.0.2.1': answer }).resolve, cache: new MemoryRdnsCache() });
    assert.deepEqual(out.get('192.0.2.1'), ['mail.example.com', `${label63}.example`, 'mx_1.example', 'ok-1.example', long253, 'host.example']);
  });

  it('a cache file’s names are put through the same rule', () => {
    const back = MemoryRdnsCache.fromFile({ version: 1, entries: { '192.0.2.1': { names: ['A.Example.', 'bad name', ''], at: 7 } } });
    assert.deepEqual(back.get('192.0.2.1'), { names: ['a.example'], at: 7 });
  });

  it('a cached answer is fresh for less than the TTL: at exactly the TTL it is asked again', async () => {
    let now = 5_000;
    const fake = table({ '192.0.2.1': ['a.example'] });
    const cache = new MemoryRdnsCache();
    cache.set('192.0.2.1', { names: ['old.example'], at: 4_000 });
    const opts = { resolve: fake.resolve, cache, ttlMs: 1000, now: () => now };
    now = 4_999;
    assert.deepEqual((await resolvePtrs(['192.0.2.1'], opts)).get('192.0.2.1'), ['old.example']);
    assert.deepEqual(fake.calls, []);
    now = 5_000;
    assert.deepEqual((await resolvePtrs(['192.0.2.1'], opts)).get('192.0.2.1'), ['a.example']);
    assert.deepEqual(fake.calls, ['192.0.2.1']);
    assert.deepEqual(cache.get('192.0.2.1'), { names: ['a.example'], at: 5_000 });
  });

  it('"no name" (ENOTFOUND, ENODATA) is cached as []; other failures are not cached', async () => {
    const fake = table({ '192.0.2.1': coded('ENOTFOUND'), '192.0.2.2': coded('ENODATA'), '192.0.2.3': coded('ESERVFAIL'), '192.0.2.4': coded('ETIMEOUT'), '192.0.2.5': new Error('no code') });
    const cache = new MemoryRdnsCache();
    const out = await resolvePtrs(['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5'], { resolve: fake.resolve, cache, now: () => 9 });
    assert.deepEqual([...out], [['192.0.2.1', []], ['192.0.2.2', []], ['192.0.2.3', []], ['192.0.2.4', []], ['192.0.2.5', []]]);
    assert.deepEqual(cache.get('192.0.2.1'), { names: [], at: 9 });
    assert.deepEqual(cache.get('192.0.2.2'), { names: [], at: 9 });
    assert.equal(cache.size, 2);
  });

  it('a lookup past the timeout is a failure (not cached, not a "no name"); its timer is cleared', async () => {
    const cache = new MemoryRdnsCache();
    const hang: PtrResolver = () => new Promise<string[]>(() => {});
    const t0 = Date.now();
    const out = await resolvePtrs(['192.0.2.1'], { resolve: hang, cache, timeoutMs: 20 });
    assert.deepEqual([...out], [['192.0.2.1', []]]);
    assert.equal(cache.size, 0);
    assert.ok(Date.now() - t0 < 5_000);
    // A quick answer leaves no timer behind to keep the process alive: the timeout's timer is
    // cleared, so no handle is still active once the answer is in.
    const handles = () => (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = handles();
    await resolvePtrs(['192.0.2.2'], { resolve: async () => ['q.example'], cache, timeoutMs: 60_000 });
    assert.equal(handles(), before);
  });

  it('the source name: a known sender by base domain, else the base domain (ICANN suffixes only), else Unknown', () => {
    const senders = new Map([['example.com', 'Example Mail']]);
    assert.equal(sourceName('mx1.out.example.com', senders), 'Example Mail');
    assert.equal(sourceName('mx1.other.co.uk', senders), 'other.co.uk');
    // A private suffix (github.io is one) does not make its subdomains base domains.
    assert.equal(sourceName('mail.someone.github.io', senders), 'github.io');
    assert.equal(sourceName(undefined, senders), 'Unknown');
    assert.equal(sourceName('', senders), 'Unknown');
    assert.equal(sourceName('localhost', senders), 'Unknown');
  });
});
