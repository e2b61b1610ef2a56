// Installs the test host (VS Code Server 1.100.3 from the npm package code-server@4.100.3) into a
// git-ignored cache folder, once; later runs reuse it. Steps as verified in
// ../shared/notes/vscode-test-host.md: code-server's own install scripts cannot run on a machine
// without GitHub access, so its parts are installed with scripts off and the native modules
// rebuilt by hand. Needs Debian's libkrb5-dev (kerberos) and ripgrep (.ci/run installs them).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync, readFileSync, renameSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function hostCacheDir() {
  return resolve(process.env.DMARC_TEST_HOST_DIR || join(repoRoot, '.vscode-test'));
}

export function hostDir() {
  return join(hostCacheDir(), `code-server-${CODE_SERVER_VERSION}`);
}

const MARKER = '.dmarc-host-ready';

export function isHostInstalled() {
  const dir = hostDir();
  try {
    return readFileSync(join(dir, MARKER), 'utf8').trim() === CODE_SERVER_VERSION && existsSync(join(dir, 'out/node/entry.js'));
  } catch {
    return false;
  }
}

function run(cmd, args, cwd, extraEnv = {}) {
  const started = Date.now();
  console.log(`[test-host] ${cwd.replace(hostCacheDir(), '<cache>')}$ ${cmd} ${args.join(' ')}`);
  try {
    execFileSync(cmd, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false', ...extraEnv },
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch (err) {
    const out = `${err.stdout ?? ''}\n${err.stderr ?? ''}`.split('\n').filter((l) => !/Unknown user config/.test(l));
    throw new Error(`test host install step failed: ${cmd} ${args.join(' ')} (in ${cwd})\n${out.slice(-40).join('\n')}`);
  }
  console.log(`[test-host]   done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function which(bin) {
  for (const dir of (process.env.PATH || '').split(':')) {
    const p = join(dir, bin);
    if (existsSync(p)) return p;
  }
  return undefined;
}

export function installHost({ force = false } = {}) {
  if (!force && isHostInstalled()) {
    console.log(`[test-host] reusing VS Code Server (code-server ${CODE_SERVER_VERSION}) in ${hostDir()}`);
    return hostDir();
  }
  const rg = which('rg');
  if (!rg) throw new Error('test host needs ripgrep: apt-get install ripgrep (bash .ci/run does this)');
  if (!existsSync('/usr/include/krb5.h') && !existsSync('/usr/include/krb5/krb5.h')) {
    throw new Error('test host needs the Kerberos headers: apt-get install libkrb5-dev (bash .ci/run does this)');
  }
  const cache = hostCacheDir();
  mkdirSync(cache, { recursive: true });
  const work = join(cache, `tmp-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  console.log(`[test-host] installing VS Code Server (code-server ${CODE_SERVER_VERSION}) into ${cache}; about two minutes, once`);

  run('npm', ['pack', `code-server@${CODE_SERVER_VERSION}`, '--silent'], work);
  const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'));
  run('tar', ['-xzf', tgz], work);
  const pkg = join(work, 'package');
  const vscodeDir = join(pkg, 'lib/vscode');

  run('npm', ['install', '--omit=dev', '--ignore-scripts'], vscodeDir);
  run('npm', ['rebuild', '@parcel/watcher', '@vscode/spdlog', 'kerberos', 'native-watchdog', 'node-pty', '@vscode/deviceid'], vscodeDir, { npm_config_yes: 'true' });
  const rgBin = join(vscodeDir, 'node_modules/@vscode/ripgrep/bin');
  mkdirSync(rgBin, { recursive: true });
  rmSync(join(rgBin, 'rg'), { force: true });
  symlinkSync(rg, join(rgBin, 'rg'));
  if (!existsSync(join(vscodeDir, 'node_modules.asar'))) symlinkSync('node_modules', join(vscodeDir, 'node_modules.asar'));
  run('npm', ['install', '--omit=dev', '--ignore-scripts'], join(vscodeDir, 'extensions'));
  run('npm', ['install', '--omit=dev', '--ignore-scripts'], pkg);
  run('npm', ['rebuild', 'argon2'], pkg);

  writeFileSync(join(pkg, MARKER), `${CODE_SERVER_VERSION}\n`);
  rmSync(hostDir(), { recursive: true, force: true });
  renameSync(pkg, hostDir());
  rmSync(work, { recursive: true, force: true });
  console.log(`[test-host] installed in ${hostDir()}`);
  return hostDir();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    installHost({ force: process.argv.includes('--force') });
  } catch (err) {
    console.error(String(err.message || err));
    process.exit(1);
  }
}
