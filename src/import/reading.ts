/**
 * One input file's read: what each byte stream is, where its bytes go, and what came of it.
 *
 *   file ──sniff──► xml ─────────────────────────► XmlSink ──► report (+ errors)
 *               ├─► gzip ─► inflate ─► sniff ─────► XmlSink, or a nested archive (one level)
 *               ├─► zip ──► each entry ─► sniff ──► XmlSink, or a nested archive (one level)
 *               └─► message (.eml) ─► each attachment ─► sniff ─► as above
 *
 * Errors stay with the stream they belong to; nothing here throws out of `read`.
 */
import type { AggregateReport, ImportError, ImportLimits } from './types';
import { InflateBudget, gunzipInto, sniff, unzipInto, type ByteSink } from './containers';
import { emlAttachments, notWhatItClaims } from './eml';
import { buildReport } from './reportMap';
import { ImportFault, ReportXmlReader } from './xmlReader';
import { decoderFor, type ChunkDecoder } from './xmlText';

/** Archives that may enclose one another: an archive inside an archive, no deeper. */
const MAX_ARCHIVE_DEPTH = 2;
/** Text handed to the XML parser at once when the whole document is in memory. */
const XML_SLICE = 1024 * 1024;
const SNIFF_BYTES = 256;
/** Attachments named in a message's "carries no report" before the rest are counted. */
const MAX_NAMED = 5;

function messageOf(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 300 ? `${m.slice(0, 300)}…` : m;
}

export class Reading {
  readonly reports: AggregateReport[] = [];
  readonly errors: ImportError[] = [];
  private readonly budget: InflateBudget;
  private readonly pending: { label: string; bytes: Uint8Array; depth: number }[] = [];
  private lastYield = performance.now();

  constructor(private readonly limits: ImportLimits) {
    this.budget = new InflateBudget(limits.maxInflatedBytes);
  }

  /** Gives the event loop a turn every 10 ms of work, so a big file never blocks its host. */
  readonly tick = async (): Promise<void> => {
    if (performance.now() - this.lastYield < 10) return;
    await new Promise<void>((r) => setImmediate(r));
    this.lastYield = performance.now();
  };

  error(file: string, message: string): void {
    this.errors.push({ file, message });
  }

  async read(fileName: string, bytes: Uint8Array): Promise<void> {
    await this.readBytes(fileName, bytes, 0, true);
    // Archives found inside archives, read once their container is done.
    for (let next = this.pending.shift(); next; next = this.pending.shift()) {
      await this.readBytes(next.label, next.bytes, next.depth, false);
    }
    if (this.reports.length === 0 && this.errors.length === 0) this.error(fileName, 'no DMARC aggregate report found in it');
  }

  /** `depth`: how many archives enclose these bytes. */
  private async readBytes(label: string, bytes: Uint8Array, depth: number, topLevel: boolean): Promise<void> {
    if (bytes.length === 0) return this.error(label, 'the file is empty');
    const kind = sniff(bytes.subarray(0, SNIFF_BYTES));
    try {
      if (kind === 'xml') {
        const sink = new XmlSink(label, this);
        for (let i = 0; i < bytes.length; i += XML_SLICE) {
          sink.write(bytes.subarray(i, i + XML_SLICE));
          await this.tick();
        }
        sink.end();
      } else if (kind === 'gzip' || kind === 'zip') {
        if (depth >= MAX_ARCHIVE_DEPTH) return this.error(label, 'an archive inside an archive inside an archive: only one level of nesting is read');
        if (kind === 'gzip') await gunzipInto(bytes, this.sinkFor(label, depth + 1), this.budget, this.tick);
        else {
          await unzipInto(bytes, (name) => this.sinkFor(`${label} › ${name}`, depth + 1), (name, m) => this.error(`${label} › ${name}`, m), this.budget, this.tick);
        }
      } else if (kind === 'text' && topLevel) {
        await this.readMessage(label, bytes, depth);
      } else {
        this.error(label, 'not a DMARC aggregate report (neither XML, gzip, zip nor an email message)');
      }
    } catch (e) {
      this.error(label, messageOf(e));
    }
  }

  private async readMessage(label: string, bytes: Uint8Array, depth: number): Promise<void> {
    const before = this.reports.length + this.errors.length;
    const passed: string[] = [];
    for (const a of await emlAttachments(bytes)) {
      const kind = sniff(a.content.subarray(0, SNIFF_BYTES));
      if (kind === 'xml' || kind === 'gzip' || kind === 'zip') {
        await this.readBytes(`${label} › ${a.name}`, a.content, depth, false);
        continue;
      }
      // A part named or typed as a report that is none: said, with what it is instead.
      const wrong = notWhatItClaims(a);
      if (wrong !== undefined) this.error(`${label} › ${a.name}`, wrong);
      // Logos, signatures and the like travel beside reports; they are not errors.
      else passed.push(a.name);
    }
    if (this.reports.length + this.errors.length === before) {
      const names = passed.length > MAX_NAMED ? `${passed.slice(0, MAX_NAMED).join(', ')} and ${passed.length - MAX_NAMED} more` : passed.join(', ');
      this.error(label, `the message carries no report (no XML, gzip or zip attachment${passed.length ? `; its attachments: ${names}` : ''})`);
    }
  }

