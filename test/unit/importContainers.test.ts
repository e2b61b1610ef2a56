// The container layer on its own (src/import/containers.ts): what the first bytes say a stream is,
// the inflation budget, and the gzip and zip readers' events (writes, end, abort, errors) as a
// sink sees them. The end-to-end reads are in importFormats and importSafety.
import { strict as assert } from 'node:assert';
import { gzipSync, zipSync } from 'fflate';
import { InflateBudget, entryLabel, gunzipInto, sniff, unzipInto, type ByteSink } from '../../src/import/containers';
import { ImportFault } from '../../src/import/xmlReader';
import { rawZip, utf8 } from './importHelpers';

const MB = 1024 * 1024;
const STEP = 16 * 1024;
const bytes = (...b: number[]) => new Uint8Array(b);
/** Bytes that deflate poorly (so a stored or deflated stream is about as long as they are). */
const noisy = (n: number) => new Uint8Array(n).map((_, i) => (i * 7919 + ((i * i) >> 3)) % 251);

/** A sink that keeps what it is given, in order. */
class Recorder implements ByteSink {
  readonly events: string[] = [];
  private readonly parts: Uint8Array[] = [];
  write(chunk: Uint8Array): void {
    this.parts.push(chunk.slice());
  }
  end(): void {
    this.events.push('end');
  }
  abort(reason: string): void {
    this.events.push(`abort: ${reason}`);
  }
  get data(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.parts));
  }
}

const BUDGET_MESSAGE = (mb: number) => `inflates to more than ${mb} MB; reading stopped (a compressed report this large is not a real one)`;

