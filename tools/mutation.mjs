// `npm run test:mutation [-- AREA… | stryker options]`: runs StrykerJS (stryker.config.json) and
// prints the mutation score of each area of the pure code against the bar issue 15 sets for it.
// An area name (api, records, shared, import, webview) runs just that area, with its own
// incremental file (reports/stryker-incremental-AREA.json: a run over a subset keeps only that
// subset's results). Other arguments go to Stryker, e.g. `--force` to ignore the incremental
// file. Exits non-zero when Stryker fails or an area it ran is under its bar. Scores count killed and timed-out mutants over all valid ones (survived and uncovered
// included); mutants the TypeScript checker rejects and static ones (ignoreStatic) are not counted.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = join(root, 'reports', 'mutation', 'mutation.json');

/** Areas in the order printed; a file belongs to the first whose prefix it has. */
export const AREAS = [
  { id: 'api', name: 'src/api', prefix: 'src/api/', bar: 85 },
  { id: 'records', name: 'src/records', prefix: 'src/records/', bar: 85 },
  { id: 'shared', name: 'src/shared', prefix: 'src/shared/', bar: 75 },
  { id: 'import', name: 'src/import', prefix: 'src/import/', bar: 75 },
  { id: 'webview', name: 'media/webview (DOM-free)', prefix: 'media/webview/', bar: 75 },
];

/** Stryker's arguments for the command line: area names become --mutate and --incrementalFile. */
export function strykerArgs(argv, mutate) {
  const areas = argv.filter((a) => AREAS.some((x) => x.id === a));
  const rest = argv.filter((a) => !areas.includes(a));
  if (!areas.length) return rest;
  const patterns = mutate.filter((p) => areas.some((id) => p.startsWith(AREAS.find((x) => x.id === id).prefix)));
  return ['--mutate', patterns.join(','), '--incrementalFile', `reports/stryker-incremental-${areas.sort().join('-')}.json`, ...rest];
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/** Per area: detected and undetected mutant counts from a mutation-testing-report-schema report. */
export function areaScores(report, base = root) {
  const out = new Map(AREAS.map((a) => [a.name, { ...a, detected: 0, undetected: 0 }]));
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const rel = relative(base, resolve(base, file)).split('\\').join('/');
    const area = AREAS.find((a) => rel.startsWith(a.prefix));
    if (!area) continue;
    const s = out.get(area.name);
    for (const m of mutants) {
      if (DETECTED.has(m.status)) s.detected++;
      else if (UNDETECTED.has(m.status)) s.undetected++;
    }
  }
  return [...out.values()];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // The package's exports do not include its bin script; it is where npm installs it.
  const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
  const { mutate } = JSON.parse(readFileSync(join(root, 'stryker.config.json'), 'utf8'));
  const run = spawnSync(process.execPath, [stryker, 'run', ...strykerArgs(process.argv.slice(2), mutate)], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0 || !existsSync(REPORT)) process.exit(run.status || 1);
  let under = 0;
  console.log('\nMutation score by area (killed + timeout over all valid mutants):');
  for (const a of areaScores(JSON.parse(readFileSync(REPORT, 'utf8')))) {
    const total = a.detected + a.undetected;
    if (!total) continue;
    const score = (100 * a.detected) / total;
    const ok = score >= a.bar;
    if (!ok) under++;
    console.log(`  ${a.name.padEnd(26)} ${score.toFixed(2).padStart(6)}%  (${a.detected} of ${total})  bar ${a.bar}%  ${ok ? 'ok' : 'UNDER'}`);
  }
  console.log(`HTML report: ${relative(root, join(root, 'reports', 'mutation', 'index.html'))}`);
  process.exit(under ? 1 : 0);
}
