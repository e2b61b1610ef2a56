// Runs one Node-side test layer (unit or ui) with mocha and the shared reporter, in its own
// process so one layer's open handles cannot hold up another. Usage: node layer.mjs unit|ui RESULTS_FILE
import Mocha from 'mocha';
import { readdirSync, statSync, mkdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { startHost, launchBrowser } from './launch.mjs';

const require = createRequire(import.meta.url);
const { createReporter } = require('./reporter.cjs');
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const [layer, resultsFile] = process.argv.slice(2);

function testFiles(dir) {
  let out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(testFiles(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

if (layer === 'ui') {
  // The UI tests are bundled CommonJS; they reach the launcher through this global so that every
  // file shares one implementation (see test/ui/harness.ts).
  const screenshots = join(repoRoot, 'test-output', 'screenshots');
  mkdirSync(screenshots, { recursive: true });
  globalThis.__dmarcHarness = {
    repoRoot,
    screenshots,
    startHost,
    launchBrowser,
    quiet: !process.env.DMARC_TEST_VERBOSE,
  };
}

const mocha = new Mocha({
  ui: 'bdd',
  timeout: layer === 'ui' ? 120_000 : 20_000,
  // A stray .only would silently run a few tests and call the layer passed; a skipped test is a defect.
  forbidOnly: true,
  forbidPending: true,
  reporter: createReporter(Mocha, { layer, write: (l) => console.log(l), resultsFile }),
  // For a quicker loop while developing; npm test and CI never set it.
  ...(process.env.DMARC_TEST_GREP ? { grep: process.env.DMARC_TEST_GREP } : {}),
});
for (const f of testFiles(join(repoRoot, 'dist-test', layer))) mocha.addFile(f);
mocha.run((failures) => {
  process.exitCode = failures ? 1 : 0;
  // Open sockets or timers left by a test must not keep the layer alive forever.
  setTimeout(() => process.exit(process.exitCode), 2000).unref();
});
