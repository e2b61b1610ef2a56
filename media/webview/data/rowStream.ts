/**
 * Which `rows` messages the webview takes, in which order. The host posts rows as soon as they
 * arrive from the network, before the page's script has said ready: VS Code holds them until the
 * page has loaded, so they travel while the page starts (a second or more here) instead of after.
 * VS Code hands the held messages over once the page loaded or 200 ms after it began to, so a
 * page whose script is slow to come can miss the first of them. The webview therefore takes only
 * the chunk it expects next (or a chunk at offset 0: a load starting over), and asks the host to
 * send again from the first row it lacks: when a chunk shows a gap, and when `init` says how many
 * rows were posted before it. DOM-free, for the unit tests.
 */
export interface ChunkHeader {
  /** The host's load the chunk belongs to (a new fetch, a retry or a reload is a new load). */
  load: number;
  offset: number;
  count: number;
}

export interface Resend {
  load: number;
  from: number;
}

export class RowStream {
  private load = -1;
  /** The offset of the next chunk taken: the rows taken so far in this load. */
  private expected = 0;
  /** The last resend asked for, so that each gap is asked once. */
  private asked = '';

  /** The load whose rows are being taken (-1 before any, and after a reset). */
  get current(): number {
    return this.load;
  }

  /** Rows taken so far in `load` (0 for any other load). */
  taken(load: number): number {
    return load === this.load ? this.expected : 0;
  }

  /** Whether this chunk is the next one; when it is not, the resend to ask for (once), if any. */
  take(m: ChunkHeader): { take: boolean; resend?: Resend } {
    if (m.offset === 0) {
      this.load = m.load;
      this.expected = m.count;
      this.asked = '';
      return { take: true };
    }
    if (m.load === this.load && m.offset === this.expected) {
      this.expected += m.count;
      return { take: true };
    }
    // A chunk before the one expected was sent twice: nothing is missing.
    if (m.load === this.load && m.offset < this.expected) return { take: false };
    const resend = this.ask({ load: m.load, from: this.taken(m.load) });
    return resend ? { take: false, resend } : { take: false };
  }

  /** `init` says `sent` rows of `load` were posted before it: what to ask for again, if any. */
  sync(load: number, sent: number): Resend | undefined {
    if (sent <= this.taken(load)) return undefined;
    // Asked whatever a chunk before init asked for: that ask was not sent (the page was not ready).
    this.asked = `${load}:${this.taken(load)}`;
    return { load, from: this.taken(load) };
  }

  /** The rows taken are dropped (a load failed or starts over): the next chunk taken is at offset 0. */
  reset(): void {
    this.load = -1;
    this.expected = 0;
    this.asked = '';
  }

  private ask(r: Resend): Resend | undefined {
    const key = `${r.load}:${r.from}`;
    if (key === this.asked) return undefined;
    this.asked = key;
    return r;
  }
}
