// Loaded by VS Code as `extensionTestsPath`: runs inside the real extension host. Output goes to
// the file named by DMARC_TEST_LOG (stdout reaches no one from there); counts go to
// DMARC_TEST_RESULTS, which test/run.mjs waits for.
import * as vscode from 'vscode';
import Mocha from 'mocha';
import { appendFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createReporter } from '../host/reporter.cjs';

function testFiles(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(testFiles(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

export async function run(): Promise<void> {
  const logFile = process.env.DMARC_TEST_LOG;
  const write = (line: string) => (logFile ? appendFileSync(logFile, `${line}\n`) : console.log(line));
  write(`VS Code ${vscode.version} extension host (uiKind ${vscode.UIKind[vscode.env.uiKind]}, remote ${vscode.env.remoteName ?? 'none'}, Node ${process.version})`);
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 60_000,
    // A stray .only would silently run a few tests and call the layer passed; a skipped test is a defect.
    forbidOnly: true,
    forbidPending: true,
    reporter: createReporter(Mocha, { layer: 'suite', write, resultsFile: process.env.DMARC_TEST_RESULTS }),
    // For a quicker loop while developing, as in test/host/layer.mjs; npm test and CI never set it.
    ...(process.env.DMARC_TEST_GREP ? { grep: process.env.DMARC_TEST_GREP } : {}),
  });
  for (const f of testFiles(__dirname)) mocha.addFile(f);
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) throw new Error(`${failures} test(s) failed in the extension host`);
}
