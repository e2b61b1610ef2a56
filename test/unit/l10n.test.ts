// Localisation end to end: every string the extension host, the core and the webview show goes
// through `l10n.t` (vscode's or @vscode/l10n's) and is in the shipped English bundle, and every
// `%key%` of the manifest is in package.nls.json. `npm run l10n` regenerates the bundle.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as l10n from '@vscode/l10n';
import { getL10nJson } from '@vscode/l10n-dev';
import { valueHelp } from '../../media/webview/valueHelp';

const root = join(__dirname, '..', '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const p = join(dir, name);
    return statSync(join(root, p)).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const sources = [...tsFiles('src'), ...tsFiles('media/webview')];

function messageOf(entry: unknown): string {
  return typeof entry === 'string' ? entry : (entry as { message: string }).message;
}

describe('localisation', () => {
  const bundle = JSON.parse(read('l10n/bundle.l10n.json')) as Record<string, unknown>;

  it('the manifest points VS Code at the bundle folder', () => {
    const manifest = JSON.parse(read('package.json')) as { l10n?: string };
    assert.equal(manifest.l10n, './l10n');
  });

  it('the bundle holds exactly the strings of every l10n.t call in src/ and media/webview/ (npm run l10n)', async function () {
    this.timeout(60_000);
    const extracted = await getL10nJson(sources.map((p) => ({ extension: '.ts', contents: read(p) })));
    const missing = Object.keys(extracted).filter((k) => !(k in bundle));
    const stale = Object.keys(bundle).filter((k) => !(k in extracted));
    assert.deepEqual(missing, [], 'strings in the code but not in the bundle: run npm run l10n');
    assert.deepEqual(stale, [], 'strings in the bundle that no code uses: run npm run l10n');
    for (const [k, v] of Object.entries(bundle)) assert.equal(messageOf(v), messageOf(extracted[k]), k);
    // The webview's own strings are in it too, not only the host's.
    for (const s of ['Search all fields', 'Export {0}', 'Group by', 'Emails per day', 'Copy Row JSON']) assert.ok(s in bundle, s);
  });

  it('every l10n.t call is one the extractor can read: a string literal or a message object, never a variable', () => {
    const bad: string[] = [];
    let calls = 0;
    for (const p of sources) {
      const text = read(p);
      for (const m of text.matchAll(/\bl10n\.t\(\s*([^\s])/g)) {
        calls++;
        if (!/['"`{]/.test(m[1]!)) bad.push(`${p}: l10n.t(${m[1]}…`);
        if (m[1] === '`' && text.slice(m.index! + m[0].length).match(/^[^`]*`/)?.[0].includes('${')) bad.push(`${p}: a template with \${} in l10n.t`);
      }
      // An alias (`const t = vscode.l10n.t`) hides its calls from the extractor.
      if (/=\s*(vscode\.)?l10n\.t\s*;/.test(text)) bad.push(`${p}: an alias of l10n.t`);
    }
    assert.deepEqual(bad, []);
    assert.ok(calls >= Object.keys(bundle).length, `${calls} calls for ${Object.keys(bundle).length} strings`);
  });

  it('no message writes a count as "report(s)": its singular and its plural are two messages (issue 43)', () => {
    const bad: string[] = [];
    for (const p of sources) {
      for (const m of read(p).matchAll(/\bl10n\.t\(\s*(['"`])((?:(?!\1)[^\\]|\\.)*)\1/g)) {
        if (/\w\((?:s|es)\)/.test(m[2]!)) bad.push(`${p}: ${m[2]}`);
      }
    }
    assert.deepEqual(bad, []);
    assert.ok(!Object.keys(bundle).some((k) => /\w\((?:s|es)\)/.test(k)), 'none in the bundle');
  });

  it('every %key% of package.json is in package.nls.json, and every key there is used', () => {
    const manifestText = read('package.json');
    const nls = JSON.parse(read('package.nls.json')) as Record<string, string>;
    const used = new Set([...manifestText.matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]!));
    assert.ok(used.size > 20, `${used.size} keys`);
    assert.deepEqual([...used].filter((k) => typeof nls[k] !== 'string' || !nls[k]), [], 'keys without English text');
    assert.deepEqual(Object.keys(nls).filter((k) => !used.has(k)), [], 'unused keys');
  });

  it('every title, name and description the manifest shows is a %key%, not English text', () => {
    const manifest = JSON.parse(read('package.json')) as { contributes: Record<string, unknown> } & Record<string, unknown>;
    const literal: string[] = [];
    const visit = (v: unknown, path: string) => {
      if (typeof v === 'string') {
        const field = path.split('.').pop()!.replace(/\[\d+\]$/, '');
        if (['title', 'name', 'description', 'markdownDescription', 'contextualTitle', 'contents', 'category', 'enumDescriptions', 'displayName'].includes(field) && !/^%[^%]+%$/.test(v)) literal.push(`${path}: ${v}`);
      } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${path}[${i}]`));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, path ? `${path}.${k}` : k);
    };
    visit({ displayName: manifest.displayName, description: manifest.description, capabilities: manifest.capabilities, contributes: manifest.contributes }, '');
    assert.deepEqual(literal, []);
  });

  it('the webview looks its strings up in the bundle it is given, and falls back to English', () => {
    l10n.config({ contents: { 'DMARC {0}: {1}': 'DMARC-Ergebnis {0}: {1}' } });
    try {
      assert.equal(valueHelp('dmarcResult', 'pass'), 'DMARC-Ergebnis pass: aligned SPF or aligned DKIM passed');
      assert.equal(valueHelp('dmarc', 'reject'), 'Disposition reject: rejected: refused by the receiver', 'not in the bundle: English');
    } finally {
      l10n.config({ contents: {} });
    }
    assert.equal(valueHelp('dmarcResult', 'pass'), 'DMARC pass: aligned SPF or aligned DKIM passed');
  });
});
