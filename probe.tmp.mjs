import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium' });
for (const [w, h, name] of [[720, 600, 'small'], [1140, 810, 'mid']]) {
  const p = await b.newPage({ viewport: { width: w, height: h } });
  p.on('pageerror', e => console.log('pageerror', e.message));
  await p.goto(process.env.URL.replace('rows=5000', 'rows=3000').replace('theme=dark', 'theme=light'));
  await p.waitForTimeout(3000);
  await p.screenshot({ path: `/tmp/shot-${name}.png` });
  const rows = await p.evaluate(() => { const a = document.querySelector('.table-area')?.getBoundingClientRect(); return [...document.querySelectorAll('.row')].filter(r => { const b = r.getBoundingClientRect(); return b.height > 0 && b.top >= a.top && b.bottom <= Math.min(innerHeight, a.bottom) && r.offsetParent; }).length; });
  console.log(name, 'rows visible', rows);
}
await b.close();
