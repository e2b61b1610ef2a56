/**
 * `npm run bench:api`: what the API client costs on 10k and 100k rows.
 *
 * The local API server runs in a child process (dist-test/server/cli.js): generating and
 * serialising 100k rows is about a second of CPU, which in-process would run on the same event
 * loop and heap as the client and inflate both its timings and its memory. With its own process
 * it runs on another core and the numbers below are the client's alone.
 *
 * For each size, with the same body text, medians of RUNS runs (5 × RUNS for the timings of 10k rows):
 *   fetch+text        GET over loopback until the last byte (undici)
 *   JSON.parse        plain JSON.parse of the body text (the yardstick)
 *   scan+parse        parseRecordsJsonAsync: the rows without one JSON.parse of the whole body
 *                     (scan + JSON.parse ~1 MB at a time, yielding); one JSON.parse below 8 MB
 *   validate+norm     normaliseRows over freshly parsed rows, without sharing (share: false): the
 *                     zod boundary and the records, what this bar measured when it was set
 *   overhead          (scan+parse + validate+norm) / JSON.parse − 1   — the bar is ≤ 50%
 *   sharing           what sharing adds to validate+norm (normaliseRows as the client runs it,
 *                     minus the above, run by run): a response's common strings, its signature
 *                     lists and the rows held by their shape (src/api/stringPool.ts, rawRow.ts).
 *                     Worth it: (held B/row) what the records of a response hold, with their rows,
 *                     without and with it — at a million rows in the extension host, hundreds of
 *                     megabytes and the garbage collector's time with them. Its own bar: ≤ 40% of
 *                     JSON.parse
 *   client path       the body in 64 KB pieces through RecordsBodyStream, as the client reads a
 *                     response (scan, parse, validate, share, interleaved); (vs parse) against JSON.parse
 *   body→records      parseRecordsBody (scan+parse, then validate+norm with sharing) in one go, GC included
 *   stall             longest event-loop stall during body→records — the bar is < 200 ms
 *   end-to-end        fetchDmarcRecords: fetch + parse + validate + normalise
 *   e2e stall         longest event-loop stall during end-to-end
 *   peak heap         highest heapUsed seen during end-to-end (sampled), after a GC
 *
 * Each step is timed as a separate step (like the yardstick), from the same heap: after three
 * parses of the body, each followed by a full collection (settle). Stalls are measured
 * with a 1 ms interval timer: the longest gap between two of its ticks.
 *
 * BENCH_JSON=<file> writes the figures as JSON as well (bench:check reads them).
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { fetchDmarcRecords, normaliseRows, parseRecordsBody, parseRecordsJson, utcDayRange } from '../../src/api';
import { parseRecordsJsonAsync, RecordsBodyStream } from '../../src/api/body';
import { startApiServer } from './apiServer';
import { msBar, printBars, ratioBar, table, writeBenchJson, type Bar } from './bars';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const ROWS_PER_DAY = 10_000;
const KEY = 'demo-key-5f2c8e7a91d4b036';
const NOW = '2025-06-15T12:00:00Z';

// A GC handle without requiring `node --expose-gc` on the command line.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

async function time<T>(f: () => Promise<T> | T): Promise<[number, T]> {
  const t0 = performance.now();
  const r = await f();
  return [performance.now() - t0, r];
}

/**
 * Runs f while a 1 ms timer watches the event loop: [ms, result, longest stall, peak heapUsed
 * above the start]. Heap sampling (process.memoryUsage, not free) only when asked.
 */
async function watched<T>(f: () => Promise<T>, sampleHeap = false): Promise<[number, T, number, number]> {
  const base = process.memoryUsage().heapUsed;
  let last = performance.now();
  let stall = 0;
  let top = base;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
    if (sampleHeap) top = Math.max(top, process.memoryUsage().heapUsed);
  }, 1);
  const [ms, res] = await time(f);
  top = Math.max(top, process.memoryUsage().heapUsed);
  clearInterval(timer);
  stall = Math.max(stall, performance.now() - last);
  return [ms, res, stall, top - base];
}

