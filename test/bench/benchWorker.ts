/**
 * `npm run bench:worker`: would the extension host's main thread gain from fetching and parsing a
 * response in a worker thread that hands the records back? One response of BENCH_ROWS rows
 * (default 300k) from the local API server (rendered once, then sent from memory), read by
 * fetchDmarcRecords two ways, alternated BENCH_RUNS times (default 3), medians:
 *   main     on this thread, as the extension does: the rows collected as they arrive (onRows)
 *   worker   in a worker thread, each onRows batch posted to this thread (structured clone)
 * For each: the wall time, this thread's busy time (event-loop utilisation), its longest
 * event-loop block (monitorEventLoopDelay, 10 ms resolution, as src/perf.ts samples the host), its
 * heap with the records held, and the CPU time of the whole process (every thread: what a second
 * thread costs the cores the extension host shares with the window and the webview). A
 * benchmark, not a test; no bar: it measures a design.
 *
 * Measured here (1M rows, Node 20, 2 cores): this thread busy 8.8–10.4 s on its own against 9.8 s
 * receiving the worker's records, its heap 530 against 900 MB (strings are copied per message:
 * the response's shared strings and signature lists are not shared any more), its longest block
 * 81–101 against 390–1,001 ms. Taking a cloned record costs this thread about what parsing it
 * does: a worker only helps once the records stay in it (or come back as bytes, not objects).
 *
 * Bytes, not objects, were tried next (branch experiment/parse-thread: the worker parses, the
 * records come back as string tables and 32-bit codes, built here at ~0.6 µs a row). At 300k rows
 * this thread was busy 20–30 % less, but the process used 17–30 % more CPU and this thread's
 * longest block was 61–75 ms against 28–31 (its scavenges, dense with surviving records, ran
 * without the second core); in bench:panel at 1M rows the host blocked as long (315/728/579 ms
 * against 243/555/543), the load took longer (41.6 against 38.6 s) and the host held 976 MB
 * against 939. On two cores the records must not be built on the main thread at all.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fetchDmarcRecords } from '../../src/api/client';
import type { DmarcRecord, RecordsQuery } from '../../src/api/types';
import { startApiServer } from './apiServer';

const KEY = 'bench-worker-key';
const ORG = 'bench-worker-org';
const DAYS = 30;

function queryOf(url: string): RecordsQuery {
  const day = 86_400_000;
  const end = Math.floor(Date.now() / day) * day - 2 * day;
  return { baseUrl: url, apiKey: KEY, organizationId: ORG, startDate: new Date(end - DAYS * day), endDate: new Date(end - 1) };
}

interface Measure {
  rows: number;
  wallMs: number;
  busyMs: number;
  blockMs: number;
  heapMB: number;
  /** CPU time of the whole process (every thread), user + system. */
  cpuMs: number;
}

/** Reads the response one way, this thread's costs measured meanwhile. */
async function measure(url: string, how: 'main' | 'worker'): Promise<Measure> {
  const held: DmarcRecord[] = [];
  const elu = performance.eventLoopUtilization();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  if (how === 'main') {
    await fetchDmarcRecords(queryOf(url), { onRows: (records) => void held.push(...records) });
  } else {
    const worker = new Worker(__filename, { workerData: { url } });
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (m: { rows?: DmarcRecord[]; done?: boolean; error?: string }) => {
        if (m.rows) held.push(...m.rows);
        else if (m.error) reject(new Error(m.error));
        else if (m.done) resolve();
      });
      worker.once('error', reject);
    });
    await worker.terminate();
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  delay.disable();
  const busyMs = performance.eventLoopUtilization(elu).active;
  const heapMB = process.memoryUsage().heapUsed / 1048576;
  return { rows: held.length, wallMs, busyMs, blockMs: delay.max / 1e6, heapMB, cpuMs };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const rows = Number(process.env.BENCH_ROWS || 300_000);
  const runs = Number(process.env.BENCH_RUNS || 3);
  const server = await startApiServer(['--rows-per-day', String(Math.ceil(rows / DAYS)), '--key', `${KEY}=${ORG}`, '--cache-bodies', '1']);
  try {
    // The server renders the body once; every read after that is sent from memory.
    await fetchDmarcRecords(queryOf(server.url));
    const results: Record<'main' | 'worker', Measure[]> = { main: [], worker: [] };
    for (let run = 0; run < runs; run++) {
      for (const how of ['main', 'worker'] as const) {
        global.gc?.();
        const m = await measure(server.url, how);
        results[how].push(m);
        console.log(`run ${run + 1} ${how.padEnd(6)} ${m.rows} rows: wall ${Math.round(m.wallMs)} ms, this thread busy ${Math.round(m.busyMs)} ms, longest block ${Math.round(m.blockMs)} ms, heap ${Math.round(m.heapMB)} MB, process CPU ${Math.round(m.cpuMs)} ms`);
      }
    }
    console.log(`\nmedians of ${runs} runs (${rows} rows): how, wall ms, this thread busy ms, longest block ms, heap MB, process CPU ms`);
    for (const how of ['main', 'worker'] as const) {
      const of = (k: keyof Measure) => Math.round(median(results[how].map((m) => m[k])));
      console.log(`${how.padEnd(6)} ${of('wallMs')} ${of('busyMs')} ${of('blockMs')} ${of('heapMB')} ${of('cpuMs')}`);
    }
  } finally {
    server.stop();
  }
}

if (isMainThread) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  // The worker: the same fetch, each batch of rows posted as it arrives.
  const { url } = workerData as { url: string };
  fetchDmarcRecords(queryOf(url), { onRows: (records) => parentPort!.postMessage({ rows: records }) })
    .then(() => parentPort!.postMessage({ done: true }))
    .catch((err: Error) => parentPort!.postMessage({ error: err.message }));
}