describe('import: sniffing a stream by its first bytes', () => {
  it('gzip by 1f 8b, even when those are the only bytes', () => {
    assert.equal(sniff(bytes(0x1f, 0x8b)), 'gzip');
    assert.equal(sniff(bytes(0x1f, 0x8b, 8, 0)), 'gzip');
    assert.equal(sniff(bytes(0x1f)), 'unknown');
    assert.equal(sniff(bytes(0x1f, 0x8c)), 'unknown');
    assert.equal(sniff(bytes(0x1e, 0x8b)), 'unknown');
  });

  it('zip by PK 3 4 or an empty zip’s PK 5 6, even when those are the only bytes', () => {
    assert.equal(sniff(bytes(0x50, 0x4b, 3, 4)), 'zip');
    assert.equal(sniff(bytes(0x50, 0x4b, 5, 6)), 'zip');
    assert.equal(sniff(bytes(0x50, 0x4b, 3, 4, 20, 0)), 'zip');
    // The check takes either third byte with either fourth.
    assert.equal(sniff(bytes(0x50, 0x4b, 3, 6)), 'zip');
    assert.equal(sniff(bytes(0x50, 0x4b, 5, 4)), 'zip');
    for (const other of [bytes(0x50, 0x4b, 3), bytes(0x50, 0x4b, 4, 4), bytes(0x50, 0x4b, 3, 5), bytes(0x51, 0x4b, 3, 4), bytes(0x50, 0x4c, 3, 4)]) {
      assert.equal(sniff(other), 'unknown', String([...other]));
    }
  });

  it('XML by < after a UTF-8 byte order mark and any spaces, tabs and line breaks', () => {
    assert.equal(sniff(utf8('<?xml version="1.0"?>')), 'xml');
    assert.equal(sniff(utf8('<feedback>')), 'xml');
    assert.equal(sniff(utf8(' \t\r\n <feedback>')), 'xml');
    for (const space of [' ', '\t', '\r', '\n']) assert.equal(sniff(utf8(`${space}<a>`)), 'xml', JSON.stringify(space));
    assert.equal(sniff(bytes(0xef, 0xbb, 0xbf, 0x3c)), 'xml');
    assert.equal(sniff(bytes(0xef, 0xbb, 0xbf, 0x20, 0x0a, 0x3c)), 'xml');
    // Only the whole mark counts; without it such bytes are not text either.
    assert.equal(sniff(bytes(0xef, 0x00, 0x00, 0x3c)), 'unknown');
    assert.equal(sniff(bytes(0xef, 0xbb, 0x00, 0x3c)), 'unknown');
    assert.equal(sniff(bytes(0xef, 0x00, 0xbf, 0x3c)), 'unknown');
    assert.equal(sniff(bytes(0x41, 0xbb, 0xbf, 0x3c)), 'unknown');
    assert.equal(sniff(bytes(0x41, 0x42, 0xbf, 0x3c)), 'unknown');
    // A form feed or vertical tab is no XML white space.
    assert.equal(sniff(bytes(0x0c, 0x3c)), 'unknown');
    assert.equal(sniff(bytes(0x0b, 0x3c)), 'unknown');
    assert.equal(sniff(utf8('x<a>')), 'unknown');
    assert.equal(sniff(utf8('  ')), 'unknown');
    assert.equal(sniff(new Uint8Array()), 'unknown');
  });

  it('UTF-16 by its byte order mark, either byte order', () => {
    assert.equal(sniff(bytes(0xff, 0xfe)), 'xml');
    assert.equal(sniff(bytes(0xfe, 0xff)), 'xml');
    assert.equal(sniff(bytes(0xff, 0xfe, 0x3c, 0x00)), 'xml');
    for (const other of [bytes(0xff, 0xff), bytes(0xfe, 0xfe), bytes(0xff, 0x41), bytes(0x41, 0xfe), bytes(0x41, 0xff), bytes(0xfe, 0x41)]) {
      assert.equal(sniff(other), 'unknown', String([...other]));
    }
  });

  it('a message by a first header line `Name:`, after a byte order mark or leading space', () => {
    assert.equal(sniff(utf8('From: a@example.com\r\n')), 'text');
    assert.equal(sniff(utf8('Return-Path: <a@example.com>')), 'text');
    assert.equal(sniff(utf8('X:')), 'text');
    assert.equal(sniff(utf8('\r\n  Subject: x')), 'text');
    assert.equal(sniff(bytes(0xef, 0xbb, 0xbf, ...utf8('From: x'))), 'text');
    // A field name has no space, control or non-ASCII byte, and is not empty.
    assert.equal(sniff(utf8('From')), 'unknown');
    assert.equal(sniff(utf8('Fr om: x')), 'unknown');
    assert.equal(sniff(utf8('Fr\u007fom: x')), 'unknown');
    assert.equal(sniff(utf8('Fr\u0001om: x')), 'unknown');
    assert.equal(sniff(bytes(0x46, 0xc3, 0xa9, 0x3a)), 'unknown');
    assert.equal(sniff(utf8(': x')), 'unknown');
    assert.equal(sniff(utf8('   : x')), 'unknown');
    assert.equal(sniff(utf8('~!#: x')), 'text');
  });
});

describe('import: the inflation budget', () => {
  it('allows exactly its maximum over several additions, and stops at one byte more', () => {
    const b = new InflateBudget(2 * MB);
    b.add(MB);
    b.add(MB - 1);
    b.add(1);
    assert.throws(() => b.add(1), (e: unknown) => e instanceof ImportFault && e.message === BUDGET_MESSAGE(2));
  });

  it('names its size in whole megabytes, rounded', () => {
    const b = new InflateBudget(Math.round(2.6 * MB));
    assert.throws(() => b.add(3 * MB), (e: unknown) => e instanceof ImportFault && e.message === BUDGET_MESSAGE(3));
  });
});

