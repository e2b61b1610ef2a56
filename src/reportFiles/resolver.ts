import { promises as dns } from 'node:dns';
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import type { PtrResolver } from '../import/rdns';

const tableSchema = z.record(z.string(), z.array(z.string()));

/**
 * The reverse DNS lookup for report files, chosen at the edge:
 * - VS Code running the extension's tests: only what a test injected.
 * - `DMARC_RDNS_TABLE` set (the test hosts, benchmarks and the demo set it): a fake answering
 *   from that JSON file's canned table (`{"ip": ["ptr.name"]}`), or none when it is empty. No
 *   query leaves the machine.
 * - Otherwise the system resolver, when the `dmarc.import.reverseDns` setting allows sending the
 *   IPs to it (the default), else none.
 */
export function ptrResolver(testMode: boolean, injected: PtrResolver | undefined, settingOn: boolean): PtrResolver | undefined {
  if (testMode) return injected;
  const table = process.env.DMARC_RDNS_TABLE;
  if (table !== undefined) return table ? tableResolver(table) : undefined;
  return settingOn ? (ip) => dns.reverse(ip) : undefined;
}

let loaded: { file: string; table: Record<string, string[]> } | undefined;

function tableResolver(file: string): PtrResolver {
  return async (ip) => {
    if (loaded?.file !== file) {
      const parsed = tableSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      loaded = { file, table: parsed.success ? parsed.data : {} };
    }
    const names = Object.prototype.hasOwnProperty.call(loaded.table, ip) ? loaded.table[ip] : undefined;
    if (!names?.length) throw Object.assign(new Error(`no PTR for ${ip}`), { code: 'ENOTFOUND' });
    return names;
  };
}
