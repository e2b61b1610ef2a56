/**
 * Times the records table's model at 100k rows: load, sort (each column, first time with ranking
 * and again from cached ranks), search keystrokes, facet toggles. Prints medians; not a test.
 *   node esbuild.mjs --tests && node dist-test/bench/benchWebviewModel.js [rows]
 */
import { COLUMNS, type ColumnId } from '../../src/shared/columns';
import { RecordsModel, type Query } from '../../media/webview/data/query';
import { appendTuples } from '../../media/webview/data/tuples';
import { generateRows } from '../fixtures/webview-dev/generateRows';

const N = Number(process.argv[2] ?? 100_000);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

const rows = generateRows(N, 7);
const decoder = new TextDecoder();
const encoder = new TextEncoder();
/** The host's chunking: 1,000 rows first, then 10,000 a message. */
const chunks: Uint8Array[] = [];
for (let off = 0; off < N; ) {
  const count = Math.min(off === 0 ? 1_000 : 10_000, N - off);
  chunks.push(encoder.encode(JSON.stringify(rows.slice(off, off + count))));
  off += count;
}

const loads: number[] = [];
const chunkTimes: number[] = [];
let model = new RecordsModel();
for (let k = 0; k < 5; k++) {
  model = new RecordsModel();
  loads.push(
    time(() => {
      for (const c of chunks) chunkTimes.push(time(() => appendTuples(model, JSON.parse(decoder.decode(c)) as unknown[], N)));
    }),
  );
}
console.log(`rows: ${N}`);
console.log(`decode + parse + load, all chunks: median ${median(loads).toFixed(1)} ms; per 10k chunk: median ${median(chunkTimes).toFixed(1)} ms, max ${Math.max(...chunkTimes).toFixed(1)} ms`);

const base: Query = { search: '', facets: {} };
const firstSorts: Record<string, number> = {};
const sorts: number[] = [];
for (const column of COLUMNS) {
  firstSorts[column] = time(() => model.compute({ ...base, sort: { column, descending: false } }));
  for (let k = 0; k < 5; k++) {
    sorts.push(time(() => model.compute({ ...base, sort: { column: column as ColumnId, descending: k % 2 === 0 } })));
  }
}
const worst = Object.entries(firstSorts).sort((a, b) => b[1] - a[1]);
console.log(`sort + view, first time per column (ranking included): median ${median(Object.values(firstSorts)).toFixed(1)} ms, worst ${worst[0]![0]} ${worst[0]![1].toFixed(1)} ms, ${worst[1]![0]} ${worst[1]![1].toFixed(1)} ms`);
console.log(`sort + view, ranks cached: median ${median(sorts).toFixed(1)} ms`);

const sort = { column: 'emails' as ColumnId, descending: true };
const typed = 'mail-1';
const keystrokes: number[] = [];
for (let k = 0; k < 5; k++) {
  for (let i = 1; i <= typed.length; i++) keystrokes.push(time(() => model.compute({ search: typed.slice(0, i), facets: {}, sort })));
  keystrokes.push(time(() => model.compute({ search: '', facets: {}, sort })));
}
console.log(`search keystroke (filter + facets + summary): median ${median(keystrokes).toFixed(1)} ms, max ${Math.max(...keystrokes).toFixed(1)} ms`);

const fresh: number[] = [];
for (const q of ['google', 'fail', 'zzz-no-match', '10.', 'example.org', 'quarantine']) {
  model.compute({ search: 'x', facets: {}, sort });
  fresh.push(time(() => model.compute({ search: q, facets: {}, sort })));
}
console.log(`search, unrelated query: median ${median(fresh).toFixed(1)} ms`);

const facetTimes: number[] = [];
const facetSets: Query['facets'][] = [
  { category: ['rejected'] },
  { category: ['rejected', 'quarantined'], dkim: ['fail', '(none)'] },
  { dmarc: ['reject'], alignedSpf: ['fail'], spf: ['pass'] },
  { alignedDkim: ['pass'] },
  {},
];
for (let k = 0; k < 5; k++) for (const facets of facetSets) facetTimes.push(time(() => model.compute({ search: '', facets, sort })));
console.log(`facet toggle (filter + counts + summary): median ${median(facetTimes).toFixed(1)} ms`);
console.log(`model timings of the last compute: ${JSON.stringify(model.timings)}`);
