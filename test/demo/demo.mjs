// `npm run demo`: the extension on sample data, with no API key of your own. Starts the local
// DMARC Records API (test/server, 13 months of seeded data for a dozen organizations, the last
// days telling a week-over-week story: --story) and an editor with the extension loaded: desktop
// VS Code when `code` is on the PATH, else the VS Code Server the tests use, opened in your
// browser. Ctrl+C stops everything it started.
//
//   npm run demo -- [--browser] [--port 8080] [--api-port 8787] [--host-dir DIR] [--no-build]
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
function option(name, fallback) {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return fallback;
  const v = args[i].includes('=') ? args[i].slice(args[i].indexOf('=') + 1) : args[i + 1];
  return v;
}
function port(name, fallback) {
  const v = Number(option(name, fallback));
  if (!Number.isInteger(v) || v < 0 || v > 65535) fail(`${name} wants a port number (0-65535)`);
  return v;
}
/** What the demo started, stopped in reverse order by stopAll. */
const stoppers = [];
/** Said once; what was started before the failure (the API server) is stopped too. */
class DemoFailure extends Error {}
function fail(message) {
  console.error(`demo: ${message}`);
  if (stoppers.length === 0) process.exit(1);
  throw new DemoFailure(message);
}
if (flag('--help') || flag('-h')) {
  console.log('Usage: npm run demo -- [--browser] [--port 8080] [--api-port 8787] [--no-build]\n  --browser   use VS Code in the browser even when desktop VS Code (`code`) is installed\n  --port      the browser editor\'s port (127.0.0.1 only)\n  --api-port  the local DMARC Records API\'s port\n  --no-build  skip the build (already built)');
  process.exit(0);
}
const editorPort = port('--port', 8080);
const apiPort = port('--api-port', 8787);
if (option('--host-dir')) process.env.DMARC_TEST_HOST_DIR = resolve(option('--host-dir'));

function portFree(p) {
  if (p === 0) return Promise.resolve(true);
  return new Promise((res) => {
    const srv = createServer();
    srv.once('error', () => res(false));
    srv.listen(p, '127.0.0.1', () => srv.close(() => res(true)));
  });
}