describe('import: reading a gzip into a sink', () => {
  const data = noisy(3 * STEP + 100);

  it('inflates every member into the sink, in order, then ends it; one tick per 16 KB pushed', async () => {
    for (const level of [0, 6] as const) {
      const gz = gzipSync(data, { level });
      const sink = new Recorder();
      let ticks = 0;
      await gunzipInto(gz, sink, new InflateBudget(MB), async () => void ticks++);
      assert.deepEqual(sink.data, data, `level ${level}`);
      assert.deepEqual(sink.events, ['end']);
      assert.equal(ticks, Math.ceil(gz.length / STEP), `level ${level}`);
    }
    const two = new Uint8Array([...gzipSync(utf8('<a>')), ...gzipSync(utf8('</a>'))]);
    const sink = new Recorder();
    await gunzipInto(two, sink, new InflateBudget(MB), async () => {});
    assert.equal(Buffer.from(sink.data).toString(), '<a></a>');
    assert.deepEqual(sink.events, ['end']);
  });

  it('a gzip cut off (at exactly 16 KB: the last push is the final one) aborts the sink', async () => {
    const gz = gzipSync(data, { level: 0 });
    const sink = new Recorder();
    await gunzipInto(gz.subarray(0, STEP), sink, new InflateBudget(MB), async () => {});
    assert.deepEqual(sink.events, ['abort: gzip: unexpected EOF']);
    const sink2 = new Recorder();
    await gunzipInto(gz.subarray(0, 2 * STEP), sink2, new InflateBudget(MB), async () => {});
    assert.deepEqual(sink2.events, ['abort: gzip: unexpected EOF']);
  });

  it('past the budget the sink is aborted with the budget’s own message and nothing more is written', async () => {
    const gz = gzipSync(data, { level: 0 });
    const sink = new Recorder();
    let ticks = 0;
    await gunzipInto(gz, sink, new InflateBudget(STEP), async () => void ticks++);
    assert.deepEqual(sink.events, [`abort: ${BUDGET_MESSAGE(0)}`]);
    assert.ok(sink.data.length <= STEP, `${sink.data.length} bytes written`);
    assert.ok(ticks < Math.ceil(gz.length / STEP), 'stopped before the end');
  });
});