  /** A sink that decides by the first bytes: XML is parsed as it streams, archives are kept for later. */
  sinkFor(label: string, depth: number): ByteSink {
    const head: Uint8Array[] = [];
    let headBytes = 0;
    let target: ByteSink | undefined;
    const decide = () => {
      const all = concat(head, headBytes);
      const kind = sniff(all.subarray(0, SNIFF_BYTES));
      if (kind === 'xml') {
        target = new XmlSink(label, this);
      } else if (kind === 'gzip' || kind === 'zip') {
        target = new BufferSink((bytes) => this.pending.push({ label, bytes, depth }), (reason) => this.error(label, reason));
      } else {
        target = new NullSink((reason) => this.error(label, reason ?? 'not a DMARC aggregate report (neither XML, gzip nor zip)'));
      }
      if (all.length) target.write(all);
    };
    return {
      write: (chunk) => {
        if (target) return target.write(chunk);
        head.push(chunk);
        headBytes += chunk.length;
        if (headBytes >= SNIFF_BYTES) decide();
      },
      end: () => {
        if (!target) decide();
        target!.end();
      },
      abort: (reason) => {
        if (!target) decide();
        target!.abort(reason);
      },
    };
  }

  /** Called by an XmlSink when its report is read, whole or in part. */
  finishXml(label: string, reader: ReportXmlReader, failure: string | undefined): void {
    const built = buildReport(label, reader.blocks, this.limits.maxErrorsPerReport);
    if (failure === undefined) {
      if (built.report) this.reports.push(built.report);
      this.errors.push(...built.errors);
      return;
    }
    if (built.report && built.report.records.length > 0) {
      this.reports.push(built.report);
      this.errors.push(...built.errors);
      this.error(label, `${failure}; the ${built.report.records.length} records read before it are kept`);
    } else {
      this.error(label, failure);
    }
  }

  get xmlLimits(): { maxDepth: number; maxTextLength: number } {
    return this.limits;
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Decodes and parses one report as its bytes arrive; a broken document keeps what was read. */
class XmlSink implements ByteSink {
  private decoder: ChunkDecoder | undefined;
  private readonly reader: ReportXmlReader;
  private failure: string | undefined;
  private done = false;

  constructor(private readonly label: string, private readonly reading: Reading) {
    this.reader = new ReportXmlReader(reading.xmlLimits);
  }

  write(chunk: Uint8Array): void {
    if (this.failure !== undefined || this.done) return;
    this.decoder ??= decoderFor(chunk.subarray(0, 200));
    try {
      this.reader.write(this.decoder.write(chunk));
    } catch (e) {
      this.failure = xmlFailure(e);
    }
  }

  end(): void {
    if (this.done) return;
    if (this.failure === undefined) {
      try {
        if (this.decoder) this.reader.write(this.decoder.end());
        this.reader.end();
      } catch (e) {
        this.failure = xmlFailure(e);
      }
    }
    this.done = true;
    this.reading.finishXml(this.label, this.reader, this.failure);
  }

  abort(reason: string): void {
    if (this.done) return;
    this.done = true;
    this.reading.finishXml(this.label, this.reader, this.failure ?? reason);
  }
}

function xmlFailure(e: unknown): string {
  return e instanceof ImportFault ? messageOf(e) : `XML: ${messageOf(e)}`;
}

/** Holds a nested archive until its container is read. */
class BufferSink implements ByteSink {
  private parts: Uint8Array[] = [];
  private size = 0;
  constructor(
    private readonly onEnd: (bytes: Uint8Array) => void,
    private readonly onAbort: (reason: string) => void,
  ) {}
  write(chunk: Uint8Array): void {
    this.parts.push(chunk.slice());
    this.size += chunk.length;
  }
  end(): void {
    this.onEnd(concat(this.parts, this.size));
  }
  abort(reason: string): void {
    this.parts = [];
    this.onAbort(reason);
  }
}

/** Drops bytes that are no report, saying so once. */
class NullSink implements ByteSink {
  constructor(private readonly onEnd: (reason?: string) => void) {}
  write(): void {}
  end(): void {
    this.onEnd();
  }
  abort(reason: string): void {
    this.onEnd(reason);
  }
}
