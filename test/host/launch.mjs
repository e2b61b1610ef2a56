// Starts the test host (VS Code Server from code-server, see installHost.mjs) on a free loopback
// port and a headless Debian Chromium (via playwright-core) to drive its workbench.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostDir } from './installHost.mjs';

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts VS Code Server. `env` reaches the extension host (how tests pass settings and where
 * to write results). Resolves once /healthz answers.
 */
export async function startHost({ env = {}, log = () => {}, userSettings = {}, port } = {}) {
  port = port ?? (await freePort());
  const root = mkdtempSync(join(tmpdir(), 'dmarc-host-'));
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  writeFileSync(
    join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'security.workspace.trust.enabled': false,
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'workbench.enableExperiments': false,
      'chat.commandCenter.enabled': false,
      ...userSettings,
    }),
  );
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  const child = spawn(
    process.execPath,
    [
      join(hostDir(), 'out/node/entry.js'),
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir', userDataDir,
      '--extensions-dir', extensionsDir,
    ],
    // Reverse DNS of report files never leaves the machine: no resolver unless a caller passes a
    // canned table (DMARC_RDNS_TABLE, see src/reportFiles/resolver.ts).
    // No extension gallery (code-server's default, open-vsx.org, would be looked up in DNS).
    { env: { ...process.env, DMARC_RDNS_TABLE: '', EXTENSIONS_GALLERY: '{}', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const output = [];
  const onData = (buf) => {
    for (const line of String(buf).split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 400) output.shift();
      log(line);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exited = false;
  child.on('exit', () => { exited = true; });

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`VS Code Server exited during start-up:\n${output.slice(-30).join('\n')}`);
    if (Date.now() > deadline) {
      killTree(child);
      throw new Error(`VS Code Server did not answer on ${url} within 60 s:\n${output.slice(-30).join('\n')}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }

  return {
    url,
    port,
    /** The server's process (the leader of its own process group). */
    pid: child.pid,
    root,
    userDataDir,
    workspace,
    output,
    /** The workbench URL with this extension loaded from `extensionPath` and, optionally, a tests module. */
    workbenchUrl({ extensionPath, testsPath, folder = workspace }) {
      const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${extensionPath}`]];
      if (testsPath) payload.push(['extensionTestsPath', `vscode-remote://127.0.0.1:${port}${testsPath}`]);
      return `${url}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    },
    async close() {
      killTree(child);
      await new Promise((r) => (exited ? r() : child.once('exit', r)));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function killTree(child) {
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
  const t = setTimeout(() => {
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
  }, 3000);
  t.unref();
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  // A document the harness rewrites (webviewsOnTheirOwnSite) has no remote address, so Chromium
  // would count it as public and block its requests to loopback; everything here is loopback.
  '--disable-features=LocalNetworkAccessChecks',
  // No name ever reaches a resolver: webviews' own origins under *.localhost (see
  // webviewsOnTheirOwnSite) map to loopback, every other name fails at once.
  '--host-resolver-rules=MAP *.localhost 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

export function chromiumPath() {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** Headless Debian Chromium through playwright-core; a fresh profile each time. */
export async function launchBrowser({ colorScheme = 'dark', viewport = { width: 1400, height: 900 } } = {}) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport, colorScheme });
  // Tests read editor text through the clipboard.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await webviewsOnTheirOwnSite(context);
  const page = await context.newPage();
  return { browser, context, page };
}

/**
 * VS Code serves every webview from an origin of its own (desktop: vscode-webview://<id>;
 * vscode.dev: <hash>.vscode-cdn.net), so Chromium's site isolation runs the webview in its own
 * renderer process, off the workbench's main thread. code-server instead serves webviews from
 * the workbench's own origin, which puts our page and the whole workbench on one thread. The
 * workbench document is rewritten here so that webviews load from
 * http://<hash>.localhost:<port>/… (the same server under a loopback name of another site), as
 * in VS Code: the configuration's webviewEndpoint takes the {{uuid}} template vscode.dev uses, and
 * the document's CSP lets it frame that origin. The webview's bootstrap then checks, as on
 * vscode.dev, that its host name is the hash of the parent's origin.
 */
async function webviewsOnTheirOwnSite(context) {
  await context.route(/^http:\/\/127\.0\.0\.1:\d+\/\?/, async (route) => {
    const response = await route.fetch();
    const port = new URL(route.request().url()).port;
    const original = await response.text();
    const html = original.replace(
      /(&quot;webviewEndpoint&quot;:&quot;)(?:\.\/)?([^&]*\/static\/out\/vs\/workbench\/contrib\/webview\/browser\/pre)/,
      (_, key, path) => `${key}http://{{uuid}}.localhost:${port}/${path}`,
    );
    if (html === original) console.warn('test host: no webviewEndpoint in the workbench page; webviews stay on the workbench\'s thread');
    // The body goes back decoded, so without the original's encoding and length.
    const headers = Object.fromEntries(Object.entries(response.headers()).filter(([k]) => k !== 'content-encoding' && k !== 'content-length'));
    headers['content-security-policy'] = (headers['content-security-policy'] ?? '').replace(
      /frame-src /,
      `frame-src http://*.localhost:${port} `,
    );
    await route.fulfill({ status: response.status(), headers, body: html });
  });
}
