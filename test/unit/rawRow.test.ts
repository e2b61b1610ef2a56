// Records that hold their row's shape instead of the parsed row (src/api/rawRow.ts): the row
// built again is the row as sent, key order included, for any mix of documented fields, `from`,
// extra fields and signature layouts; which rows are held that way; the disk cache's read-back.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseRecordsBody, rawOf, type DmarcRecord } from '../../src/api';
import { ShapeCache, rawField, rawKeys } from '../../src/api/rawRow';
import { jsonLine, toCsv } from '../../src/export/format';
import { extraFields, toTuple } from '../../src/records/tuple';
import { DiskCache } from '../../src/records/diskCache';
import { row } from './schemaHelpers';

const DOCUMENTED = ['source', 'reporter', 'visibleFrom', 'returnPath', 'to', 'ipAddress', 'ipCountryCode', 'rdns', 'emails', 'category', 'date', 'dmarc', 'alignedSpf', 'alignedDkim', 'spf', 'dkims', 'reportId'];

async function parse(rows: unknown[]): Promise<DmarcRecord[]> {
  const res = await parseRecordsBody(JSON.stringify({ status: 'success', dmarcRecords: rows }), 'application/json');
  assert.equal(res.rejected.count, 0);
  return res.records;
}

/** What the rows look like to every reader of `raw`: the JSON view, exports, the table's extra fields. */
function assertSameRow(r: DmarcRecord, sent: Record<string, unknown>, i: number): void {
  const text = JSON.stringify(sent);
  assert.equal(JSON.stringify(rawOf(r)), text, `row ${i}: the row as sent, key order included`);
  assert.deepStrictEqual(rawOf(r), JSON.parse(text), `row ${i}`);
  assert.equal(jsonLine(r), text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029'), `row ${i}: export line`);
  assert.deepEqual(rawKeys(r), Object.keys(sent), `row ${i}: field names`);
  for (const k of [...Object.keys(sent), 'absent']) assert.deepStrictEqual(rawField(r, k), JSON.parse(text)[k], `row ${i}: ${k}`);
  assert.deepEqual(toTuple(r)[17], extraFields(JSON.parse(text)), `row ${i}: the table's extra fields`);
}

describe('records without their parsed row (rawRow)', () => {
  it('rows of documented fields (and `from` equal to visibleFrom) are held by shape; anything else keeps its row', async () => {
    const { from: _f, ...noFrom } = row();
    const { to: _t, ipCountryCode: _c, ...fewer } = row({ to: 'x.example' });
    const sent = [
      row(),
      row({ reportId: 'r-1', to: 'outlook.com' }),
      noFrom,
      fewer,
      row({ dkims: [] }),
      row({ dkims: [{ domain: 'a.example', selector: 's1', result: 'pass' }, { domain: 'b.example', selector: 's2', result: 'fail' }] }),
      row({ from: 'other.example' }), // `from` not visibleFrom: kept
      row({ extra: { nested: [1, null] } }), // an undocumented field: kept
      row({ dkims: [{ selector: 's', domain: 'd.example', result: 'pass', t: 1 }] }), // a signature with more: kept
      row({ dkims: [{ selector: 's', domain: 'd.example', result: 'pass' }, { domain: 'e.example', selector: 't', result: 'pass' }] }), // two layouts: kept
      row({ rdns: 'one.example' }), // normalised by the schema: kept
    ];
    const records = await parse(sent);
    records.forEach((r, i) => assertSameRow(r, sent[i]!, i));
    assert.deepEqual(records.map((r) => r.raw === undefined), [true, true, true, true, true, true, false, false, false, false, false]);
    // One shape per key order, shared by its rows.
    assert.notEqual(records[0]!.shape, records[1]!.shape);
    const parsedAgain = await parse([row(), row(), row()]);
    assert.ok(parsedAgain.every((r) => r.shape === parsedAgain[0]!.shape && r.shape !== undefined));
    // The record's arrays are its own, not the row's.
    assert.notEqual(records[0]!.rdns, rawOf(records[0]!).rdns);
  });

  it('any rows: the row built again is the row as sent, and CSV is the same either way', async () => {
    const value = fc.oneof(fc.string(), fc.constantFrom('pass', 'fail', '', 'none', '\u2028', '\ud800', '=1+1'));
    const signature = fc.record({ selector: value, domain: value, result: value }).chain((d) =>
      fc.oneof(
        fc.constant(d as Record<string, unknown>),
        fc.constant({ domain: d.domain, result: d.result, selector: d.selector } as Record<string, unknown>),
        fc.constant({ ...d, extra: 1 } as Record<string, unknown>),
      ));
    const wireRow = fc
      .record({
        base: fc.record({ source: value, reporter: value, visibleFrom: value, returnPath: value, ipAddress: value, emails: fc.nat(), category: value, dmarc: value, alignedSpf: value, alignedDkim: value, spf: value }),
        rdns: fc.array(value, { maxLength: 3 }),
        dkims: fc.array(signature, { maxLength: 3 }),
        to: fc.option(value, { nil: undefined }),
        ipCountryCode: fc.option(value, { nil: undefined }),
        reportId: fc.option(value, { nil: undefined }),
        from: fc.option(fc.oneof(fc.constant('same'), value), { nil: undefined }),
        extra: fc.option(fc.jsonValue(), { nil: undefined, freq: 1 }),
        order: fc.array(fc.nat(), { minLength: 20, maxLength: 20 }),
        day: fc.integer({ min: 0, max: 3000 }),
      })
      .map((g) => {
        const fields: [string, unknown][] = [
          ...Object.entries(g.base),
          ['rdns', g.rdns],
          ['dkims', g.dkims],
          ['date', new Date(Date.UTC(2020, 0, 1) + g.day * 86_400_000).toISOString()],
          ...(g.to !== undefined ? [['to', g.to] as [string, unknown]] : []),
          ...(g.ipCountryCode !== undefined ? [['ipCountryCode', g.ipCountryCode] as [string, unknown]] : []),
          ...(g.reportId !== undefined ? [['reportId', g.reportId] as [string, unknown]] : []),
          ...(g.from !== undefined ? [['from', g.from === 'same' ? g.base.visibleFrom : g.from] as [string, unknown]] : []),
          ...(g.extra !== undefined ? [['extra', g.extra] as [string, unknown]] : []),
        ];
        // Any key order.
        const keyed = fields.map((f, i) => ({ f, k: g.order[i % g.order.length]! * 31 + i }));
        keyed.sort((a, b) => a.k - b.k);
        return Object.fromEntries(keyed.map((x) => x.f)) as Record<string, unknown>;
      });
    let byShape = 0;
    let byRow = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(wireRow, { minLength: 1, maxLength: 12 }), async (rows) => {
        const sent = JSON.parse(JSON.stringify(rows)) as Record<string, unknown>[];
        const records = await parse(sent);
        assert.equal(records.length, sent.length);
        records.forEach((r, i) => assertSameRow(r, sent[i]!, i));
        records.forEach((r, i) => {
          const s = sent[i]!;
          const dk = s.dkims as Record<string, unknown>[];
          const plain = Object.keys(s).every((k) => DOCUMENTED.includes(k) || (k === 'from' && s.from === s.visibleFrom))
            && dk.every((d) => JSON.stringify(Object.keys(d)) === JSON.stringify(Object.keys(dk[0]!)) && Object.keys(d).length === 3);
          assert.equal(r.raw === undefined, plain, `row ${i} held by shape exactly when it is plain`);
          if (plain) byShape++;
          else byRow++;
        });
        // CSV (extra columns included) reads the same from records held either way.
        const kept = records.map((r) => ({ ...r, raw: rawOf(r), shape: undefined }));
        assert.equal(toCsv(records), toCsv(kept));
      }),
      { numRuns: 150 },
    );
    assert.ok(byShape > 100 && byRow > 100, `both kinds of rows were tried: ${byShape} by shape, ${byRow} with their row`);
  });

  it('the disk cache stores each row as sent and reads it back as the client took it: held by shape when plain, normalised values again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmarc-raw-'));
    try {
      const cache = new DiskCache(dir, { log: () => undefined });
      // Plain, plain with reportId, an undocumented field, and values the schema normalises (rdns a lone string, `from` for visibleFrom).
      const { visibleFrom: _, ...noVisible } = row({ rdns: 'one.example', from: 'from.example' });
      const sent = [row(), row({ reportId: 'r-9' }), row({ extra: 1 }), noVisible];
      const records = await parse(sent);
      await cache.write('a', 'o', 0, 10, { records, warnings: [], rejected: { count: 0, samples: [] } }, 1);
      const file = join(cache.dir, cache.fileName('a', 'o', 0, 10));
      const lines = readFileSync(file, 'utf8').split('\n');
      assert.deepEqual(lines.slice(1, 5), sent.map((r) => JSON.stringify(r)), 'the rows as sent, key for key');
      const back = (await cache.read('a', 'o', 0, 10))!.result.records;
      back.forEach((r, i) => assertSameRow(r, sent[i]!, i));
      assert.deepEqual(back.map((r) => r.raw === undefined), records.map((r) => r.raw === undefined), 'held as the response held them');
      assert.deepEqual(back.map((r) => r.raw === undefined), [true, true, false, false]);
      assert.deepEqual(back[3]!.rdns, ['one.example']);
      assert.equal(back[3]!.visibleFrom, 'from.example');
      // A row whose own `shape` key tries to pass for one: just an undocumented field, kept in the row.
      writeFileSync(file, [lines[0], JSON.stringify({ ...sent[0]!, shape: { keys: ['__proto__', 'source'], hasFrom: false } }), ...lines.slice(2)].join('\n'));
      const again = (await cache.read('a', 'o', 0, 10))!.result.records;
      assert.equal(again[0]!.shape, undefined);
      assert.deepEqual((again[0]!.raw as Record<string, unknown>).shape, { keys: ['__proto__', 'source'], hasFrom: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a response of many key orders: a shape for each of the first 64, then rows keep their parsed object', () => {
    const cache = new ShapeCache();
    const rows: Record<string, unknown>[] = [];
    // 16 rotations of the (16) keys × with or without `to` and `reportId`, then 4 rotations reversed: 68 orders.
    const turned = (r: Record<string, unknown>, turn: number, reverse = false) => {
      const keys = Object.keys(r);
      const order = [...keys.slice(turn), ...keys.slice(0, turn)];
      return Object.fromEntries((reverse ? order.reverse() : order).map((k) => [k, r[k]]));
    };
    for (const extra of [{}, { to: 't.example' }, { reportId: 'r' }, { to: 't.example', reportId: 'r' }]) {
      for (let turn = 0; turn < 16; turn++) rows.push(turned(row(extra), turn));
    }
    for (let turn = 0; turn < 4; turn++) rows.push(turned(row(), turn, true));
    const got = rows.map((r) => cache.of(r, r.dkims as object[]));
    assert.equal(new Set(got.filter(Boolean)).size, 64);
    assert.deepEqual(got.slice(64), [undefined, undefined, undefined, undefined]);
    // A row of a known order still gets its shape, the same object.
    assert.equal(cache.of({ ...rows[5]! }, rows[5]!.dkims as object[]), got[5]);
  });

  it('rows of a few key orders in any sequence (each row matched in one pass, moving between shapes where they part): the shape is always the row’s own key order, the same object for the same order', () => {
    // Orders that share long starts and part late (an optional key at the end) or early (one in
    // the middle), keys left out, signatures with their keys in another order, extra keys.
    const base = row({ to: 't.example', reportId: 'r' });
    const all = Object.keys(base);
    const orders: string[][] = [
      all,
      all.filter((k) => k !== 'reportId'),
      all.filter((k) => k !== 'to'),
      all.filter((k) => k !== 'to' && k !== 'reportId'),
      [...all.filter((k) => k !== 'reportId'), 'reportId'].reverse(),
      all.filter((k) => k !== 'ipCountryCode'),
    ];
    const build = (order: string[], dkimOrder: number, extra: boolean): Record<string, unknown> => {
      const r: Record<string, unknown> = {};
      for (const k of order) r[k] = k === 'dkims' ? (base.dkims as Record<string, unknown>[]).map((d) => (dkimOrder ? { result: d.result, domain: d.domain, selector: d.selector } : { ...d })) : base[k];
      if (extra) r.extra = 1;
      return JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
    };
    fc.assert(
      fc.property(fc.array(fc.record({ o: fc.nat(orders.length - 1), d: fc.nat(1), x: fc.boolean() }), { minLength: 1, maxLength: 60 }), (plan) => {
        const cache = new ShapeCache();
        const seen = new Map<string, unknown>();
        for (const { o, d, x } of plan) {
          const r = build(orders[o]!, d, x);
          const shape = cache.of(r, r.dkims as object[]);
          if (x) {
            assert.equal(shape, undefined, 'a row with a key not documented keeps its object');
            continue;
          }
          assert.ok(shape, `order ${o} has a shape`);
          assert.deepEqual(shape.keys, Object.keys(r), 'the shape is the row’s own key order');
          const dk = (r.dkims as object[]).length ? Object.keys((r.dkims as object[])[0]!) : undefined;
          if (dk) assert.deepEqual(shape.dkimKeys, dk, 'and its signatures’');
          const id = `${Object.keys(r).join()}|${dk?.join() ?? ''}`;
          assert.equal(seen.get(id) ?? shape, shape, 'the same order, the same shape');
          seen.set(id, shape);
        }
      }),
      { seed: 44, numRuns: 300 },
    );
  });
});
