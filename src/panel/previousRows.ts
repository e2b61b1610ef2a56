/**
 * The panel's Compare: the previous period of equal length (src/advice/compare.ts
 * `previousPeriod` of the panel's range), fetched with one request through the record store (so
 * it is cached like every period, and a range the store holds is served from memory), filtered
 * as the panel's own rows are (its range, its source), and posted to the webview in the same
 * binary chunks as the rows (RowSender), as `compareRows`: the page keeps them apart from its
 * rows, so filters, selection and exports of those are unchanged. Asked again (the switch turned
 * on after a reload of the page), the rows held are posted again without a request. No `vscode`
 * import: the panel gives the key, the post and the log.
 */
import { ApiError, describeApiError } from '../api';
import type { DmarcRecord } from '../api/types';
import { previousPeriod } from '../advice/compare';
import type { RecordScope, RecordStore } from '../records/recordStore';
import { rowsWithin } from '../records/rangeEntries';
import type { HostMessage } from '../shared/protocol';
import { RowSender } from './rowSender';
import type { Busy } from '../shared/busy';

export interface PreviousTarget {
  start: Date;
  end: Date;
  /** The panel shows one source's rows: so do the previous period's. */
  source?: string | undefined;
}

class Missing extends Error {}

/**
 * The previous period's chunks go deflated (RowSender's `packAlways`), 2.5 times fewer bytes. Every
 * byte posted is copied into VS Code's messages, which its protocol keeps until the other side
 * has them; those copies outlive the extension host's young generation, and each ~64 MB of them
 * starts a full garbage collection (external memory). With a million rows held, each of those
 * marked a ~950 MB heap on the host's four helper threads for 1–2 s, beside the webview on two
 * cores, and the host's event loop waited for a core (bench:panel at 1M rows: one such collection
 * every ~5 s while Compare's rows were posted, the longest blocks 268–599 ms in them; deflated,
 * 100–207 ms, and the period was in after 31–36 s instead of 49–59).
 */
const PACK_ALWAYS = true;

export class PreviousRows {
  private readonly sender: RowSender;
  /** The rows held (posted, or being posted). */
  private held: readonly DmarcRecord[] | undefined;
  private fetching: Promise<void> | undefined;
  private seq = 0;
  private abort: AbortController | undefined;
  /** The switch was turned on at least once: a refresh of the panel fetches the previous period again. */
  wanted = false;

  constructor(
    private readonly post: (m: HostMessage) => PromiseLike<boolean>,
    private readonly alive: () => boolean,
    private readonly store: RecordStore,
    /** Where the rows come from, or why they cannot be fetched (a missing key), as the user reads it. */
    private readonly scope: () => Promise<RecordScope | string>,
    private readonly target: PreviousTarget,
    private readonly log: (line: string) => void,
    /** Marks the host busy while the rows are fetched and sent (the disk cache waits: src/shared/busy.ts). */
    private readonly busy?: Busy,
  ) {
    // Deflated, all but the first chunk (PACK_ALWAYS).
    this.sender = new RowSender((m) => (m.type === 'rows' ? this.post({ ...m, type: 'compareRows' }) : this.post(m)), alive, PACK_ALWAYS);
  }

  /** The rows posted, by index (tests). */
  get records(): readonly DmarcRecord[] {
    return this.sender.records;
  }

  /** The switch is on: the previous period's rows, fetched once (again with `refresh`), posted from the first. */
  show(refresh = false): Promise<void> {
    this.wanted = true;
    if (!refresh && this.fetching) return this.fetching;
    if (!refresh && this.held) {
      this.sender.finish(this.held as DmarcRecord[]).then(undefined, () => undefined);
      return Promise.resolve();
    }
    return (this.fetching = this.fetch(refresh));
  }

  /** The page missed rows of `load` from `from` on. */
  resendFrom(load: number, from: number): void {
    this.sender.resendFrom(load, from);
  }

  private async fetch(refresh: boolean): Promise<void> {
    // As the panel's own load: a million rows written to the disk cache while they are still
    // sent to the page fought them for the host's main thread and heap (bench:panel at 1M rows).
    const done = this.busy?.begin();
    try {
      await this.fetchAndSend(refresh);
    } finally {
      done?.();
    }
  }

  private async fetchAndSend(refresh: boolean): Promise<void> {
    const seq = ++this.seq;
    this.abort?.abort();
    const abort = (this.abort = new AbortController());
    const { start, end, source } = this.target;
    const prev = previousPeriod(start, end);
    void this.post({ type: 'compareStatus', state: 'loading' });
    try {
      const scope = await this.scope();
      if (typeof scope === 'string') throw new Missing(scope);
      const result = await this.store.get(scope, prev.start, prev.end, { refresh, signal: abort.signal });
      if (seq !== this.seq || !this.alive()) return;
      const s = prev.start.getTime();
      const e = prev.end.getTime();
      // Only the previous period's rows (the store's answer is sorted and inside it: kept as it
      // is unless a source is asked for), filtered a slice at a time.
      const rows = await rowsWithin(result.records, s, e, source);
      if (seq !== this.seq || !this.alive()) return;
      this.held = rows;
      await this.sender.finish(rows);
    } catch (err) {
      if (seq !== this.seq || !this.alive()) return;
      // The API's own sentence (or the missing key's), never a stack.
      const message = err instanceof Missing ? err.message : describeApiError(err);
      this.log(`records panel: the previous period ${prev.start.toISOString().slice(0, 10)}–${prev.end.toISOString().slice(0, 10)} was not fetched: ${err instanceof ApiError ? err.kind : 'error'}: ${message}`);
      void this.post({ type: 'compareStatus', state: 'error', message });
    } finally {
      if (seq === this.seq) this.fetching = undefined;
    }
  }

  dispose(): void {
    this.seq++;
    this.abort?.abort();
  }
}
