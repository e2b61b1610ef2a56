/**
 * `npm run bench:disk`: what the disk cache (src/records/diskCache.ts) costs for a large settled
 * range: the file's size, writing it and reading it back, in plain Node. The rows are the local
 * API server's (test/server/data.ts), parsed as the client parses a response (with its string
 * pool, rows held by their shape).
 *
 *   write         DiskCache.write until the file is renamed into place (no pauses asked for)
 *   read          DiskCache.read until every record is back; (first rows) until its first batch
 *                 of rows is handed on (what a records panel shows while the rest is read)
 *   stall         longest event-loop stall during each (a 1 ms interval timer's longest gap)
 *   file          the file's size
 *
 * Options (env): BENCH_ROWS (default 1,000,000), BENCH_RUNS (default 3).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { parseRecordsBody } from '../../src/api/body';
import { rawOf } from '../../src/api/rawRow';
import type { DmarcRecord, FetchResult } from '../../src/api/types';
import { DiskCache } from '../../src/records/diskCache';
import { ORGANIZATIONS, generateDay } from '../server/data';

const ROWS = Number(process.env.BENCH_ROWS || 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS || 3);

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs f with a 1 ms timer beside it: its time and the longest gap between the timer's ticks. */
async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; stall: number; value: T }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  try {
    const value = await f();
    return { ms: performance.now() - t0, stall: Math.max(stall, performance.now() - last), value };
  } finally {
    clearInterval(timer);
  }
}

async function rows(): Promise<FetchResult> {
  const acme = ORGANIZATIONS.find((o) => o.id === 'acme')!;
  const wire: unknown[] = [];
  for (let day = Date.parse('2025-01-01') / 86_400_000; wire.length < ROWS; day++) wire.push(...generateDay(acme, day, 1, Math.min(20_000, ROWS - wire.length)));
  return parseRecordsBody(JSON.stringify({ status: 'success', dmarcRecords: wire }), 'application/json');
}

async function main(): Promise<void> {
  const result = await rows();
  const n = result.records.length;
  const dir = mkdtempSync(join(tmpdir(), 'dmarc-bench-disk-'));
  const cache = new DiskCache(dir, { maxBytes: () => Number.MAX_SAFE_INTEGER });
  const writes: number[] = [];
  const writeStalls: number[] = [];
  const reads: number[] = [];
  const firsts: number[] = [];
  const readStalls: number[] = [];
  let size = 0;
  try {
    for (let run = 0; run < RUNS; run++) {
      gc();
      const w = await timed(() => cache.write('acc', 'org', run, run + 1, result, 1));
      writes.push(w.ms);
      writeStalls.push(w.stall);
      size = statSync(join(cache.dir, cache.fileName('acc', 'org', run, run + 1))).size;
      gc();
      const t0 = performance.now();
      let first = NaN;
      const r = await timed(() => cache.read('acc', 'org', run, run + 1, () => void (first = Number.isNaN(first) ? performance.now() - t0 : first)));
      firsts.push(first);
      reads.push(r.ms);
      readStalls.push(r.stall);
      const records = r.value!.result.records;
      if (records.length !== n) throw new Error(`read back ${records.length} rows of ${n}`);
      // Spot check: the records read back are the records sent, and so are their rows, key for key.
      const fields = (x: DmarcRecord) => JSON.stringify({ ...x, raw: undefined, shape: undefined });
      for (let i = 0; i < n; i += 9973) {
        const a = records[i]!;
        const b = result.records[i]!;
        if (JSON.stringify(rawOf(a)) !== JSON.stringify(rawOf(b)) || fields(a) !== fields(b)) throw new Error(`row ${i} differs`);
      }
      console.log(`run ${run + 1}/${RUNS}: write ${Math.round(w.ms)} ms (stall ${Math.round(w.stall)}), read ${Math.round(r.ms)} ms (first rows ${Math.round(first)} ms, stall ${Math.round(r.stall)}), file ${(size / 1048576).toFixed(0)} MB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\ndisk cache bench — ${n} rows, ${RUNS} runs, medians`);
  console.log(`write ${Math.round(median(writes))} ms (longest stall ${Math.round(median(writeStalls))} ms); read ${Math.round(median(reads))} ms (first rows after ${Math.round(median(firsts))} ms; longest stall ${Math.round(median(readStalls))} ms)`);
  console.log(`file ${(size / 1048576).toFixed(0)} MB (${Math.round(size / n)} bytes a row)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
