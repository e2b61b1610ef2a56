/**
 * The page of bench:search (benchSearch.ts), bundled for the browser when the bench runs: the
 * webview's records model fed the bench's chunks, its idle work run to the end, then search
 * keystrokes timed as the panel computes them.
 */
import { decodeChunk } from '../../../src/shared/rowCodec';
import { RecordsModel, type Query } from '../../../media/webview/data/query';

interface Result {
  rows: number;
  loadMs: number;
  idleMs: number;
  /** Per query typed: compute times, then the search's part of each (RecordsModel.timings.searchMs). */
  compute: Record<string, number[]>;
  search: Record<string, number[]>;
}

async function run(url: string, typed: string[], rounds: number, restMs = 0): Promise<Result> {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const model = new RecordsModel();
  const view = new DataView(bytes.buffer);
  let t0 = performance.now();
  for (let at = 0; at < bytes.length; ) {
    const n = view.getUint32(at, true);
    model.appendChunk(decodeChunk(bytes.subarray(at + 4, at + 4 + n)));
    at += 4 + n;
  }
  const loadMs = performance.now() - t0;
  t0 = performance.now();
  while (model.idleNext()) {
    // Every step of idle work, as a panel left alone after its rows came.
  }
  const idleMs = performance.now() - t0;
  const compute: Record<string, number[]> = {};
  const search: Record<string, number[]> = {};
  const sort = { column: 'emails', descending: true } as const;
  const query = (q: string): Query => ({ search: q, facets: {}, sort });
  // Every row first, as the panel shows them before anything is typed.
  model.compute(query(''));
  for (let r = 0; r < rounds; r++) {
    // A query none of the typed ones starts from, so each round types from scratch.
    model.compute(query('#'));
    // BENCH_REST_MS: memory left alone as long as bench:panel leaves it before its keystrokes.
    if (restMs > 0) await new Promise((r) => setTimeout(r, restMs));
    for (const q of typed) {
      const t = performance.now();
      model.compute(query(q));
      (compute[q] ??= []).push(performance.now() - t);
      // (Not there before the search's own time was kept: compared with an older commit, NaN.)
      (search[q] ??= []).push((model.timings as { searchMs?: number }).searchMs ?? Number.NaN);
    }
  }
  return { rows: model.length, loadMs, idleMs, compute, search };
}

(window as unknown as { benchSearch: typeof run }).benchSearch = run;
