// Quantises the README screenshots (media/screenshots/*.png) in place to 16-colour PNGs, so they
// can ship inside the .vsix (VS Code's extension details page reads them from there) while the
// .vsix stays under 600 KB. Run after replacing a screenshot: `npm run screenshots:compress`.
// Quantising an already quantised image again changes nothing, so running it twice is harmless.
import sharp from 'sharp';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '..', 'media', 'screenshots');
let total = 0;
for (const name of readdirSync(dir).filter((n) => n.endsWith('.png')).sort()) {
  const file = join(dir, name);
  const before = readFileSync(file);
  // 16 colours gives 4-bit pixels, half the size of 17 or more; no dithering keeps flat UI areas
  // flat, which compresses far better than dithered noise.
  const after = await sharp(before).png({ palette: true, colours: 16, dither: 0, effort: 10, compressionLevel: 9 }).toBuffer();
  const out = after.length < before.length ? after : before;
  if (out !== before) writeFileSync(file, out);
  total += out.length;
  console.log(`${name}: ${(before.length / 1024).toFixed(0)} KB -> ${(out.length / 1024).toFixed(0)} KB`);
}
console.log(`screenshots: ${(total / 1024).toFixed(0)} KB`);
