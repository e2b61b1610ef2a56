/**
 * The extension host's cost per row between the network and the webview, without VS Code:
 * scan + parse + validate + normalise a response body (parseRecordsBody), then encode the rows
 * into binary chunks of 2,500 rows (encodeRows; the panel posts 1,250 a chunk). Medians of RUNS runs,
 * against JSON.parse of the same body, timed in the same rounds: parse+validate (sharing
 * included, see bench:api) ≤ 1.8×, encoding ≤ 1.25× (0.96× measured: a guard against regressions).
 *   node esbuild.mjs --tests && node dist-test/bench/benchEncode.js [rows]
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { parseRecordsBody } from '../../src/api/body';
import { encodeRows } from '../../src/records/tuple';
import { generateDay, ORGANIZATIONS } from '../server/data';
import { printBars, ratioBar, writeBenchJson } from './bars';

const N = Number(process.argv[2] ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const org = ORGANIZATIONS[0]!;
  const wire: unknown[] = [];
  for (let day = 0; wire.length < N; day++) wire.push(...generateDay(org, day, 7, Math.min(20_000, N)));
  wire.length = N;
  const body = JSON.stringify({ status: "success", dmarcRecords: wire });
  console.log(`rows: ${N}, body ${(body.length / 1048576).toFixed(1)} MB`);
  const floor: number[] = [];
  const parse: number[] = [];
  const encode: number[] = [];
  let bytes = 0;
  for (let k = 0; k < RUNS; k++) {
    gc();
    let t0 = performance.now();
    JSON.parse(body);
    floor.push(performance.now() - t0);
    gc();
    t0 = performance.now();
    const { records } = await parseRecordsBody(body, 'application/json');
    parse.push(performance.now() - t0);
    gc();
    t0 = performance.now();
    bytes = 0;
    for (let off = 0; off < records.length; off += 2_500) bytes += encodeRows(records, off, Math.min(2_500, records.length - off)).byteLength;
    encode.push(performance.now() - t0);
  }
  console.log(`parse+validate: median ${median(parse).toFixed(0)} ms (${((1e3 * median(parse)) / N).toFixed(2)} µs/row)`);
  console.log(`encode chunks:  median ${median(encode).toFixed(0)} ms (${((1e3 * median(encode)) / N).toFixed(2)} µs/row), ${(bytes / 1048576).toFixed(1)} MB of chunks`);
  console.log(`JSON.parse:     median ${median(floor).toFixed(0)} ms (the floor)`);
  // What the host does per row between the network and the webview, against JSON.parse of the same body.
  const bars = [
    ratioBar(`encode ${N / 1000}k: parse+validate`, median(parse), median(floor), 1.8, 'JSON.parse'),
    ratioBar(`encode ${N / 1000}k: encode chunks`, median(encode), median(floor), 1.25, 'JSON.parse'),
  ];
  printBars(bars);
  writeBenchJson('encode', { bars });
  if (!bars.every((b) => b.met)) process.exitCode = 1;
}
void main();
