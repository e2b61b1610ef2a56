// The webview's codicons, cut down to the glyphs it uses: the full font is 126 KB (61 KB of the
// .vsix) for about twenty icons. A glyph is kept when its name appears as a string literal or a
// `codicon-NAME` class in the webview's sources (media/webview, src/panel), so an icon named in
// code is never lost (a name built at run time from pieces would be: name icons in full).
import subsetFont from 'subset-font';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FONT_DIR = 'node_modules/@vscode/codicons/dist';

function files(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|css|html)$/.test(n) ? [p] : [];
  });
}

/** Every codicon name the webview's sources mention (string literals and class names). */
export function usedCodicons(known, sources = ['media/webview', 'src/panel']) {
  const text = sources.flatMap((s) => (statSync(s).isDirectory() ? files(s) : [s])).map((f) => readFileSync(f, 'utf8')).join('\n');
  const used = new Set();
  for (const m of text.matchAll(/codicon-([a-z0-9-]+)|'([a-z0-9-]+)'|"([a-z0-9-]+)"|`([a-z0-9-]+)`/g)) {
    const name = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (known.has(name)) used.add(name);
  }
  return used;
}

/** Writes dist/codicons/codicon.{css,ttf} holding only the used glyphs. */
export async function writeCodicons(outDir = 'dist/codicons') {
  const css = readFileSync(join(FONT_DIR, 'codicon.css'), 'utf8');
  const glyphs = new Map();
  for (const m of css.matchAll(/\.codicon-([a-z0-9-]+):before \{ content: "\\([0-9a-f]+)" \}/g)) glyphs.set(m[1], m[2]);
  const used = usedCodicons(glyphs);
  const head = css.slice(0, css.indexOf('.codicon-', css.indexOf('Icons')));
  const rules = [...used].sort().map((n) => `.codicon-${n}:before { content: "\\${glyphs.get(n)}" }`);
  const chars = [...used].map((n) => String.fromCodePoint(parseInt(glyphs.get(n), 16))).join('');
  const font = await subsetFont(readFileSync(join(FONT_DIR, 'codicon.ttf')), chars, { targetFormat: 'truetype' });
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'codicon.ttf'), font);
  writeFileSync(join(outDir, 'codicon.css'), `${head.replace(/codicon\.ttf\?[0-9a-f]+/, 'codicon.ttf')}${rules.join('\n')}\n`);
  return used;
}