interface Row {
  rows: number;
  bodyMb: string;
  fetchText: number;
  parse: number;
  scanParse: number;
  validate: number;
  sharing: number;
  heldPlain: number;
  heldShared: number;
  client: number;
  body: number;
  overhead: number;
  stall: number;
  endToEnd: number;
  e2eStall: number;
  peakHeapMb: string;
}

async function benchSize(url: string, days: number): Promise<Row> {
  const range = utcDayRange('2025-06-01', `2025-06-${String(days).padStart(2, '0')}`);
  const href = new URL('/api/public/dmarc-records', url);
  href.searchParams.set('organizationId', 'acme');
  href.searchParams.set('startDate', range.startDate);
  href.searchParams.set('endDate', range.endDate);

  const fetchText: number[] = [];
  let text = '';
  for (let i = 0; i < RUNS; i++) {
    const [ms, t] = await time(async () => (await fetch(href, { headers: { authorization: `Bearer ${KEY}` } })).text());
    fetchText.push(ms);
    text = t;
  }

  // Small bodies take a few milliseconds a step: more runs, so that their medians hold.
  const steps = days === 1 ? RUNS * 5 : RUNS;
  // Interleaved, so that the yardstick and what it measures see the same load on the machine.
  // Each step is its own function returning numbers only, so that no step's rows are still
  // alive (and cost the garbage collector) during the next one.
  const parse: number[] = [];
  const scanParse: number[] = [];
  const validate: number[] = [];
  const sharing: number[] = [];
  const heldPlain: number[] = [];
  const heldShared: number[] = [];
  const client: number[] = [];
  const body: number[] = [];
  const bodyStalls: number[] = [];
  let rows = 0;
  // The heap the parsed rows take, alone.
  gc();
  const before = process.memoryUsage().heapUsed;
  let parsedRows: unknown[] | undefined = parseRecordsJson(text, 'application/json');
  gc();
  const rowsHeap = process.memoryUsage().heapUsed - before;
  rows = parsedRows.length;
  parsedRows = undefined;
  const check = (n: number, what: string) => {
    if (n !== rows) throw new Error(`${what}: ${n} rows, not ${rows}`);
  };
  // Each timed step starts from the same heap: right after parses of this body, each followed by a
  // full collection (V8 sizes its young generation by what ran before; at 10k rows the same
  // JSON.parse took 15 ms after one step and 32 ms after another, which moved the yardstick, not
  // the code). One round was not enough: timed at four places in a round (10k rows, medians of
  // 45), the same JSON.parse still differed by 1.5-3 ms (15.1 where the yardstick is, 16.7 right
  // after the sharing step, where scan+parse was timed: a tenth of the overhead bar); after three
  // rounds, by 0.1-0.4 ms in each of three runs.
  const settle = (): void => {
    for (let round = 0; round < 3; round++) {
      JSON.parse(text);
      gc();
    }
  };
  for (let i = 0; i < steps; i++) {
    settle();
    const [p, n] = await time(() => (JSON.parse(text) as { dmarcRecords: unknown[] }).dmarcRecords.length);
    parse.push(p);
    rows = n;
    gc();
    // The input of normaliseRows: the rows of a fresh parse; without sharing, then as the client
    // runs it. Each leaves what its records hold (the rows let go) in held*.
    const normalise = async (share: boolean, held: number[]): Promise<number> => {
      settle();
      let fresh: unknown[] | undefined = parseRecordsJson(text, 'application/json');
      gc(); // the settled heap of the other steps, with its input parsed
      const base = process.memoryUsage().heapUsed;
      const [v, res] = await time(() => normaliseRows(fresh!, { share }));
      if (res.rejected.count) throw new Error('bench data did not validate');
      check(res.records.length, 'normaliseRows');
      fresh = undefined;
      gc();
      // What the records hold, with what they keep of their rows, over the heap before them
      // (which held the parsed rows): the rows' own size added back from the plain parse.
      held.push((process.memoryUsage().heapUsed - base + rowsHeap) / res.records.length);
      return v;
    };
    const plainMs = await normalise(false, heldPlain);
    validate.push(plainMs);
    sharing.push((await normalise(true, heldShared)) - plainMs);
    settle();
    const [sp, spRows] = await time(async () => (await parseRecordsJsonAsync(text, 'application/json')).length);
    check(spRows, 'parseRecordsJsonAsync');
    scanParse.push(sp);
    settle();
    const [b, kept, stall] = await watched(async () => (await parseRecordsBody(text, 'application/json')).records.length);
    check(kept, 'parseRecordsBody');
    body.push(b);
    bodyStalls.push(stall);
    settle();
    const [c, streamed] = await time(() => {
      const stream = new RecordsBodyStream('application/json');
      for (let at = 0; at < text.length; at += 65_536) stream.push(text.slice(at, at + 65_536));
      return stream.finish().records.length;
    });
    check(streamed, 'RecordsBodyStream');
    client.push(c);
  }

  const endToEnd: number[] = [];
  const e2eStalls: number[] = [];
  let peak = 0;
  for (let i = 0; i < RUNS; i++) {
    gc();
    const [ms, res, stall, top] = await watched(() => fetchDmarcRecords({ baseUrl: url, apiKey: KEY, organizationId: 'acme', ...range }), true);
    if (res.records.length !== rows) throw new Error('row count differs');
    endToEnd.push(ms);
    e2eStalls.push(stall);
    peak = Math.max(peak, top);
  }

  const p = median(parse);
  const sp = median(scanParse);
  const v = median(validate);
  return {
    rows,
    bodyMb: mb(Buffer.byteLength(text)),
    fetchText: median(fetchText),
    parse: p,
    scanParse: sp,
    validate: v,
    sharing: median(sharing),
    heldPlain: median(heldPlain),
    heldShared: median(heldShared),
    client: median(client),
    body: median(body),
    overhead: (sp + v) / p - 1,
    stall: median(bodyStalls),
    endToEnd: median(endToEnd),
    e2eStall: median(e2eStalls),
    peakHeapMb: mb(peak),
  };
}

