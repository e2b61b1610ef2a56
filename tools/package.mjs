// `npm run package`: a .vsix in dist-vsix/ (or at --out FILE), built by vsce's prepublish step
// (a minified build). Which vsce flags it passes depends on one line of package.json:
// - without "repository" (now: the project has no public home yet), vsce would refuse the
//   README's relative links and, in a terminal, ask whether to go on. So it is told to keep the
//   links as they are (--no-rewrite-relative-links: the images ship inside the .vsix, where VS
//   Code's extension details page finds them) and not to ask (--allow-missing-repository).
// - with "repository" (a GitHub or GitLab URL), vsce rewrites the relative links to absolute
//   URLs in that repository, as the Marketplace page needs; no flag is passed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? resolve(args[outAt + 1]) : join(root, 'dist-vsix', `${manifest.name}-${manifest.version}.vsix`);
mkdirSync(dirname(out), { recursive: true });

const flags = manifest.repository ? [] : ['--allow-missing-repository', '--no-rewrite-relative-links'];
const vsce = join(dirname(createRequire(import.meta.url).resolve('@vscode/vsce/package.json')), 'vsce');
const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', ...flags, '--out', out], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
