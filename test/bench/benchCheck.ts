/**
 * `npm run bench:check`: the quick benchmarks one after the other — bench:api, bench:encode,
 * bench:import and a 100k-row bench:panel (3 runs) — then every bar they print, met or missed,
 * in one list. Bars that can be are ratios to a floor measured in the same run (JSON.parse of the
 * same body, a bare saxes pass over the same XML), so a slower or busier machine moves the figure
 * and its floor together; the panel's are in milliseconds, as its issues set them, with this
 * machine's JSON.parse of 43 MB beside them to read them by.
 *
 * A benchmark, not a test: run it on a quiet machine, before and after a change to src/api,
 * src/records, src/shared or media/webview/data (CONTRIBUTING.md). Exits 1 when a bar is missed.
 * BENCH_CHECK_SKIP=panel,import leaves benches out; the panel needs the VS Code test host.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describeBar, type Bar } from './bars';

const root = resolve(__dirname, '../..');

interface Step {
  name: string;
  script: string;
  env: Record<string, string>;
}

const STEPS: Step[] = [
  { name: 'api', script: 'benchApi.js', env: { BENCH_RUNS: '5' } },
  { name: 'encode', script: 'benchEncode.js', env: { BENCH_RUNS: '7' } },
  { name: 'import', script: 'benchImport.js', env: { BENCH_RUNS: '5' } },
  { name: 'panel', script: 'benchPanel.js', env: { BENCH_RUNS: '3', BENCH_ROWS: '100000' } },
];

function run(step: Step, jsonFile: string): Promise<number> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'dist-test/bench', step.script)], {
      cwd: root,
      env: { ...process.env, ...step.env, BENCH_JSON: jsonFile },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('exit', (code) => done(code ?? 1));
  });
}

/** JSON.parse of a 43 MB body like the API's 100k rows: the machine's speed now, to read the panel's absolute bars by. */
function machineFloor(): number {
  const row = { source: 'Google Workspace', reporter: 'google.com', visibleFrom: 'acme.com', returnPath: 'acme.com', ipAddress: '209.85.141.192', ipCountryCode: 'BE', rdns: ['mail-qk1-f176.google.com'], emails: 3, category: 'authorized', date: '2025-06-01T00:00:00.000Z', dmarc: 'none', alignedSpf: 'pass', alignedDkim: 'pass', spf: 'pass', dkims: [{ selector: 'google', domain: 'acme.com', result: 'pass' }], from: 'acme.com', reportId: '3102683093980' };
  const text = JSON.stringify({ status: 'success', dmarcRecords: Array.from({ length: 100_000 }, (_, i) => ({ ...row, emails: i })) });
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    JSON.parse(text);
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b)[2]!;
}

async function main(): Promise<void> {
  const skip = new Set((process.env.BENCH_CHECK_SKIP ?? '').split(',').filter(Boolean));
  const dir = mkdtempSync(join(tmpdir(), 'dmarc-bench-check-'));
  const jsonFile = join(dir, 'bars.jsonl');
  const started = Date.now();
  const failed: string[] = [];
  try {
    for (const step of STEPS) {
      if (skip.has(step.name)) continue;
      console.log(`\n==== bench:${step.name} ====`);
      const code = await run(step, jsonFile);
      // A bench exits 1 when one of its own bars is missed; the list below says which.
      if (code !== 0 && code !== 1) failed.push(`bench:${step.name} exited ${code}`);
    }
    const floor = machineFloor();
    let lines: { bench: string; bars: (Bar & { worst?: number })[] }[] = [];
    try {
      lines = readFileSync(jsonFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as (typeof lines)[number]);
    } catch {
      // No bench wrote a line: said below.
    }
    const bars = lines.flatMap((l) => l.bars);
    // A bench that ended without its figures (it failed before its summary) has no bars to list.
    for (const step of STEPS) {
      if (skip.has(step.name) || lines.some((l) => l.bench.startsWith(step.name))) continue;
      failed.push(`bench:${step.name} ended without its figures (see its output above)`);
    }
    console.log(`\n==== bench:check — every bar (${((Date.now() - started) / 60_000).toFixed(1)} min; JSON.parse of 43 MB on this machine now: ${Math.round(floor)} ms) ====`);
    for (const b of bars) {
      const worst = b.worst !== undefined && b.worst !== b.value ? `, worst ${Math.round(b.worst)}` : '';
      const scale = b.name.startsWith('panel') && b.unit === 'ms' ? ` (${(b.value / floor).toFixed(2)}× the JSON.parse above)` : '';
      console.log(`${describeBar(b)}${worst}${scale}`);
    }
    const missed = bars.filter((b) => !b.met);
    for (const f of failed) console.log(`FAILED  ${f}`);
    if (bars.length === 0) console.log('FAILED  no bench reported a bar');
    console.log(`${bars.length - missed.length} bars met, ${missed.length} missed`);
    process.exitCode = missed.length || failed.length || bars.length === 0 ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