describe('import: reading a zip into sinks', () => {
  interface Opened {
    name: string;
    sink: Recorder;
  }
  async function unzip(zip: Uint8Array, max = MB): Promise<{ opened: Opened[]; errors: string[]; ticks: number }> {
    const opened: Opened[] = [];
    const errors: string[] = [];
    let ticks = 0;
    const open = (name: string) => {
      const sink = new Recorder();
      opened.push({ name, sink });
      return sink;
    };
    await unzipInto(zip, open, (name, message) => errors.push(`${name}: ${message}`), new InflateBudget(max), async () => void ticks++);
    return { opened, errors, ticks };
  }

  it('opens one sink per entry, in order, with its bytes and an end; one tick per 16 KB pushed', async () => {
    const a = noisy(2 * STEP);
    const b = utf8('<feedback/>');
    for (const level of [0, 6] as const) {
      const zip = zipSync({ 'a.xml': a, 'sub/b.xml': b }, { level });
      const { opened, errors, ticks } = await unzip(zip);
      assert.deepEqual(errors, []);
      assert.deepEqual(opened.map((o) => o.name), ['a.xml', 'sub/b.xml']);
      assert.deepEqual(opened[0]!.sink.data, a);
      assert.deepEqual(opened[1]!.sink.data, b);
      assert.deepEqual(opened.map((o) => o.sink.events), [['end'], ['end']]);
      assert.equal(ticks, Math.ceil(zip.length / STEP));
    }
  });

  it('skips folders, macOS resource forks and __MACOSX, and nothing else', async () => {
    const one = bytes(0x3c);
    const zip = zipSync({
      'dir/': new Uint8Array(),
      '__MACOSX/r.xml': one,
      'a/._r.xml': one,
      '._r.xml': one,
      'x._r.xml': one,
      'a__MACOSX/r.xml': one,
      'sub/__MACOSX/r.xml': one,
      'dir/r.xml': one,
    });
    const { opened, errors } = await unzip(zip);
    assert.deepEqual(errors, []);
    assert.deepEqual(opened.map((o) => o.name), ['x._r.xml', 'a__MACOSX/r.xml', 'sub/__MACOSX/r.xml', 'dir/r.xml']);
  });

  it('an entry name’s control characters become ? (the name is a label only)', async () => {
    assert.equal(entryLabel('a\u0000b\u001fc\u007fd\te\nf'), 'a?b?c?d?e?f');
    assert.equal(entryLabel(' ../é/ok\u0080 x.xml'), ' ../é/ok\u0080 x.xml');
    const { opened } = await unzip(zipSync({ 'r\u0001\u0002.xml': bytes(0x3c) }));
    assert.deepEqual(opened.map((o) => o.name), ['r??.xml']);
  });

  it('an entry compressed some other way is an error of that entry, never opened', async () => {
    const other = rawZip({ name: 'x\u0007.xml', body: bytes(1, 2, 3), method: 12 as 8, crc: 0, size: 3, descriptor: false });
    const { opened, errors } = await unzip(other);
    assert.deepEqual(errors, ['x?.xml: compression method 12 is not supported (only stored and deflate)']);
    assert.deepEqual(opened, []);
  });

  it('a broken deflate stream aborts that entry with the reason', async () => {
    const broken = rawZip({ name: 'c.xml', body: bytes(0xff, 0xff, 0xff, 0xff), method: 8, crc: 0, size: 4, descriptor: false });
    const { opened, errors } = await unzip(broken);
    assert.deepEqual(errors, []);
    assert.deepEqual(opened.map((o) => [o.name, o.sink.events]), [['c.xml', ['abort: zip: invalid block type']]]);
  });

  it('a broken entry is aborted once, and the entries after it are read', async () => {
    const zip = zipSync({ 'a.xml': [noisy(3000), { level: 6 }], 'b.xml': [noisy(3 * STEP), { level: 0 }] });
    const broken = zip.slice();
    broken[30 + 'a.xml'.length] = 0xff; // the first deflate block header: an invalid block type
    broken[31 + 'a.xml'.length] = 0xff;
    const { opened, errors } = await unzip(broken);
    assert.deepEqual(errors, []);
    assert.deepEqual(opened.map((o) => [o.name, o.sink.events]), [['a.xml', ['abort: zip: invalid block type']], ['b.xml', ['end']]]);
    assert.deepEqual(opened[1]!.sink.data, noisy(3 * STEP));
  });

  it('a zip cut off inside an entry aborts that entry', async () => {
    const zip = zipSync({ 'a.xml': noisy(3 * STEP) }, { level: 0 });
    const { opened } = await unzip(zip.subarray(0, 2 * STEP));
    assert.equal(opened.length, 1);
    assert.deepEqual(opened[0]!.sink.events, ['abort: zip: invalid zip data']);
    assert.ok(opened[0]!.sink.data.length > STEP, 'what was read before the break was written');
  });

  it('a spent budget aborts the entry with its message and stops the whole zip', async () => {
    const zip = zipSync({ 'a.xml': noisy(4 * STEP), 'b.xml': bytes(0x3c), 'c.xml': noisy(4 * STEP) }, { level: 0 });
    const { opened, ticks } = await unzip(zip, STEP);
    assert.deepEqual(opened.map((o) => [o.name, o.sink.events]), [['a.xml', [`abort: ${BUDGET_MESSAGE(0)}`]]]);
    assert.ok(ticks < Math.ceil(zip.length / STEP), `stopped early: ${ticks} ticks`);
  });

  it('a failure outside any entry is thrown as an ImportFault', async () => {
    const zip = zipSync({ 'a.xml': bytes(0x3c) });
    await assert.rejects(
      unzipInto(zip, () => { throw new Error('boom'); }, () => {}, new InflateBudget(MB), async () => {}),
      (e: unknown) => e instanceof ImportFault && e.message === 'zip: boom',
    );
    const fault = new ImportFault('spent');
    await assert.rejects(
      unzipInto(zip, () => { throw fault; }, () => {}, new InflateBudget(MB), async () => {}),
      (e: unknown) => e instanceof ImportFault && e.message === 'spent',
    );
  });
});
