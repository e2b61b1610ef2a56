/**
 * The previous period of equal length, DOM-free (the Compare switch): its rows arrive from the
 * host as `compareRows` (the rows' binary chunks, data/rowStream.ts decides which to take) into a
 * RecordsModel of their own, apart from the panel's rows. Its view applies the panel's search,
 * facets and group filters, and the days chosen on the trend moved back by the period's length
 * (day 1 of this period is day 1 of that one), so the two periods are read through the same
 * filters; the groups are then counted by groups.ts exactly as the panel's.
 */
import { previousPeriod } from '../../../src/advice/compare';
import * as l10n from '@vscode/l10n';
import { decodeChunk } from '../../../src/shared/rowCodec';
import { chunkBytes, unpack } from './inflate';
import type { WebviewMessage } from '../../../src/shared/protocol';
import { RecordsModel, type Query, type View } from './query';
import { RowStream } from './rowStream';
import { bucketIndex, type Trend } from './trend';

export type PreviousStatus = 'off' | 'loading' | 'ready' | 'error';

/** The `compareRows` header and data, as the page received them (untrusted shape). */
export interface CompareRowsMessage {
  load?: unknown;
  offset?: unknown;
  count?: unknown;
  total?: unknown;
  data?: unknown;
  last?: unknown;
  /** Deflated (all but the first: src/panel/previousRows.ts). */
  packed?: unknown;
}

export class PreviousPeriod {
  readonly model = new RecordsModel();
  status: PreviousStatus = 'off';
  /** Why the fetch failed (the host's sentence), when it did. */
  message = '';
  /** The previous period (inclusive instants), and how far it lies before this one. */
  range = { startMs: 0, endMs: 0 };
  shiftMs = 0;
  private readonly stream = new RowStream();
  private asked = false;
  private memo: { key: string; view: View } | undefined;
  /** Packed chunks being inflated, and those after them: the last one's turn. */
  private reading: Promise<void> | undefined;
  /** The load a chunk of which could not be read. */
  private broken = -1;

  constructor(
    private readonly post: (m: WebviewMessage) => void,
    /** The rows are all in, or the fetch failed: the analysis draws again. */
    private readonly changed: () => void,
  ) {}

  /** This period's range (inclusive instants): the previous one is its equal before it. */
  setRange(startMs: number, endMs: number): void {
    const p = previousPeriod(new Date(startMs), new Date(endMs));
    this.range = { startMs: p.start.getTime(), endMs: p.end.getTime() };
    this.shiftMs = startMs - this.range.startMs;
  }

  /**
   * The switch is on: the rows are asked for once. After a failure only when `again` (the user
   * turned the switch on anew): drawing the failure must not ask again, and fail again, in a loop.
   */
  want(again = false): void {
    if (this.asked && !(again && this.status === 'error')) return;
    this.asked = true;
    this.status = 'loading';
    this.message = '';
    this.post({ type: 'compare' });
  }

  onStatus(state: unknown, message: unknown): void {
    if (state === 'loading') this.status = 'loading';
    else if (state === 'error') {
      this.status = 'error';
      this.message = typeof message === 'string' ? message.slice(0, 2000) : '';
    } else return;
    this.changed();
  }

  /**
   * One chunk of the previous period's rows; a chunk out of order asks for the rows again from the
   * first missing. A packed chunk starts inflating as it comes; chunks are read in the order they
   * came, each once those before it are (at once when none is being inflated).
   */
  onRows(m: CompareRowsMessage): void {
    const header = { load: typeof m.load === 'number' ? m.load : 0, offset: typeof m.offset === 'number' ? m.offset : -1, count: typeof m.count === 'number' ? m.count : 0 };
    const { take, resend } = this.stream.take(header);
    if (!take) {
      if (resend) this.post({ type: 'compareResend', load: resend.load, from: resend.from });
      return;
    }
    if (m.packed !== true && !this.reading) {
      this.read(header, chunkBytes(m.data), m);
      return;
    }
    const bytes = m.packed === true ? unpack(m.data) : Promise.resolve(chunkBytes(m.data));
    bytes.catch(() => undefined); // read (and reported) in its turn
    const turn = (this.reading ?? Promise.resolve()).then(() => bytes).then(
      (b) => this.read(header, b, m),
      (err: unknown) => this.read(header, err instanceof Error ? err : new Error(String(err)), m),
    );
    this.reading = turn;
    void turn.then(() => {
      if (this.reading === turn) this.reading = undefined;
    });
  }

  /** Reads a chunk, in its turn. The rest of a load a chunk of which could not be read is not read (asked again, it would fail again). */
  private read(header: { load: number; offset: number }, bytes: Uint8Array | Error | undefined, m: CompareRowsMessage): void {
    if (!bytes || (header.load === this.broken && header.offset !== 0)) return;
    if (header.offset === 0) {
      this.broken = -1;
      this.model.clear();
      this.memo = undefined;
      this.status = 'loading';
    }
    let chunk;
    try {
      if (bytes instanceof Error) throw bytes;
      chunk = decodeChunk(bytes);
    } catch (err) {
      // Never half a period: the rows so far are dropped, the switch says why.
      this.broken = header.load;
      this.model.clear();
      this.memo = undefined;
      this.status = 'error';
      this.message = l10n.t('The rows could not be read: {0}', (err as Error).message);
      this.changed();
      return;
    }
    this.model.appendChunk(chunk, Math.max(typeof m.total === 'number' ? m.total : 0, this.model.length + chunk.count));
    if (m.last === true) {
      this.model.classes.setSettled(true);
      this.status = 'ready';
      this.changed();
    }
  }

  /** The previous rows through the panel's filters (no sort: the groups and the trend need none). */
  view(q: Query): View {
    const days = q.days ? { startMs: q.days.startMs - this.shiftMs, endMs: q.days.endMs - this.shiftMs } : undefined;
    const query: Query = { search: q.search, facets: q.facets, groups: q.groups, days };
    const key = `${this.model.store.version} ${this.model.classes.key} ${JSON.stringify(query)}`;
    if (this.memo?.key === key) return this.memo.view;
    const view = this.model.compute(query);
    this.memo = { key, view };
    return view;
  }

  /**
   * The previous period's emails (or DMARC pass rate, in percent) per bucket of this period's trend,
   * each row moved forward by the period's length: day 1 of that period under day 1 of this one.
   * Buckets without emails before read 0 emails, or no rate (null).
   */
  line(rows: Uint32Array, trend: Pick<Trend, 'starts' | 'unit'>, passRate: boolean): (number | null)[] {
    const nb = trend.starts.length;
    const emails = new Float64Array(nb);
    const passing = new Float64Array(nb);
    const s = this.model.store;
    const { startMs, endMs } = this.range;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k]!;
      const ms = s.dateMs[i]!;
      if (!(ms >= startMs && ms <= endMs)) continue;
      const b = bucketIndex(ms + this.shiftMs, trend.starts, trend.unit);
      if (b < 0) continue;
      emails[b]! += s.emails[i]!;
      if (s.dmarcPass[i]) passing[b]! += s.emails[i]!;
    }
    return Array.from(emails, (e, b) => (passRate ? (e > 0 ? (passing[b]! / e) * 100 : null) : e));
  }
}
