// Leaks, after the whole suite (issue 14): every API key any suite test gave the extension (through
// Add Account or Update API Key, however the test got there) is searched for, as is, base64 and
// URL-encoded, in every log file of the extension, every globalState value, every file under its
// global storage (the disk cache) and every open document (exports). Root-level hooks: they wrap
// the whole run, whichever tests it picked.
import * as vscode from 'vscode';
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { extensionApi } from './helpers';
import { leaksIn } from '../hostile/figures';

const keys = new Set<string>();

function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

before(async () => {
  const api = await extensionApi();
  const store = api.accounts as unknown as { add: (...a: unknown[]) => Promise<unknown>; setKey: (...a: unknown[]) => Promise<unknown> };
  const add = store.add.bind(store);
  const setKey = store.setKey.bind(store);
  store.add = (label, baseUrl, apiKey) => {
    if (typeof apiKey === 'string') keys.add(apiKey);
    return add(label, baseUrl, apiKey);
  };
  store.setKey = (id, apiKey) => {
    if (typeof apiKey === 'string') keys.add(apiKey);
    return setKey(id, apiKey);
  };
});

after(async function () {
  this.timeout(60_000);
  const api = await extensionApi();
  // The output channel writes its file in the background.
  await new Promise((r) => setTimeout(r, 1000));
  const texts: [string, string][] = [];
  for (const f of filesUnder(dirname(api.context.logUri.fsPath)).filter((f) => /DMARC Explorer/.test(f))) texts.push([`log ${f}`, readFileSync(f, 'utf8')]);
  for (const k of api.context.globalState.keys()) texts.push([`globalState ${k}`, JSON.stringify(api.context.globalState.get(k) ?? null)]);
  for (const f of filesUnder(api.context.globalStorageUri.fsPath)) texts.push([`global storage ${f}`, readFileSync(f, 'latin1')]);
  for (const d of vscode.workspace.textDocuments) texts.push([`document ${d.uri.toString()}`, d.getText()]);
  let hits = 0;
  for (const key of keys) {
    if (key.trim().length < 8) continue; // a deliberately bad key ("x") is in ordinary words
    for (const [where, text] of texts) hits += leaksIn(key, [text], `after the suite, ${where}`);
  }
  assert.equal(hits, 0, `API keys found after the suite (${keys.size} keys, ${texts.length} places searched)`);
});
