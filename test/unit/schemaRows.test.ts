// The pure body → records step, row by row: normalisation, optional fields, dates, rejects and
// warnings, the fast path against the zod schema, validation in chunks.
import { strict as assert } from 'node:assert';
import { ApiError, normaliseRows, parseIsoDateMs, utcDayRange, type DkimEntry } from '../../src/api';
import { fastRecord, normaliseRow, zodRecord } from '../../src/api/schema';
import { rawOf } from '../../src/api/rawRow';
import { StringPool } from '../../src/api/stringPool';
import { ORGANIZATIONS, generateDay } from '../server/data';
import { parse, parseBody, row, withTicks, without } from './schemaHelpers';

describe('api schema: rows', () => {
  it('normalises a row; raw is the parsed object itself, unknown fields included', async () => {
    const text = JSON.stringify([row({ policyOverride: 'forwarded', extra: { nested: [1, 2] } })]);
    const rows = JSON.parse(text) as Record<string, unknown>[];
    const res = await normaliseRows(rows);
    const [r] = res.records;
    assert.ok(r);
    assert.equal(r.raw, rows[0], 'the same object, not a copy');
    assert.deepEqual(r.raw.extra, { nested: [1, 2] });
    assert.equal(r.raw.policyOverride, 'forwarded');
    assert.equal(r.dateMs, Date.parse('2025-06-10T00:00:00.000Z'));
    assert.deepEqual(r.rdns, ['mail-sor-f41.google.com']);
    assert.equal(r.to, undefined);
    assert.equal(r.reportId, undefined);
  });

  it('rdns: a list; a lone string → one-element list; "" → []', async () => {
    const res = await parse([row({ rdns: [] }), row({ rdns: ['a.example', 'b.example'] }), row({ rdns: 'mx.example' }), row({ rdns: '' })]);
    assert.deepEqual(res.records.map((r) => r.rdns), [[], ['a.example', 'b.example'], ['mx.example'], []]);
    assert.equal(res.rejected.count, 0);
  });

  it('`from` stands in for a missing visibleFrom; visibleFrom wins when both are present', async () => {
    const res = await parse([without('visibleFrom', { from: 'other.example' }), row({ visibleFrom: 'acme.com', from: 'other.example' })]);
    assert.deepEqual(res.records.map((r) => r.visibleFrom), ['other.example', 'acme.com']);
    const neither = await parse([without('visibleFrom', { from: undefined })]);
    assert.equal(neither.rejected.count, 1);
    assert.match(neither.rejected.samples[0]!.reason, /visibleFrom is missing/);
  });

  it('optional to, ipCountryCode, reportId: present, absent or null', async () => {
    const res = await parse([
      row({ to: 'hotmail.com', ipCountryCode: 'IE', reportId: 'r-1' }),
      without('ipCountryCode'),
      row({ to: null, ipCountryCode: null, reportId: null }),
    ]);
    assert.equal(res.rejected.count, 0);
    assert.deepEqual(res.records.map((r) => [r.to, r.ipCountryCode, r.reportId]), [
      ['hotmail.com', 'IE', 'r-1'],
      [undefined, undefined, undefined],
      [undefined, undefined, undefined],
    ]);
  });

  it('dates: ISO 8601 forms are read as UTC whatever the local zone; other strings are rejected', () => {
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'America/New_York';
      const noon = Date.parse('2025-06-10T12:00:00.000Z');
      assert.equal(parseIsoDateMs('2025-06-10T12:00:00.000Z'), noon);
      assert.equal(parseIsoDateMs('2025-06-10T12:00:00Z'), noon);
      assert.equal(parseIsoDateMs('2025-06-10T12:00:00'), noon);
      assert.equal(parseIsoDateMs('2025-06-10 12:00'), noon);
      assert.equal(parseIsoDateMs('2025-06-10T14:00:00+02:00'), noon);
      assert.equal(parseIsoDateMs('2025-06-10T14:00:00+0200'), noon);
      assert.equal(parseIsoDateMs('2025-06-10T07:00:00.000-05'), noon);
      assert.equal(parseIsoDateMs('2025-06-10T12:00:00.123456Z'), noon + 123);
      assert.equal(parseIsoDateMs('2025-06-10'), Date.parse('2025-06-10T00:00:00Z'));
      for (const bad of ['June 10, 2025', '10/06/2025', '2025-13-01', '2025-06-10T25:00:00Z', 'yesterday', '', '1749556800000']) {
        assert.ok(Number.isNaN(parseIsoDateMs(bad)), bad);
      }
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('the digit-by-digit fast path for toISOString() dates agrees with Date.parse', () => {
    const samples = ['2025-06-10T12:34:56.789Z', '2024-02-29T23:59:59.999Z', '2025-02-30T00:00:00.000Z', '1970-01-01T00:00:00.000Z', '0099-01-01T00:00:00.000Z', '2025-06-10T24:00:00.000Z', '2025-13-10T00:00:00.000Z', '2025-06-10T12:60:00.000Z', '2025-06-1xT12:00:00.000Z', '2025/06/10T12:00:00.000Z', '+02025-06-10T12:00:00Z'];
    let seed = 1;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let i = 0; i < 2000; i++) {
      const p = (v: number, w: number) => String(v).padStart(w, '0');
      samples.push(`${p(rnd(3000), 4)}-${p(rnd(14), 2)}-${p(rnd(33), 2)}T${p(rnd(26), 2)}:${p(rnd(61), 2)}:${p(rnd(61), 2)}.${p(rnd(1000), 3)}Z`);
    }
    // Except for a day the calendar does not have (30 February), which Date.parse rolls over into
    // the next month and parseIsoDateMs refuses (issue 14).
    const exists = (s: string) => {
      const [y, m, d] = [Number(s.slice(0, 4)), Number(s.slice(5, 7)), Number(s.slice(8, 10))];
      return new Date(Date.UTC(2000 + (y % 400), m - 1, d)).getUTCDate() === d;
    };
    for (const s of samples) {
      const want = exists(s) ? Date.parse(s) : NaN;
      const got = parseIsoDateMs(s);
      assert.ok(Object.is(got, want) || (Number.isNaN(got) && Number.isNaN(want)), `${s}: ${got} vs ${want}`);
    }
  });

  it('utcDayRange gives whole UTC days, both bounds inclusive', () => {
    assert.deepEqual(utcDayRange('2024-02-28', '2024-02-29'), { startDate: '2024-02-28T00:00:00.000Z', endDate: '2024-02-29T23:59:59.999Z' });
    assert.deepEqual(utcDayRange(new Date('2025-06-10T23:30:00-02:00')), { startDate: '2025-06-11T00:00:00.000Z', endDate: '2025-06-11T23:59:59.999Z' });
    assert.throws(() => utcDayRange('nope'), RangeError);
  });

  // Rows that must be left out, and what the reason must say.
  const bad: [string, unknown, string][] = [
    ['null', null, 'the row is null, not an object'],
    ['a number', 7, 'the row is 7, not an object'],
    ['a string', 'row', 'the row is "row", not an object'],
    ['a list', [row()], 'the row is a list, not an object'],
    ['no source', without('source'), 'source is missing'],
    ['no reporter', without('reporter'), 'reporter is missing'],
    ['no returnPath', without('returnPath'), 'returnPath is missing'],
    ['no ipAddress', without('ipAddress'), 'ipAddress is missing'],
    ['no rdns', without('rdns'), 'rdns is missing'],
    ['no emails', without('emails'), 'emails is missing'],
    ['no category', without('category'), 'category is missing'],
    ['no date', without('date'), 'date is missing'],
    ['no dmarc', without('dmarc'), 'dmarc is missing'],
    ['no alignedSpf', without('alignedSpf'), 'alignedSpf is missing'],
    ['no alignedDkim', without('alignedDkim'), 'alignedDkim is missing'],
    ['no spf', without('spf'), 'spf is missing'],
    ['no dkims', without('dkims'), 'dkims is missing'],
    ['emails as a string', row({ emails: '12' }), 'emails should be a number, got "12"'],
    ['emails negative', row({ emails: -1 }), 'emails is negative (-1)'],
    ['emails null', row({ emails: null }), 'emails should be a number, got null'],
    ['date not a date', row({ date: 'yesterday' }), 'date is not an ISO 8601 date ("yesterday")'],
    ['date impossible', row({ date: '2025-02-30T99:00:00Z' }), 'date is not an ISO 8601 date ("2025-02-30T99:00:00Z")'],
    ['date a number', row({ date: 1749556800000 }), 'date should be a string, got 1749556800000'],
    ['source a number', row({ source: 5 }), 'source should be a string, got 5'],
    ['category null', row({ category: null }), 'category should be a string, got null'],
    ['spf a number', row({ spf: 0 }), 'spf should be a string, got 0'],
    ['rdns with a number', row({ rdns: ['a', 1] }), 'rdns should be a list of strings, got a list'],
    ['rdns an object', row({ rdns: { a: 1 } }), 'rdns should be a list of strings, got an object'],
    ['dkims a string', row({ dkims: 'pass' }), 'dkims should be a list, got "pass"'],
    ['dkim entry not an object', row({ dkims: ['pass'] }), 'dkims[0] should be an object, got "pass"'],
    ['dkim entry without selector', row({ dkims: [{ domain: 'd', result: 'pass' }] }), 'dkims[0].selector is missing'],
    ['dkim result a number', row({ dkims: [{ selector: 's', domain: 'd', result: 1 }] }), 'dkims[0].result should be a string, got 1'],
    ['to a number', row({ to: 3 }), 'to should be a string, got 3'],
    ['visibleFrom a number', row({ visibleFrom: 3 }), 'visibleFrom should be a string, got 3'],
    ['emails true', row({ emails: true }), 'emails should be a number, got true'],
    ['emails an object', row({ emails: { n: 1 } }), 'emails should be a number, got an object'],
    ['emails a list', row({ emails: [1] }), 'emails should be a number, got a list'],
    ['no visibleFrom and no string from', without('visibleFrom', { from: 7 }), 'visibleFrom is missing (and there is no `from` to use instead)'],
    ['dkim domain a number', row({ dkims: [{ selector: 's', domain: 5, result: 'pass' }] }), 'dkims[0].domain should be a string, got 5'],
  ];
  for (const [name, value, re] of bad) {
    it(`leaves out a row with ${name}, with a reason`, async () => {
      const res = await normaliseRows([row(), value, row()]);
      assert.equal(res.records.length, 2, 'the valid rows around it are kept');
      assert.equal(res.rejected.count, 1);
      assert.equal(res.rejected.samples[0]!.index, 1);
      assert.equal(res.rejected.samples[0]!.reason, re);
    });
  }

  it('JSON numbers that overflow to Infinity are rejected', async () => {
    const res = await parseBody(`[${JSON.stringify(row()).replace('"emails":12', '"emails":1e400')}]`, 'application/json');
    assert.equal(res.rejected.count, 1);
    assert.match(res.rejected.samples[0]!.reason, /emails/);
  });

  it('the rejected summary counts every bad row and samples the first five, in order', async () => {
    const rows: unknown[] = [];
    for (let i = 0; i < 30; i++) rows.push(i % 3 === 0 ? null : row());
    const res = await normaliseRows(rows);
    assert.equal(res.rejected.count, 10);
    assert.equal(res.records.length, 20);
    assert.deepEqual(res.rejected.samples.map((s) => s.index), [0, 3, 6, 9, 12]);
  });

  it('unknown enum values keep the row and are aggregated per field and value', async () => {
    const rows = [
      row(),
      row({ category: 'spoofed' }),
      row({ category: 'spoofed', dmarc: 'discard' }),
      row({ spf: 'hardfail', dkims: [{ selector: 'a', domain: 'd', result: 'expired' }, { selector: 'b', domain: 'd', result: 'expired' }] }),
      row({ category: 'spoofed', alignedSpf: 'PASS', alignedDkim: 'ok' }),
    ];
    const res = await normaliseRows(rows);
    assert.equal(res.records.length, 5);
    assert.equal(res.records[1]!.category, 'spoofed', 'the value is kept as sent');
    const byKey = Object.fromEntries(res.warnings.map((w) => [`${w.field}=${w.value}`, [w.count, w.firstIndex]]));
    assert.deepEqual(byKey, {
      'category=spoofed': [3, 1],
      'dmarc=discard': [1, 2],
      'spf=hardfail': [1, 3],
      'dkims[].result=expired': [2, 3],
      'alignedSpf=PASS': [1, 4],
      'alignedDkim=ok': [1, 4],
    });
    const cat = res.warnings.find((w) => w.field === 'category')!;
    assert.equal(cat.message, 'Unknown category value "spoofed" in 3 rows (first #1); rows kept.');
    assert.equal(res.warnings.find((w) => w.field === 'dmarc')!.message, 'Unknown dmarc value "discard" in 1 row (#2); rows kept.');
  });

  it('distinct unknown values per field are capped, the rest folded into one entry', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => row({ category: `weird-${i}` }));
    const res = await normaliseRows(rows);
    assert.equal(res.records.length, 200);
    assert.equal(res.warnings.length, 51);
    const other = res.warnings.find((w) => w.message.startsWith('More unknown category values'))!;
    assert.equal(other.count, 150);
    // Per field: two fields past the cap fold into two entries, each with its own count and first row.
    const two = await normaliseRows(Array.from({ length: 60 }, (_, i) => row({ category: `c-${i}`, dmarc: `d-${i}` })));
    assert.equal(two.warnings.length, 102);
    assert.deepStrictEqual(two.warnings.filter((w) => w.value === ''), [
      { field: 'category', value: '', count: 10, firstIndex: 50, message: 'More unknown category values in 10 rows (first #50); rows kept.' },
      { field: 'dmarc', value: '', count: 10, firstIndex: 50, message: 'More unknown dmarc values in 10 rows (first #50); rows kept.' },
    ]);
    const one = await normaliseRows(Array.from({ length: 51 }, (_, i) => row({ spf: `s-${i}` })));
    assert.equal(one.warnings.at(-1)!.message, 'More unknown spf values in 1 row (#50); rows kept.');
  });

  it('the fast path and the zod schema agree on every row the fast path accepts', () => {
    const corpus: unknown[] = [];
    for (const org of ORGANIZATIONS.slice(0, 4)) for (let d = 20_000; d < 20_010; d++) corpus.push(...generateDay(org, d, 7));
    corpus.push(
      row({ to: 'x.example', reportId: '1', extra: true }),
      row({ dkims: [{ selector: 's', domain: 'd', result: 'pass', extra: 1 }] }),
      row({ category: 'spoofed', spf: '' }),
      row({ rdns: 'one' }),
      row({ to: null }),
      without('visibleFrom'),
      row({ date: '2025-06-10' }),
      row({ emails: 0 }),
      row({ emails: 2.5 }),
    );
    let fast = 0;
    for (const r of JSON.parse(JSON.stringify(corpus)) as unknown[]) {
      const f = fastRecord(r);
      const z = zodRecord(r);
      assert.ok('record' in z, 'a row the generator made is valid');
      if (!f) continue;
      fast++;
      assert.deepEqual(f, z.record);
      assert.equal(f.raw, r);
    }
    assert.ok(fast > corpus.length - 5, 'almost every row takes the fast path');
  });

  it('with a string pool (common values shared between rows), the same records and the same raw rows, odd shapes included', () => {
    const corpus: unknown[] = [];
    for (const org of ORGANIZATIONS.slice(0, 3)) for (let d = 20_000; d < 20_004; d++) corpus.push(...generateDay(org, d, 7));
    corpus.push(row({ to: 'x.example', reportId: '1', extra: true }), row({ dkims: [{ selector: 's', domain: 'd', result: 'pass', extra: 1 }, 'not an object'] }), row({ source: 7, date: null }), row({ dkims: 'none' }));
    const text = JSON.stringify(corpus);
    const plain = JSON.parse(text) as unknown[];
    const pooled = JSON.parse(text) as unknown[];
    const pool = new StringPool();
    for (let i = 0; i < plain.length; i++) {
      const a = fastRecord(plain[i]) ?? normaliseRow(plain[i]);
      const b = fastRecord(pooled[i], pool) ?? normaliseRow(pooled[i]);
      const rec = (x: typeof a) => ('reason' in x ? x : { ...('record' in x ? x.record : x), raw: undefined, shape: undefined });
      assert.deepEqual(rec(b), rec(a), `row ${i}`);
      assert.deepEqual(pooled[i], plain[i], `raw row ${i}`);
      if ('reason' in b) continue;
      const r = 'record' in b ? b.record : b;
      // The row as sent, its keys in the same order: the parsed row where it has more than the
      // documented fields (the last rows but the rejected), built again from its shape otherwise.
      assert.equal(JSON.stringify(rawOf(r)), JSON.stringify(plain[i]), `raw row ${i} as text`);
      assert.equal(r.raw === undefined, i < corpus.length - 4, `row ${i} held by shape`);
    }
  });

  it('with a string pool, records with the same signatures share one frozen list of them, and records with others never do', () => {
    const corpus: unknown[] = [];
    for (const org of ORGANIZATIONS.slice(0, 3)) for (let d = 20_000; d < 20_004; d++) corpus.push(...generateDay(org, d, 7, 500));
    // Lists a key made by joining the values with a separator would confuse.
    const odd = (selector: string, result: string) => row({ dkims: [{ selector, domain: 'a.example', result }, { selector: 's', domain: 'b.example', result: 'pass' }] });
    // A domain signed in more ways than are looked through one by one.
    for (let k = 0; k < 40; k++) corpus.push(row({ dkims: [{ selector: `s${k % 20}`, domain: 'many.example', result: 'pass' }] }));
    corpus.push(odd('x\u0000', 'pass'), odd('x', '\u0000pass'), odd('x', 'pass'), odd('x', 'pass'), row({ dkims: [] }), row({ dkims: [] }));
    const pool = new StringPool();
    const rows = JSON.parse(JSON.stringify(corpus)) as unknown[];
    const records = rows.map((r) => fastRecord(r, pool)!);
    const byList = new Map<readonly DkimEntry[], string>();
    const byText = new Map<string, readonly DkimEntry[]>();
    for (const [i, r] of records.entries()) {
      assert.ok(r.shape, `row ${i} held by shape`);
      const text = JSON.stringify(r.dkims);
      assert.equal(text, JSON.stringify((corpus[i] as { dkims: unknown }).dkims), `row ${i}: its own signatures`);
      assert.ok(Object.isFrozen(r.dkims) && r.dkims.every((d) => Object.isFrozen(d)), `row ${i}: frozen`);
      assert.equal(byList.get(r.dkims) ?? text, text, `row ${i}: a list shared only with rows that have the same signatures`);
      byList.set(r.dkims, text);
      assert.equal(byText.get(text) ?? r.dkims, r.dkims, `row ${i}: the same signatures, the same list`);
      byText.set(text, r.dkims);
    }
    assert.ok(byText.size < records.length / 5, `${byText.size} lists for ${records.length} rows`);
    assert.equal(records.at(-4)!.dkims, records.at(-3)!.dkims);
    assert.notEqual(records.at(-6)!.dkims, records.at(-5)!.dkims);
    // Never changed in place: a change would reach every record that shares the list.
    assert.throws(() => (records[0]!.dkims as DkimEntry[]).push({ selector: 's', domain: 'd', result: 'pass' }), TypeError);
    // The rows built again are the rows sent.
    for (const [i, r] of records.entries()) assert.equal(JSON.stringify(rawOf(r)), JSON.stringify(corpus[i]), `row ${i} as text`);
  });

  it('with a string pool, records share a frozen list of rDNS names only with records of the same one name or none', () => {
    const corpus: unknown[] = [];
    for (const org of ORGANIZATIONS.slice(0, 2)) for (let d = 20_000; d < 20_003; d++) corpus.push(...generateDay(org, d, 7, 300));
    // Senders that come back every 40 rows, as a busy day's rows interleave.
    for (let k = 0; k < 2000; k++) corpus.push(row({ rdns: [`mail-${k % 40}.sender.example`], returnPath: `bounce-${k % 40}.sender.example` }));
    corpus.push(row({ rdns: ['a.example', 'b.example'] }), row({ rdns: ['a.example', 'b.example'] }), row({ rdns: [] }), row({ rdns: [] }), row({ rdns: ['x.example'] }), row({ rdns: ['x.example'] }));
    const pool = new StringPool();
    const records = (JSON.parse(JSON.stringify(corpus)) as unknown[]).map((r) => fastRecord(r, pool)!);
    const byList = new Map<readonly string[], string>();
    for (const [i, r] of records.entries()) {
      assert.ok(r.shape, `row ${i} held by shape`);
      assert.deepEqual(r.rdns, (corpus[i] as { rdns: string[] }).rdns, `row ${i}: its own names`);
      assert.equal(r.returnPath, (corpus[i] as { returnPath: string }).returnPath, `row ${i}: its return path`);
      if (r.rdns.length > 1) continue;
      assert.ok(Object.isFrozen(r.rdns), `row ${i}: a shared list is frozen`);
      const text = JSON.stringify(r.rdns);
      assert.equal(byList.get(r.rdns) ?? text, text, `row ${i}: a list shared only with rows of the same names`);
      byList.set(r.rdns, text);
    }
    const senders = new Set(records.slice(-2006, -6).map((r) => r.rdns));
    assert.ok(senders.size <= 80, `${senders.size} lists for the 2,000 rows of 40 senders`);
    const [two1, two2, none1, none2, x1, x2] = records.slice(-6);
    assert.notEqual(two1!.rdns, two2!.rdns, 'two names: a list of the row\'s own');
    assert.equal(none1!.rdns, none2!.rdns);
    assert.equal(x1!.rdns, x2!.rdns);
    // Never changed in place: a change would reach every record that shares the list.
    assert.throws(() => (x1!.rdns as string[]).push('z.example'), TypeError);
    for (const [i, r] of records.entries()) assert.equal(JSON.stringify(rawOf(r)), JSON.stringify(corpus[i]), `row ${i} as text`);
  });

  it('a response of 200,000 distinct rDNS names holds a bounded number of lists to share, and still shares them', () => {
    const pool = new StringPool();
    for (let k = 0; k < 200_000; k++) pool.names([`host-${k}.example`]);
    assert.ok(pool.listsHeld <= 1 << 16, `lists held: ${pool.listsHeld}`);
    const a = pool.names(['host-199999.example']);
    assert.equal(pool.names(['host-199999.example']), a, 'a list given again is the one shared');
    assert.deepEqual(a, ['host-199999.example']);
  });

  it('a response of one DKIM domain and 200,000 selectors holds a bounded number of lists to share, and still shares them', () => {
    const pool = new StringPool();
    const list = (k: number): DkimEntry[] => [{ selector: `selector-${k}`, domain: 'one.example', result: 'pass' }];
    for (let k = 0; k < 200_000; k++) pool.signatures(list(k));
    assert.ok(pool.listsHeld <= 1 << 16, `lists held: ${pool.listsHeld}`);
    const a = pool.signatures(list(199_999));
    pool.signatures(list(3));
    assert.equal(pool.signatures(list(199_999)), a, 'a list given again is the one shared');
    assert.deepEqual(a, list(199_999));
  });

  it('validates in chunks that yield to the event loop', async () => {
    const rows = JSON.parse(JSON.stringify(generateDay(ORGANIZATIONS[0]!, 20_000, 1, 12_000))) as unknown[];
    const { result: res, ticks } = await withTicks(() => normaliseRows(rows, { chunkRows: 1000 }));
    assert.equal(res.records.length, 12_000);
    assert.ok(ticks >= 10, `other work ran ${ticks} times meanwhile`);
  });

  it('an aborted signal stops validation between chunks', async () => {
    const rows = Array.from({ length: 5000 }, () => row());
    const ac = new AbortController();
    setImmediate(() => ac.abort());
    await assert.rejects(normaliseRows(rows, { chunkRows: 100, signal: ac.signal }), (e: unknown) => e instanceof ApiError && e.kind === 'cancelled');
  });
});