function findCode() {
  for (const dir of (process.env.PATH || '').split(delimiter)) {
    const p = join(dir, 'code');
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

let stopping = false;
// Output may go to a pipe whose reader is gone (npm killed): never let that crash the clean-up.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
function say(text) {
  try {
    console.log(text);
  } catch {
    /* nobody listens */
  }
}
async function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  say('\ndemo: stopping…');
  for (const stop of stoppers.reverse()) {
    try {
      await stop();
    } catch {
      /* already gone */
    }
  }
  say('demo: stopped.');
  process.exit(code);
}
// Ctrl+C in a terminal reaches every process of the foreground group; `kill` or a process manager
// signals npm alone, which passes it to its shell at most: the parent watch below covers that.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));

/** The parent process id of `pid` (Linux /proc, else `ps`); undefined when it cannot be told. */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) || undefined;
  } catch {
    const r = spawnSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' });
    return Number(r.stdout?.trim()) || undefined;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return e.code === 'EPERM';
  }
  try {
    // A zombie is gone for our purposes (its parent has not reaped it yet).
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

// No orphans: when the process that started us (npm's shell) or its parent (npm) goes away
// without passing a signal on, stop everything as if Ctrl+C had been pressed.
const parent = process.ppid;
const watched = [parent, parentOf(parent)].filter((pid) => pid && pid > 1);
setInterval(() => {
  if (process.ppid !== parent || watched.some((pid) => !alive(pid))) void stopAll(0);
}, 300).unref();

/** Stops a detached child's whole process group: SIGTERM, then SIGKILL to what is left after 3 s. */
async function stopGroup(pid) {
  const groupAlive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 30 && groupAlive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive()) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

async function startApi() {
  if (!(await portFree(apiPort))) {
    fail(`port ${apiPort} (the local API) is already in use, perhaps by another demo or api-server. Choose another: npm run demo -- --api-port ${apiPort + 1}`);
  }
  const cli = join(repoRoot, 'dist-test/server/cli.js');
  if (!existsSync(cli)) fail('dist-test/server/cli.js is missing: run `npm run demo` (it builds first)');
  // --story: the last two weeks hold a week-over-week story (test/server/story.ts) to find.
  const child = spawn(process.execPath, [cli, '--port', String(apiPort), '--host', '127.0.0.1', '--story'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  stoppers.push(() => stopGroup(child.pid));
  let out = '';
  child.stderr.on('data', (b) => process.stderr.write(b));
  const ready = await new Promise((res) => {
    child.stdout.on('data', (b) => {
      out += b;
      if (/Press Ctrl\+C/.test(out)) res(true);
    });
    child.once('exit', () => res(false));
  });
  if (!ready) fail('the local API server did not start (see above)');
  const url = /listening on (\S+)/.exec(out)[1];
  const key = /^\s{2}(demo-key-\S+)/m.exec(out)?.[1] ?? /^\s{2}(\S+)$/m.exec(out)?.[1];
  // The organizations listed under the demo key (4-space lines until the next key).
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.trim() === key);
  const orgs = [];
  for (let i = at + 1; at >= 0 && i < lines.length && /^\s{4}\S/.test(lines[i]); i++) orgs.push(lines[i]);
  // The story's lines (2-space lines after its heading).
  const from = lines.findIndex((l) => l.startsWith('Story'));
  const story = [];
  for (let i = from + 1; from >= 0 && i < lines.length && /^\s{2}\S/.test(lines[i]); i++) story.push(lines[i]);
  return { url, key, orgs, story };
}

async function main() {
  // Built here rather than by `npm run` chaining commands: npm passes SIGINT and SIGTERM to its
  // one child, and a shell between npm and this script would swallow them.
  if (!flag('--no-build')) {
    const built = spawnSync(process.execPath, [join(repoRoot, 'esbuild.mjs'), '--tests'], { cwd: repoRoot, stdio: 'inherit' });
    if (built.status !== 0) fail('the build failed (see above)');
  }
  const api = await startApi();
  // Report files opened in the demo get source names from a canned reverse DNS table: the demo
  // sends no DNS query.
  const env = { DMARC_DEMO_BASE_URL: api.url, DMARC_RDNS_TABLE: join(repoRoot, 'test/fixtures/rdns-table.json') };
  const code = flag('--browser') ? undefined : findCode();
  let where;
  if (code) {
    const userData = mkdtempSync(join(tmpdir(), 'dmarc-demo-'));
    stoppers.push(() => rmSync(userData, { recursive: true, force: true }));
    const r = spawnSync(code, ['--new-window', '--user-data-dir', userData, '--extensionDevelopmentPath', repoRoot], {
      env: { ...process.env, ...env },
      stdio: 'inherit',
    });
    if (r.status !== 0) fail('`code` did not start; try npm run demo -- --browser');
    where = 'A new VS Code window opened with DMARC Explorer loaded (a separate profile, so your own is untouched).';
  } else {
    if (!(await portFree(editorPort))) {
      fail(`port ${editorPort} (the editor) is already in use. Choose another: npm run demo -- --port ${editorPort + 1}`);
    }
    const { installHost } = await import('../host/installHost.mjs');
    const { startHost } = await import('../host/launch.mjs');
    installHost();
    const host = await startHost({ port: editorPort, env });
    stoppers.push(async () => {
      await host.close();
      await stopGroup(host.pid);
    });
    where = `Open this address in your browser (VS Code for the Web, served on 127.0.0.1 only):\n\n  ${host.workbenchUrl({ extensionPath: repoRoot })}\n`;
  }
  console.log(`
DMARC Explorer demo
===================
${where}
Then, in the DMARC view (envelope icon in the activity bar): Add Account
  name:      anything, e.g. Demo
  base URL:  ${api.url}   (filled in for you)
  API key:   ${api.key}
  organization ID: acme (others: see the list below)

${api.orgs.join('\n')}

What changed this week (the sample data's story; compare Last 7 days with the 7 days before):
${api.story.join('\n')}
In the tree, a period's sources then say new, ▲ or ▼ (points of pass rate against the period
before). Turn on the watch (Settings → dmarc.watch.enabled) or run DMARC: Check Now for What
Changed: the view gets a badge and a Needs Attention item with what it found.

Or open raw report files: DMARC: Open Report Files… → A Folder of Reports… →
  ${join(repoRoot, 'test/fixtures/reports')}
(source names come from a canned reverse DNS table: the demo sends no DNS query).

Press Ctrl+C to stop the demo (stopping npm, or closing its terminal, stops everything too).`);
}

main().catch((err) => {
  if (!(err instanceof DemoFailure)) console.error(`demo: ${err.message || err}`);
  void stopAll(1);
});