async function main(): Promise<void> {
  const { url, child } = await startApiServer(['--rows-per-day', String(ROWS_PER_DAY), '--now', NOW]);
  try {
    console.log(`DMARC API client bench — Node ${process.version}, ${RUNS} runs per size (medians), server in a child process at ${url}`);
    const results: Row[] = [];
    for (const days of [1, 10]) results.push(await benchSize(url, days));
    const pct = (x: number) => `${x < 0 ? '' : '+'}${(x * 100).toFixed(0)}%`;
    table(
      ['rows', 'body MB', 'fetch+text ms', 'JSON.parse ms', 'scan+parse ms', 'validate+norm ms', 'overhead', 'sharing ms', 'held B/row', 'client path ms', 'vs parse'],
      results.map((r) => [
        String(r.rows), r.bodyMb, r.fetchText.toFixed(0), r.parse.toFixed(0), r.scanParse.toFixed(0), r.validate.toFixed(0), pct(r.overhead),
        `+${r.sharing.toFixed(0)} (${pct(r.sharing / r.parse)})`, `${r.heldPlain.toFixed(0)} → ${r.heldShared.toFixed(0)}`, r.client.toFixed(0), pct(r.client / r.parse - 1),
      ]),
    );
    table(
      ['rows', 'body→records ms', 'stall ms', 'end-to-end ms', 'e2e stall ms', 'peak heap MB'],
      results.map((r) => [String(r.rows), r.body.toFixed(0), r.stall.toFixed(0), r.endToEnd.toFixed(0), r.e2eStall.toFixed(0), r.peakHeapMb]),
    );
    console.log(`max RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
    const bars: Bar[] = [];
    for (const r of results) {
      bars.push(ratioBar(`api ${r.rows / 1000}k: scan+parse + validate+norm`, r.scanParse + r.validate, r.parse, 1.5, 'JSON.parse'));
      bars.push(ratioBar(`api ${r.rows / 1000}k: sharing`, r.sharing, r.parse, 0.4, 'JSON.parse'));
      bars.push(msBar(`api ${r.rows / 1000}k: longest stall in body→records`, r.stall, 200));
    }
    printBars(bars);
    writeBenchJson('api', { results, bars });
    const ok = bars.every((x) => x.met);
    process.exitCode = ok ? 0 : 1;
  } finally {
    child.kill('SIGINT');
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
