// `npm run test:desktop`: the same test/suite in desktop VS Code through @vscode/test-electron,
// for machines that can download VS Code, or that point VSCODE_EXECUTABLE_PATH at an installed
// one (e.g. /usr/share/code/code). Not part of `npm test`: this machine cannot download VS Code.
import { runTests } from '@vscode/test-electron';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
try {
  await runTests({
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: resolve(repoRoot, 'dist-test/suite/index.js'),
    vscodeExecutablePath: process.env.VSCODE_EXECUTABLE_PATH || undefined,
    version: process.env.VSCODE_VERSION || undefined,
    launchArgs: ['--disable-extensions', '--disable-workspace-trust'],
  });
} catch (err) {
  console.error(`desktop tests failed: ${err.message || err}`);
  process.exit(1);
}
