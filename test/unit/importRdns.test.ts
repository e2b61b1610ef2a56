// Reverse DNS for imported rows through a fake resolver with a canned table: no DNS query is ever sent.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWN_SENDERS, MemoryRdnsCache, addReverseDns, resolvePtrs, sourceName, type PtrResolver } from '../../src/import';
import { fixture, readOne } from './importHelpers';

const notFound = () => Object.assign(new Error('queryPtr ENOTFOUND'), { code: 'ENOTFOUND' });
const servFail = () => Object.assign(new Error('queryPtr ESERVFAIL'), { code: 'ESERVFAIL' });

/** A resolver answering from `table` after `delayMs`, recording calls and the most lookups in flight. */
function fakeResolver(table: Record<string, string[] | 'notfound' | 'servfail' | 'hang'>, delayMs = 2) {
  const calls: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const resolve: PtrResolver = async (ip) => {
    calls.push(ip);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const answer = table[ip] ?? 'notfound';
      if (answer === 'hang') return await new Promise<string[]>(() => {});
      await new Promise((r) => setTimeout(r, delayMs));
      if (answer === 'notfound') throw notFound();
      if (answer === 'servfail') throw servFail();
      return answer;
    } finally {
      inFlight--;
    }
  };
  return { resolve, calls, maxInFlight: () => maxInFlight };
}

describe('import: reverse DNS and source names', () => {
  it('src/import never reaches DNS or vscode itself: the resolver is always injected', () => {
    const dir = join(__dirname, '..', '..', 'src', 'import');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    assert.ok(files.length >= 8);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      assert.doesNotMatch(text, /from ['"](node:)?dns(\/promises)?['"]|require\(['"](node:)?dns/, f);
      assert.doesNotMatch(text, /from ['"]vscode['"]/, f);
    }
  });

  it('names the source from the PTR base domain: known sender, else the base domain, else Unknown', () => {
    assert.equal(sourceName('mail-sor-f41.google.com'), 'Google');
    assert.equal(sourceName('a8-33.smtp-out.amazonses.com'), 'Amazon SES');
    assert.equal(sourceName('mail-db8eur05on2101.outbound.protection.outlook.com'), 'Microsoft');
    assert.equal(sourceName('o1.ptr4321.mail.example.co.uk'), 'example.co.uk', 'public suffix list: co.uk is a suffix');
    assert.equal(sourceName('ec2-192-0-2-1.compute-1.amazonaws.com'), 'Amazon Web Services', 'ICANN section only: no private suffixes');
    assert.equal(sourceName(undefined), 'Unknown');
    assert.equal(sourceName(''), 'Unknown');
    assert.equal(sourceName('192.0.2.1'), 'Unknown', 'an IP is not a domain');
    assert.equal(sourceName('mx.example.com', new Map([['example.com', 'Example Mail']])), 'Example Mail');
  });

  it('the bundled map of known senders is keyed by base domains', () => {
    assert.ok(KNOWN_SENDERS.size >= 50);
    for (const [domain, name] of KNOWN_SENDERS) {
      assert.equal(sourceName(`host.${domain}`), name, domain);
    }
  });

  it('resolves each distinct IP once, with at most `concurrency` lookups in flight', async () => {
    const table: Record<string, string[]> = {};
    for (let i = 1; i <= 40; i++) table[`192.0.2.${i}`] = [`h${i}.sender.example.`];
    const fake = fakeResolver(table, 3);
    const ips = [...Object.keys(table), ...Object.keys(table)];
    const out = await resolvePtrs(ips, { resolve: fake.resolve, cache: new MemoryRdnsCache(), concurrency: 4 });
    assert.equal(fake.calls.length, 40);
    assert.equal(fake.maxInFlight(), 4);
    assert.deepEqual(out.get('192.0.2.7'), ['h7.sender.example'], 'trailing dot dropped');
  });

  it('answers from the cache while fresh, asks again after the TTL', async () => {
    let now = 1_000_000;
    const fake = fakeResolver({ '192.0.2.1': ['a.example.net'] });
    const cache = new MemoryRdnsCache();
    const opts = { resolve: fake.resolve, cache, ttlMs: 1000, now: () => now };
    await resolvePtrs(['192.0.2.1'], opts);
    await resolvePtrs(['192.0.2.1'], opts);
    assert.equal(fake.calls.length, 1);
    now += 1001;
    await resolvePtrs(['192.0.2.1'], opts);
    assert.equal(fake.calls.length, 2);
  });

  it('caches "no PTR" answers, not failures or timeouts', async () => {
    const fake = fakeResolver({ '192.0.2.1': 'notfound', '192.0.2.2': 'servfail', '192.0.2.3': 'hang' });
    const cache = new MemoryRdnsCache();
    const out = await resolvePtrs(['192.0.2.1', '192.0.2.2', '192.0.2.3'], { resolve: fake.resolve, cache, timeoutMs: 30 });
    assert.deepEqual([...out.values()], [[], [], []]);
    assert.deepEqual(cache.get('192.0.2.1')?.names, []);
    assert.equal(cache.get('192.0.2.2'), undefined);
    assert.equal(cache.get('192.0.2.3'), undefined);
  });

  it('keeps only host names from an answer (at most 10), lower-cased', async () => {
    const names = ['Mail.EXAMPLE.com.', 'bad name', '<script>', ...Array.from({ length: 20 }, (_, i) => `n${i}.example.com`)];
    const fake = fakeResolver({ '192.0.2.9': names });
    const out = await resolvePtrs(['192.0.2.9'], { resolve: fake.resolve, cache: new MemoryRdnsCache() });
    assert.equal(out.get('192.0.2.9')!.length, 10);
    assert.equal(out.get('192.0.2.9')![0], 'mail.example.com');
  });

  it('the cache file round-trips, and a damaged one gives an empty cache', () => {
    const cache = new MemoryRdnsCache();
    cache.set('192.0.2.1', { names: ['a.example.net'], at: 5 });
    const back = MemoryRdnsCache.fromFile(JSON.parse(JSON.stringify(cache.toFile())));
    assert.deepEqual(back.get('192.0.2.1'), { names: ['a.example.net'], at: 5 });
    assert.equal(MemoryRdnsCache.fromFile({ version: 2, entries: {} }).size, 0);
    assert.equal(MemoryRdnsCache.fromFile({ version: 1, entries: { x: { names: 'no', at: 1 } } }).size, 0);
    assert.equal(MemoryRdnsCache.fromFile('garbage').size, 0);
  });

  it('fills rdns and source of imported rows', async () => {
    const report = await readOne('google-style.xml', fixture('google-style.xml'));
    const fake = fakeResolver({ '192.0.2.10': ['mail-sor-f41.google.com'], '203.0.113.77': 'notfound', '2001:db8::25': ['relay.lists.example.org'] });
    await addReverseDns(report.records, { resolve: fake.resolve, cache: new MemoryRdnsCache() });
    assert.deepEqual(report.records.map((r) => [r.ipAddress, r.rdns, r.source]), [
      ['192.0.2.10', ['mail-sor-f41.google.com'], 'Google'],
      ['203.0.113.77', [], 'Unknown'],
      ['2001:db8::25', ['relay.lists.example.org'], 'example.org'],
    ]);
  });
});
