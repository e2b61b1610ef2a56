/**
 * bench:search — the panel's search keystrokes in a real browser (Chromium, headless), without
 * VS Code around it: the webview's records model (media/webview/data) fed the bench's rows as
 * the host chunks them, its idle work run to the end (character bits, warm-up, ranks, letter-pair
 * filters), then "m", "mi", "mic", "micr" and a cleared box typed ROUNDS times. Prints per query
 * the first round (the engine compiling what it runs first: the panel's first keystroke) and the
 * median of the others, compute and its search part. A minute at a million rows where bench:panel
 * takes five; its keystroke times are bench:panel's handler, not the frame after it.
 *   npm run bench:search            (BENCH_ROWS=1000000 BENCH_ROUNDS=9 by default; BENCH_REST_MS below)
 * Loopback only: the page and its rows come from a server on 127.0.0.1.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { parseRecordsBody } from '../../src/api/body';
import { encodeRows } from '../../src/records/tuple';
import { generateDay, organizationFor } from '../server/data';

const repoRoot = resolve(__dirname, '../..');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Math.max(2, Number(process.env.BENCH_ROUNDS ?? 9));
const TYPED = ['m', 'mi', 'mic', 'micr', ''];
/**
 * BENCH_REST_MS: a pause before each round (after its "#"), the page doing nothing. On the
 * machines of this project memory untouched for a minute is read several times slower the first
 * time (bench:panel types its keystrokes about a minute after its load): with a rest, every round
 * meets that.
 */
const REST_MS = Number(process.env.BENCH_REST_MS ?? 0);
/** Rows a chunk, as the host sends them (src/panel/rowSender.ts). */
const CHUNK = 1250;

async function rowsAsChunks(): Promise<Buffer> {
  const org = organizationFor('org-bench');
  const perDay = Math.ceil(ROWS / 7);
  const parts: Buffer[] = [];
  for (let day = 0; day < 7; day++) {
    const wire = generateDay(org, 20000 + day, 1, perDay);
    const { records } = await parseRecordsBody(JSON.stringify({ status: 'success', dmarcRecords: wire }), 'application/json');
    for (let off = 0; off < records.length; off += CHUNK) {
      const chunk = encodeRows(records, off, Math.min(CHUNK, records.length - off));
      const size = Buffer.alloc(4);
      size.writeUInt32LE(chunk.length);
      parts.push(size, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    }
  }
  return Buffer.concat(parts);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const [data, bundle] = await Promise.all([
    rowsAsChunks(),
    esbuild.build({ entryPoints: [join(repoRoot, 'test/bench/page/searchPage.ts')], bundle: true, format: 'iife', target: 'es2022', write: false, logLevel: 'warning' }),
  ]);
  const script = bundle.outputFiles[0]!.text;
  const server = createServer((req, res) => {
    if (req.url === '/') res.setHeader('content-type', 'text/html').end('<!doctype html><title>bench:search</title>');
    else if (req.url === '/page.js') res.setHeader('content-type', 'text/javascript').end(script);
    else if (req.url === '/rows.bin') res.end(data);
    else res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  const launch = await import(pathToFileURL(join(repoRoot, 'test/host/launch.mjs')).href);
  const browser = await chromium.launch({ executablePath: launch.chromiumPath(), headless: true, args: launch.CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.addScriptTag({ url: '/page.js' });
    const r = await page.evaluate(
      ([typed, rounds, rest]) => (window as unknown as { benchSearch: (url: string, t: string[], n: number, rest: number) => Promise<{ rows: number; loadMs: number; idleMs: number; compute: Record<string, number[]>; search: Record<string, number[]> }> }).benchSearch('/rows.bin', typed, rounds, rest),
      [TYPED, ROUNDS, REST_MS] as const,
    );
    console.log(`bench:search — ${r.rows} rows (${(data.length / 1048576).toFixed(0)} MB of chunks), ${ROUNDS} rounds${REST_MS ? ` (a rest of ${REST_MS} ms before each)` : ''}, headless Chromium; load ${Math.round(r.loadMs)} ms, idle work ${Math.round(r.idleMs)} ms`);
    console.log('typed     first round (search)   median of the rest (search)   worst');
    for (const q of TYPED) {
      const c = r.compute[q]!;
      const s = r.search[q]!;
      const rest = c.slice(1);
      console.log(`${JSON.stringify(q).padEnd(9)} ${`${c[0]!.toFixed(0)} (${s[0]!.toFixed(0)})`.padEnd(22)} ${`${median(rest).toFixed(0)} (${median(s.slice(1)).toFixed(0)})`.padEnd(29)} ${Math.max(...c).toFixed(0)} ms`);
    }
    console.log(`(${((Date.now() - t0) / 1000).toFixed(0)} s in all)`);
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
