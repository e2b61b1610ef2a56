// The manifest as the Marketplace and VS Code read it (issue 16's conventions, in part).
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import manifest from '../../package.json';

const root = join(__dirname, '..', '..');

describe('manifest', () => {
  it('prefers the UI side in remote windows (it reads no workspace files)', () => {
    assert.deepEqual((manifest as { extensionKind?: string[] }).extensionKind, ['ui', 'workspace']);
  });

  it('lists a real category and a gallery banner, not "Other"', () => {
    assert.ok(!manifest.categories.includes('Other'));
    assert.ok(manifest.categories.length > 0);
    const banner = (manifest as { galleryBanner?: { color: string; theme: string } }).galleryBanner;
    assert.match(banner?.color ?? '', /^#[0-9a-f]{6}$/i);
    assert.ok(['dark', 'light'].includes(banner?.theme ?? ''));
  });

  it('settings are per user (accounts are global) and in a set order', () => {
    const props = Object.entries(manifest.contributes.configuration.properties) as [string, { scope?: string; order?: number }][];
    assert.ok(props.length > 0);
    for (const [key, p] of props) {
      assert.equal(p.scope, 'application', `${key} scope`);
      assert.equal(typeof p.order, 'number', `${key} order`);
    }
    assert.equal(new Set(props.map(([, p]) => p.order)).size, props.length, 'no two settings share a place');
  });

  it('the records panel\u2019s light and dark tab icons are packaged, with explicit colours (the suite checks the panel uses them)', () => {
    const ignore = readFileSync(join(root, '.vscodeignore'), 'utf8');
    for (const kind of ['light', 'dark']) {
      const file = join(root, 'media', `panel-${kind}.svg`);
      assert.ok(existsSync(file), file);
      const svg = readFileSync(file, 'utf8');
      assert.doesNotMatch(svg, /currentColor/, `${kind}: an explicit colour, since a tab icon gets none`);
      assert.match(ignore, new RegExp(`^!media/panel-${kind}\\.svg$`, 'm'), `${kind} icon in the .vsix`);
    }
  });

  it('the records panel\u2019s commands sit in its title bar and have keybindings, all on activeWebviewPanelId', () => {
    const panel = "activeWebviewPanelId == 'dmarc.records'";
    const c = manifest.contributes as unknown as {
      menus: Record<string, { command: string; when?: string; group?: string }[]>;
      keybindings: { command: string; key: string; mac?: string; when?: string }[];
    };
    const title = c.menus['editor/title']!;
    assert.deepEqual(title.map((m) => [m.command, m.when, m.group]), [
      ['dmarc.exportSelectedJson', panel, 'navigation@1'],
      ['dmarc.exportSelectedCsv', panel, 'navigation@2'],
    ]);
    const keys = new Map(c.keybindings.map((k) => [k.command, k]));
    for (const command of ['dmarc.exportSelectedJson', 'dmarc.exportSelectedCsv']) {
      const k = keys.get(command);
      assert.ok(k, command);
      assert.equal(k.when, panel);
      assert.match(k.key, /^ctrl\+/);
      assert.match(k.mac ?? '', /^cmd\+/);
    }
    assert.equal(new Set(c.keybindings.map((k) => k.key)).size, c.keybindings.length, 'no two share a key');
    // The panel's own context key was never read by a when clause; VS Code's activeWebviewPanelId is.
    assert.doesNotMatch(JSON.stringify(manifest), /recordsPanelActive/);
  });
});
