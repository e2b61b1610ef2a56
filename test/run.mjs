// `npm test`: builds, then runs the three layers and ends with one line totalling them all,
// `N passed, N failed`. Exits non-zero when a test fails, a layer cannot start or times out, or a
// layer runs no test. `node test/run.mjs unit suite` runs just those layers. Before that line it
// prints the hostile suite's figures (issue 14, test/host/hostileLine.mjs) and fails on a loss or,
// when unit and suite both ran, on a kind tried fewer times than its floor. `--hostile` runs only
// the hostile tests (titled "hostile: …") of the layers that have them.
//   unit  - mocha in plain Node (dist-test/unit)
//   suite - mocha inside a real VS Code extension host (VS Code Server 1.100.3, see test/host)
//   ui    - a real headless Chromium driving the real workbench (dist-test/ui)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdtempSync, rmSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installHost } from './host/installHost.mjs';
import { startHost, launchBrowser } from './host/launch.mjs';
import { hostileLine, totalFigures } from './host/hostileLine.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ALL = ['unit', 'suite', 'ui'];
const layers = process.argv.slice(2).filter((a) => ALL.includes(a));
const hostileOnly = process.argv.includes('--hostile');
/** The layers with hostile tests: what `--hostile` runs by default. */
const HOSTILE_LAYERS = ['unit', 'suite'];
const selected = layers.length ? layers : hostileOnly ? HOSTILE_LAYERS : ALL;
// Layers pick tests by this (test/host/layer.mjs, test/suite/index.ts); the extension host inherits it.
if (hostileOnly) process.env.DMARC_TEST_GREP = 'hostile: ';
const SUITE_TIMEOUT_MS = Number(process.env.DMARC_SUITE_TIMEOUT_MS || 10 * 60_000);
const tmp = mkdtempSync(join(tmpdir(), 'dmarc-test-'));

function build() {
  const r = spawnSync(process.execPath, ['esbuild.mjs', '--tests'], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

function readResults(file, layer) {
  if (!existsSync(file)) return undefined;
  const r = JSON.parse(readFileSync(file, 'utf8'));
  return { layer, passed: r.passed, failed: r.failed };
}

async function runNodeLayer(layer) {
  const file = join(tmp, `${layer}.json`);
  const child = spawn(process.execPath, [join(repoRoot, 'test/host/layer.mjs'), layer, file], { cwd: repoRoot, stdio: 'inherit' });
  const code = await new Promise((r) => child.on('exit', (c) => r(c)));
  const res = readResults(file, layer);
  if (!res) throw new Error(`the ${layer} layer ended (exit ${code}) without reporting results`);
  return res;
}

/** Follows a file as it grows (the suite's log, written from inside the extension host). */
function follow(file, write) {
  let pos = 0;
  const tick = () => {
    if (!existsSync(file)) return;
    const size = statSync(file).size;
    if (size <= pos) return;
    const fd = openSync(file, 'r');
    const buf = Buffer.alloc(size - pos);
    readSync(fd, buf, 0, buf.length, pos);
    closeSync(fd);
    pos = size;
    write(buf.toString('utf8'));
  };
  const timer = setInterval(tick, 250);
  return () => { clearInterval(timer); tick(); };
}

async function runSuiteLayer() {
  installHost();
  const resultsFile = join(tmp, 'suite.json');
  const logFile = join(tmp, 'suite.log');
  const verbose = !!process.env.DMARC_TEST_VERBOSE;
  const host = await startHost({
    env: { DMARC_TEST_RESULTS: resultsFile, DMARC_TEST_LOG: logFile },
    log: (l) => verbose && console.log(`[host] ${l}`),
  });
  let browser;
  const stopFollowing = follow(logFile, (s) => process.stdout.write(s));
  try {
    ({ browser } = await launchBrowser().then(async (b) => {
      await b.page.goto(host.workbenchUrl({ extensionPath: repoRoot, testsPath: join(repoRoot, 'dist-test/suite/index.js') }));
      return b;
    }));
    const deadline = Date.now() + SUITE_TIMEOUT_MS;
    while (!existsSync(resultsFile)) {
      if (Date.now() > deadline) throw new Error(`the suite layer timed out after ${SUITE_TIMEOUT_MS / 1000} s in the extension host`);
      await new Promise((r) => setTimeout(r, 250));
    }
    return readResults(resultsFile, 'suite');
  } catch (err) {
    console.log(host.output.slice(-30).join('\n'));
    throw err;
  } finally {
    stopFollowing();
    await browser?.close().catch(() => {});
    await host.close();
  }
}

/**
 * The unit layer reads the packaged .vsix (test/unit/vsix.test.ts). Packaging runs vsce's
 * prepublish step, a minified build into dist/, so it comes before build(), which puts the test
 * build back. A failure here is the vsix test's to report.
 */
function packageVsix() {
  const out = join(tmp, 'dmarc-explorer.vsix');
  const r = spawnSync(process.execPath, ['tools/package.mjs', '--out', out], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status === 0) {
    process.env.DMARC_TEST_VSIX = out;
    console.log(`packaged ${(statSync(out).size / 1024).toFixed(1)} KB for the unit layer`);
  } else {
    console.log(`packaging failed (the unit layer's vsix test will say why):\n${r.stdout}\n${r.stderr}`);
  }
}

const results = [];
let exitCode = 0;
try {
  if (selected.includes('unit')) packageVsix();
  build();
} catch (err) {
  console.error(String(err.message || err));
  console.log('0 passed, 1 failed');
  process.exit(1);
}
for (const layer of selected) {
  console.log(`\n=== ${layer} ===`);
  const started = Date.now();
  try {
    if (layer === 'ui') installHost();
    const r = layer === 'suite' ? await runSuiteLayer() : await runNodeLayer(layer);
    if (r.passed + r.failed === 0) throw new Error(`the ${layer} layer ran no test`);
    results.push({ ...r, seconds: (Date.now() - started) / 1000 });
  } catch (err) {
    console.error(`\n${layer}: ERROR ${err.message || err}`);
    results.push({ layer, passed: 0, failed: 1, error: true, seconds: (Date.now() - started) / 1000 });
  }
}
// Floors hold for a whole run: every layer with hostile tests, no other test picked by name.
const hostile = totalFigures(selected.map((l) => join(tmp, `${l}.json`)));
const floors = HOSTILE_LAYERS.every((l) => selected.includes(l)) && (hostileOnly || !process.env.DMARC_TEST_GREP);
rmSync(tmp, { recursive: true, force: true });

console.log('\n=== summary ===');
for (const r of results) {
  console.log(`${r.layer.padEnd(6)} ${String(r.passed).padStart(4)} passed ${String(r.failed).padStart(4)} failed${r.error ? ' (layer did not complete)' : ''}  ${r.seconds.toFixed(1)} s`);
  if (r.failed > 0 || r.passed === 0) exitCode = 1;
}
const passed = results.reduce((n, r) => n + r.passed, 0);
let failed = results.reduce((n, r) => n + r.failed, 0);
if (hostile.layers > 0 || floors) {
  const h = hostileLine(hostile, { floors });
  for (const p of h.problems) console.log(`hostile: FAILED ${p}`);
  for (const n of h.notes) console.log(`hostile:   ${n}`);
  console.log(h.line);
  // The figures are one more check of the run: failing them fails it.
  if (h.problems.length) {
    failed++;
    exitCode = 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(exitCode);
