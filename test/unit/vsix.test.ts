// The packaged .vsix as users get it: what VS Code's extension details page and the Marketplace
// read from it. test/run.mjs packages it (tools/package.mjs, the same as `npm run package`) before
// building for the tests and passes its path in DMARC_TEST_VSIX; run alone, this file packages
// it into a temporary folder itself (which leaves the minified build in dist/).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import sharp from 'sharp';
import { readZip } from './zip';

const root = join(__dirname, '..', '..');
/** The limit issue 16 sets, in the KB vsce reports sizes in (1,024 bytes). */
const MAX_BYTES = 600 * 1024;

function packaged(): string {
  if (process.env.DMARC_TEST_VSIX) return process.env.DMARC_TEST_VSIX;
  const out = join(mkdtempSync(join(tmpdir(), 'dmarc-vsix-')), 'dmarc-explorer.vsix');
  const r = spawnSync(process.execPath, [join(root, 'tools', 'package.mjs'), '--out', out], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`packaging failed:\n${r.stdout}\n${r.stderr}`);
  return out;
}

describe('the packaged .vsix', () => {
  let bytes: Buffer;
  let files: Map<string, Buffer>;
  let manifest: Record<string, unknown> & { contributes: Record<string, unknown> };
  const file = (p: string) => files.get(posix.join('extension', posix.normalize(p.replace(/^\.\//, ''))));

  before(function () {
    this.timeout(120_000);
    bytes = readFileSync(packaged());
    files = readZip(bytes);
    manifest = JSON.parse(file('package.json')!.toString('utf8'));
  });

  it(`is under 600 KB`, () => {
    assert.ok(bytes.length < MAX_BYTES, `${(bytes.length / 1024).toFixed(1)} KB`);
  });

  it('every README image resolves: an absolute https URL or a file inside the .vsix', async () => {
    const readme = file('readme.md')?.toString('utf8');
    assert.ok(readme, 'readme.md is packaged');
    const sources = [
      ...[...readme.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
      ...[...readme.matchAll(/<img\b[^>]*\bsrc=["']([^"']+)["']/gi)].map((m) => m[1]!),
    ];
    assert.ok(sources.length >= 4, `${sources.length} images`);
    const broken: string[] = [];
    for (const src of sources) {
      if (/^https:\/\//i.test(src)) continue;
      if (/^[a-z][\w+.-]*:/i.test(src) || src.startsWith('/')) {
        broken.push(`${src}: neither https nor a path inside the package`);
        continue;
      }
      const image = file(decodeURI(src));
      if (!image) {
        broken.push(`${src}: not in the .vsix`);
        continue;
      }
      // A PNG, or a WebP (what npm run screenshots:compress writes), of a size worth showing.
      const meta = await sharp(image).metadata().catch(() => undefined);
      if (!meta || (meta.format !== 'png' && meta.format !== 'webp')) broken.push(`${src}: not a PNG or WebP image`);
      else if ((meta.width ?? 0) < 400 || (meta.height ?? 0) < 200) broken.push(`${src}: ${meta.width}x${meta.height}`);
    }
    assert.deepEqual(broken, []);
  });

  it('prefers the UI side in remote windows (extensionKind)', () => {
    assert.deepEqual(manifest.extensionKind, ['ui', 'workspace']);
  });

  it('carries the l10n bundle the manifest points at, complete, and package.nls.json for every %key%', () => {
    assert.equal(manifest.l10n, './l10n');
    const packed = file('l10n/bundle.l10n.json');
    assert.ok(packed, 'l10n/bundle.l10n.json is packaged');
    // The repository's bundle is held to every l10n.t call by l10n.test.ts; this is that bundle.
    const source = JSON.parse(readFileSync(join(root, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(JSON.parse(packed.toString('utf8')), source);
    assert.ok(Object.keys(source).length > 300);
    const nls = JSON.parse(file('package.nls.json')?.toString('utf8') ?? '{}') as Record<string, string>;
    const keys = [...JSON.stringify(manifest).matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]!);
    assert.ok(keys.length > 20);
    assert.deepEqual(keys.filter((k) => !nls[k]), []);
  });

  it('carries both tab icons of the records panel, and every file the manifest names', () => {
    for (const kind of ['light', 'dark']) {
      const svg = file(`media/panel-${kind}.svg`)?.toString('utf8');
      assert.ok(svg?.includes('<svg'), `media/panel-${kind}.svg`);
    }
    const container = (manifest.contributes.viewsContainers as { activitybar: { icon: string }[] }).activitybar[0]!;
    for (const p of [manifest.main as string, manifest.icon as string, container.icon, 'dist/webview.js', 'dist/chart.js', 'dist/webview.css', 'dist/overview.js', 'dist/overview.css', 'dist/codicons/codicon.ttf']) {
      assert.ok(file(p), `${p} is packaged`);
    }
  });
});
