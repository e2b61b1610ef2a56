/**
 * Reverse DNS for imported rows (reports carry no PTR) and the source name derived from it.
 *
 * Pure of I/O: the resolver and the cache are injected. The extension passes the system resolver
 * (only when the user's setting allows sending the IPs to it) and a cache it keeps on disk
 * (`RdnsCacheFileSchema` is the shape of that file); tests pass a fake resolver with a canned
 * table, so no test ever sends a DNS query.
 *
 * Source name: the PTR's base domain (public suffix list, ICANN section, via tldts) looked up in
 * the bundled map of known senders (./knownSenders), else the base domain itself, else "Unknown".
 */
import { getDomain } from 'tldts-icann';
import * as z from 'zod';
import type { DmarcRecord } from '../api/types';
import { KNOWN_SENDERS } from './knownSenders';

/** Like `dns.promises.reverse`: the PTR names of an IP; rejects with `code` ENOTFOUND/ENODATA when there are none. */
export type PtrResolver = (ip: string) => Promise<string[]>;

export interface RdnsEntry {
  names: string[];
  /** When it was looked up, epoch ms. */
  at: number;
}

export interface RdnsCache {
  get(ip: string): RdnsEntry | undefined;
  set(ip: string, entry: RdnsEntry): void;
}

/** The cache file the extension keeps; validated when read back (it is outside data). */
export const RdnsCacheFileSchema = z.object({
  version: z.literal(1),
  entries: z.record(z.string().max(64), z.object({ names: z.array(z.string().max(253)).max(10), at: z.number() })),
});
export type RdnsCacheFile = z.infer<typeof RdnsCacheFileSchema>;

export class MemoryRdnsCache implements RdnsCache {
  private readonly map = new Map<string, RdnsEntry>();
  get(ip: string): RdnsEntry | undefined {
    return this.map.get(ip);
  }
  set(ip: string, entry: RdnsEntry): void {
    this.map.set(ip, entry);
  }
  get size(): number {
    return this.map.size;
  }
  toFile(): RdnsCacheFile {
    return { version: 1, entries: Object.fromEntries(this.map) };
  }
  /** A cache from a file's parsed JSON; anything that is not a valid cache file gives an empty one. */
  static fromFile(json: unknown): MemoryRdnsCache {
    const cache = new MemoryRdnsCache();
    const parsed = RdnsCacheFileSchema.safeParse(json);
    if (parsed.success) for (const [ip, e] of Object.entries(parsed.data.entries)) cache.set(ip, { names: e.names.map(normaliseName).filter(isHostName), at: e.at });
    return cache;
  }
}

export interface ResolveOptions {
  resolve: PtrResolver;
  cache: RdnsCache;
  /** Lookups in flight at once. */
  concurrency?: number;
  /** One lookup's time before it counts as failed (not cached). */
  timeoutMs?: number;
  /** How long an answer (names or "none") is trusted. */
  ttlMs?: number;
  now?: () => number;
  signal?: AbortSignal;
}

export const RDNS_DEFAULTS = { concurrency: 8, timeoutMs: 5000, ttlMs: 7 * 86_400_000 };
const MAX_NAMES = 10;

function normaliseName(name: string): string {
  return name.trim().replace(/\.$/, '').toLowerCase();
}

function isHostName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && /^[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/.test(name);
}

/** "None" answers are cached like names; timeouts and server failures are asked again next time. */
function isNegative(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOTFOUND' || code === 'ENODATA';
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('reverse DNS timed out'), { code: 'ETIMEOUT' })), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The PTR names of each distinct IP, from the cache when fresh, else from the resolver with at
 * most `concurrency` lookups in flight. IPs whose lookup failed map to [] and are not cached.
 */
export async function resolvePtrs(ips: Iterable<string>, options: ResolveOptions): Promise<Map<string, string[]>> {
  const { resolve, cache, signal } = options;
  const concurrency = Math.max(1, options.concurrency ?? RDNS_DEFAULTS.concurrency);
  const timeoutMs = options.timeoutMs ?? RDNS_DEFAULTS.timeoutMs;
  const ttlMs = options.ttlMs ?? RDNS_DEFAULTS.ttlMs;
  const now = options.now ?? Date.now;
  const out = new Map<string, string[]>();
  const todo: string[] = [];
  for (const ip of new Set(ips)) {
    const hit = cache.get(ip);
    if (hit && now() - hit.at < ttlMs) out.set(ip, hit.names);
    else todo.push(ip);
  }
  let next = 0;
  const worker = async () => {
    while (next < todo.length && !signal?.aborted) {
      const ip = todo[next++]!;
      try {
        const names = (await withTimeout(resolve(ip), timeoutMs)).map(normaliseName).filter(isHostName).slice(0, MAX_NAMES);
        cache.set(ip, { names, at: now() });
        out.set(ip, names);
      } catch (e) {
        if (isNegative(e)) cache.set(ip, { names: [], at: now() });
        out.set(ip, []);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, worker));
  return out;
}

/** The source name for a PTR name: known sender, else base domain, else "Unknown". */
export function sourceName(ptr: string | undefined, senders: ReadonlyMap<string, string> = KNOWN_SENDERS): string {
  if (!ptr) return 'Unknown';
  const base = getDomain(ptr, { allowPrivateDomains: false });
  if (!base) return 'Unknown';
  return senders.get(base) ?? base;
}

/** Fills `rdns` and `source` of imported rows (in place) from reverse DNS. */
export async function addReverseDns(records: DmarcRecord[], options: ResolveOptions): Promise<void> {
  const names = await resolvePtrs(records.map((r) => r.ipAddress), options);
  for (const r of records) {
    const ptrs = names.get(r.ipAddress) ?? [];
    r.rdns = ptrs;
    r.source = sourceName(ptrs[0]);
  }
}
