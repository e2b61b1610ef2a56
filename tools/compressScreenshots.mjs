// Turns the README screenshots (media/screenshots/*.png, as the demo test writes them with
// DMARC_README_SCREENSHOTS=1) into small lossless WebP files in place, so they can ship inside the
// .vsix (VS Code's extension details page reads them from there) while the .vsix stays under
// 600 KB. Run after replacing a screenshot: `npm run screenshots:compress`.
// Each is first quantised to 16 colours without dithering (flat UI areas stay flat), then written
// as lossless WebP: measured on the README's eight, 266 KB against 323 KB as 16-colour PNGs.
// Converting again changes nothing: a .webp is left as it is.
import sharp from 'sharp';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '..', 'media', 'screenshots');
for (const name of readdirSync(dir).filter((n) => n.endsWith('.png')).sort()) {
  const file = join(dir, name);
  const before = readFileSync(file);
  const quantised = await sharp(before).png({ palette: true, colours: 16, dither: 0, effort: 10, compressionLevel: 9 }).toBuffer();
  const webp = await sharp(quantised).webp({ lossless: true, effort: 6 }).toBuffer();
  writeFileSync(file.replace(/\.png$/, '.webp'), webp);
  rmSync(file);
  console.log(`${name}: ${(before.length / 1024).toFixed(0)} KB -> ${name.replace(/\.png$/, '.webp')} ${(webp.length / 1024).toFixed(0)} KB`);
}
const total = readdirSync(dir).filter((n) => n.endsWith('.webp')).reduce((n, f) => n + readFileSync(join(dir, f)).length, 0);
console.log(`screenshots: ${(total / 1024).toFixed(0)} KB`);
