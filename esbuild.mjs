// Builds the two shipped bundles (extension host, webview UI) and, with --tests, the test
// bundles under dist-test/. Flags: --production (minified, no source maps), --watch, --tests.
import * as esbuild from 'esbuild';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeCodicons } from './tools/codicons.mjs';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');
const tests = args.has('--tests');
// Only the API server's CLI, which a unit test starts: the mutation run's build (its tests run
// from TypeScript), done in a sandbox before node_modules is linked in (CONTRIBUTING.md).
const cliOnly = args.has('--server-cli');

/** Prints errors in the `file:line:col: error: text` shape that VS Code's $esbuild-watch problem matcher reads. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of [...result.errors, ...result.warnings]) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  plugins: watch ? [problemMatcher] : [],
  define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
};

/** All files under `dir` whose name matches `re`, relative to the repo root. */
function findFiles(dir, re) {
  let out = [];
  let entries;
  try { entries = readdirSync(dir); } catch { return out; }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(findFiles(path, re));
    else if (re.test(name)) out.push(path);
  }
  return out;
}

const shipped = [
  {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: ['media/webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
  },
  // The Overview of all organizations: its own page, sharing the panel's styles and DOM helpers.
  {
    ...common,
    entryPoints: ['media/webview/overview/main.ts'],
    outfile: 'dist/overview.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
  },
  // Chart.js for the trend: the page loads it when it first draws the trend, after its rows.
  {
    ...common,
    entryPoints: ['media/webview/chart.ts'],
    outfile: 'dist/chart.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
  },
];

const configs = cliOnly ? [] : shipped;
if (tests || cliOnly) {
  configs.push({
    ...common,
    sourcemap: true,
    minify: false,
    entryPoints: cliOnly
      ? ['test/server/cli.ts']
      : [
          ...findFiles('test', /\.test\.ts$/),
          ...['test/suite/index.ts'],
          ...findFiles('test/server', /^cli\.ts$/),
          ...findFiles('test/bench', /\.ts$/),
        ],
    outdir: 'dist-test',
    outbase: 'test',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'mocha', 'playwright-core', 'esbuild', '@vscode/l10n-dev', 'sharp'],
  });
}

// Codicons for the webview: the font and its CSS ship as files (the webview may load nothing
// from outside localResourceRoots), cut down to the glyphs the webview names (tools/codicons.mjs).
if (!cliOnly) await writeCodicons('dist/codicons');

if (watch) {
  const contexts = await Promise.all(configs.map((c) => esbuild.context(c)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(configs.map((c) => esbuild.build(c)));
}
