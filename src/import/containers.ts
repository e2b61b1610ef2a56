/**
 * What a byte stream is (by its first bytes, never by its name), and the sync streaming gzip and
 * zip readers of `fflate` (its async API would start workers) with one inflation budget per
 * input file. Zip entry names are labels only: nothing is ever written to disk.
 */
import { Gunzip, Unzip, UnzipInflate, UnzipPassThrough } from 'fflate';
import { ImportFault } from './xmlReader';

export type Kind = 'gzip' | 'zip' | 'xml' | 'text' | 'unknown';

/** Gzip `1f 8b`, zip `PK\3\4` (or an empty zip's `PK\5\6`), XML `<` after spaces and UTF-8 BOMs, in any order. */
export function sniff(head: Uint8Array): Kind {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6)) return 'zip';
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return 'xml'; // UTF-16
  let i = 0;
  for (;;) {
    if (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0a || head[i] === 0x0d) i++;
    else if (head[i] === 0xef && head[i + 1] === 0xbb && head[i + 2] === 0xbf) i += 3;
    else break;
  }
  if (i < head.length && head[i] === 0x3c) return 'xml';
  // A message starts with a header line `Name: value` (RFC 5322 field names are printable ASCII).
  let j = i;
  while (j < head.length && head[j]! > 0x20 && head[j]! < 0x7f && head[j] !== 0x3a) j++;
  if (j > i && head[j] === 0x3a) return 'text';
  return 'unknown';
}

const MB = 1024 * 1024;

/** Bytes inflated so far for one input file; past the limit the read stops with a clear error. */
export class InflateBudget {
  private used = 0;
  constructor(readonly max: number) {}
  add(n: number): void {
    this.used += n;
    if (this.used > this.max) {
      throw new ImportFault(`inflates to more than ${Math.round(this.max / MB)} MB; reading stopped (a compressed report this large is not a real one)`);
    }
  }
}

/** Receives one entry's bytes as they are inflated. */
export interface ByteSink {
  write(chunk: Uint8Array): void;
  end(): void;
  /** The stream broke off (or was stopped): keep what can be kept, say why. */
  abort(reason: string): void;
}

/**
 * Compressed input is pushed this much at a time, with a chance to yield in between. Deflate
 * inflates at most ~1032× so one push yields at most ~16 MB: the budget is checked in steps of
 * that size, and no single piece of output grows past it.
 */
const STEP = 16 * 1024;

export type Tick = () => Promise<void>;

/** Inflates a gzip (one or more members) into `sink`; when it cannot, the sink is aborted with the reason. */
export async function gunzipInto(bytes: Uint8Array, sink: ByteSink, budget: InflateBudget, tick: Tick): Promise<void> {
  const g = new Gunzip((chunk) => {
    budget.add(chunk.length);
    sink.write(chunk);
  });
  try {
    if (bytes.length === 0) g.push(bytes, true);
    for (let i = 0; i < bytes.length; i += STEP) {
      g.push(bytes.subarray(i, i + STEP), i + STEP >= bytes.length);
      await tick();
    }
  } catch (e) {
    sink.abort(e instanceof ImportFault ? e.message : `gzip: ${(e as Error).message}`);
    return;
  }
  sink.end();
}

/** A zip entry name as a label: never a path to write to (`..` and absolute paths stay text). */
export function entryLabel(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f]/g, '?');
}

/** Entries a zip tool adds beside the files (macOS resource forks, folders). */
function skipEntry(name: string): boolean {
  return name.endsWith('/') || name.startsWith('__MACOSX/') || /(^|\/)\._/.test(name);
}

/**
 * Reads every entry of a zip, streaming, each into the sink `open` gives for it. A broken entry
 * is aborted (its sink reports it) and the next one is read; an entry that cannot even start
 * goes to `onError`; the budget, when spent, stops the whole zip.
 */
export async function unzipInto(
  bytes: Uint8Array,
  open: (name: string) => ByteSink,
  onError: (name: string, message: string) => void,
  budget: InflateBudget,
  tick: Tick,
): Promise<void> {
  let current: { name: string; sink: ByteSink } | undefined;
  // fflate hands an exception thrown in ondata (the budget's) back to ondata as `err`, once per
  // later push: the first one ends the entry, and a spent budget ends the whole zip.
  let spent = false;
  const uz = new Unzip((file) => {
    if (spent) return;
    if (skipEntry(file.name)) return;
    const name = entryLabel(file.name);
    if (file.compression !== 0 && file.compression !== 8) {
      onError(name, `compression method ${file.compression} is not supported (only stored and deflate)`);
      return;
    }
    const sink = open(name);
    current = { name, sink };
    let ended = false;
    file.ondata = (err, chunk, final) => {
      if (ended) return;
      if (err) {
        ended = true;
        current = undefined;
        if (err instanceof ImportFault) spent = true;
        sink.abort(err instanceof ImportFault ? err.message : `zip: ${err.message}`);
        return;
      }
      budget.add(chunk.length);
      sink.write(chunk);
      if (final) {
        ended = true;
        current = undefined;
        sink.end();
      }
    };
    file.start();
  });
  uz.register(UnzipInflate);
  uz.register(UnzipPassThrough);
  try {
    for (let i = 0; i < bytes.length && !spent; i += STEP) {
      uz.push(bytes.subarray(i, i + STEP), i + STEP >= bytes.length);
      await tick();
    }
  } catch (e) {
    const reason = e instanceof ImportFault ? e.message : `zip: ${(e as Error).message}`;
    if (!current) throw new ImportFault(reason);
    current.sink.abort(reason);
    return;
  }
  if (current) {
    current.sink.abort('zip: the archive ends inside this entry');
  }
}
