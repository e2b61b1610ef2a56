import { strict as assert } from 'node:assert';
import type { Facts, FieldIndex, MultiField, SingleField } from '../../media/webview/data/fieldTypes';
import { computeGroups, dkimRate, passRate, rowsInGroup, sortGroups, spfRate, type GroupSort, type GroupStats } from '../../media/webview/data/groups';
import { networkKey } from '../../media/webview/data/network';
import { bucketIndex, bucketRange, bucketStarts, computeTrend, labelStart, shareOf, trendUnit, type Trend, type TrendUnit } from '../../media/webview/data/trend';

const HOUR = 3_600_000;
const DAY = 86_400_000;

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE = ['<script>alert(1)</script>', '__proto__', 'constructor', 'toString', '\u202eevil.com', 'a\u0000b', '', 'x'.repeat(5000), '\ud800', 'z\udfff', 'Google', 'google', 'mail.example.com', 'b', 'a', 'ä', 'A'];

/** A class index per row (0–3, some 255: outside the vocabulary), from a seed. */
function classesOf(n: number, seed: number): Uint8Array {
  const r = prng(seed);
  return Uint8Array.from({ length: n }, () => {
    const u = r();
    return u < 0.05 ? 255 : Math.floor(u * 4);
  });
}

interface Row { emails: number; date: number; pass: number; spf: number; dkim: number; disp: number; src: string; tags: string[] }

/** Rows dated around [lo, hi]: some on the bounds and on bucket edges, some outside, some undated. */
function makeRows(seed: number, count: number, lo: number, hi: number): Row[] {
  const r = prng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  const rows: Row[] = [];
  for (let i = 0; i < count; i++) {
    const u = r();
    const date = u < 0.08 ? Number.NaN : u < 0.16 ? pick([lo, hi, lo - 1, hi + 1, Math.ceil(lo / DAY) * DAY, Math.floor(hi / HOUR) * HOUR]) : Math.floor(lo - 2 * DAY + r() * (hi - lo + 4 * DAY));
    const tags: string[] = [];
    const nt = Math.floor(r() * 4);
    for (let k = 0; k < nt; k++) tags.push(pick(HOSTILE));
    if (nt > 0 && r() < 0.2) tags.push(tags[0]!); // a duplicated value inside one row
    const spf = r() < 0.6 ? 1 : 0;
    const dkim = r() < 0.5 ? 1 : 0;
    rows.push({ emails: r() < 0.05 ? 0 : Math.floor(r() * 50) + 1, date, pass: spf | dkim, spf, dkim, disp: Math.floor(r() * 5), src: pick(HOSTILE.slice(0, 12)), tags });
  }
  return rows;
}

function factsOf(rows: Row[]): Facts {
  const n = rows.length + 5; // arrays may be longer than `length`
  const f = { length: rows.length, emails: new Float64Array(n).fill(1e9), dateMs: new Float64Array(n), dmarcPass: new Uint8Array(n), spfAligned: new Uint8Array(n), dkimAligned: new Uint8Array(n), disposition: new Uint8Array(n) };
  rows.forEach((row, i) => {
    [f.emails[i], f.dateMs[i], f.dmarcPass[i], f.spfAligned[i], f.dkimAligned[i], f.disposition[i]] = [row.emails, row.date, row.pass, row.spf, row.dkim, Math.min(row.disp, 3)];
  });
  return f;
}

/** Dictionary coding by hand. */
function singleField(values: string[]): SingleField {
  const dict: string[] = [];
  const index = new Map<string, number>();
  const codes = new Uint32Array(values.length + 3);
  values.forEach((v, i) => {
    if (!index.has(v)) index.set(v, dict.push(v) - 1);
    codes[i] = index.get(v)!;
  });
  return { kind: 'single', dict, codes };
}

/** CSR coding; `dedupe: false` keeps a row's duplicated values (the functions must count them once anyway). */
function multiField(values: string[][], dedupe = true): MultiField {
  const dict: string[] = [];
  const index = new Map<string, number>();
  const start = new Uint32Array(values.length + 1);
  const codes: number[] = [];
  values.forEach((vs, i) => {
    for (const v of dedupe ? [...new Set(vs)] : vs) {
      if (!index.has(v)) index.set(v, dict.push(v) - 1);
      codes.push(index.get(v)!);
    }
    start[i + 1] = codes.length;
  });
  return { kind: 'multi', dict, start, codes: Uint32Array.from(codes) };
}

/** A row's values as ids: 'v:<value>', or 'none' for a multi-valued row without any. */
const NONE = 'none';
function idsOf(row: Row, multi: boolean): string[] {
  if (!multi) return [`v:${row.src}`];
  return row.tags.length ? [...new Set(row.tags)].map((t) => `v:${t}`) : [NONE];
}
const keyOfId = (id: string): string => (id === NONE ? '' : id.slice(2));
const codeOfId = (field: FieldIndex, id: string): number => (id === NONE ? field.dict.length : field.dict.indexOf(id.slice(2)));

function shuffledSubset(seed: number, n: number): Uint32Array {
  const r = prng(seed);
  const kept = Array.from({ length: n }, (_, i) => i).filter(() => r() < 0.85);
  return Uint32Array.from(kept.map((i) => ({ i, k: r() })).sort((a, b) => a.k - b.k).map((x) => x.i));
}

// ---- the trend, the slow and obvious way (calendar arithmetic through Date) ----

const parts = (ms: number): number[] => [new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), new Date(ms).getUTCDate(), new Date(ms).getUTCHours()];
function naiveStart(ms: number, unit: TrendUnit): number {
  const [y, m, day, h] = parts(ms) as [number, number, number, number];
  return unit === 'hour' ? Date.UTC(y, m, day, h) : Date.UTC(y, m, day - (unit === 'day' ? 0 : (new Date(ms).getUTCDay() + 6) % 7));
}
function naiveNext(s: number, unit: TrendUnit): number {
  const [y, m, day, h] = parts(s) as [number, number, number, number];
  return unit === 'hour' ? Date.UTC(y, m, day, h + 1) : Date.UTC(y, m, day + (unit === 'day' ? 1 : 7));
}
function naiveStarts(lo: number, hi: number, unit: TrendUnit): number[] {
  const out: number[] = [];
  for (let s = naiveStart(lo, unit); s <= hi; s = naiveNext(s, unit)) out.push(s);
  return out;
}
function naiveBucket(ms: number, starts: number[], unit: TrendUnit): number {
  return starts.findIndex((s) => s <= ms && ms < naiveNext(s, unit));
}

interface NaiveTrend { totals: number[]; rowsTotals: number[]; outside: { rows: number; emails: number }; series: { key: string; code: number; values: number[] }[] }

function naiveTrend(data: Row[], idx: Uint32Array, lo: number, hi: number, unit: TrendUnit, field?: FieldIndex, pickOpts: { top?: number; keys?: number[] } = {}): NaiveTrend {
  const starts = naiveStarts(lo, hi, unit);
  const totals = starts.map(() => 0);
  const rowsTotals = starts.map(() => 0);
  const outside = { rows: 0, emails: 0 };
  const inRange: { row: Row; b: number }[] = [];
  for (const i of idx) {
    const row = data[i]!;
    if (!(row.date >= lo && row.date <= hi)) [outside.rows, outside.emails] = [outside.rows + 1, outside.emails + row.emails];
    else {
      const b = naiveBucket(row.date, starts, unit);
      [totals[b], rowsTotals[b]] = [totals[b]! + row.emails, rowsTotals[b]! + 1];
      inRange.push({ row, b });
    }
  }
  if (!field) return { totals, rowsTotals, outside, series: [{ key: 'emails', code: -2, values: totals.slice() }] };
  const multi = field.kind === 'multi';
  const byId = new Map<string, number>();
  for (const { row } of inRange) for (const id of idsOf(row, multi)) byId.set(id, (byId.get(id) ?? 0) + row.emails);
  let chosen: string[];
  if (pickOpts.keys) chosen = pickOpts.keys.map((c) => (c === field.dict.length ? NONE : `v:${field.dict[c]}`));
  else {
    // Most emails first, then the key in code-unit order, then "no value" after a value ''.
    const rank = (id: string): [number, string, number] => [-byId.get(id)!, keyOfId(id), id === NONE ? 1 : 0];
    const cmp = (a: string, b: string): number => {
      const [x, y] = [rank(a), rank(b)];
      return x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : x[2] - y[2]);
    };
    chosen = [...byId.keys()].sort(cmp).slice(0, pickOpts.top ?? 8);
  }
  const series = chosen.map((id) => ({ key: keyOfId(id), code: codeOfId(field, id), values: starts.map(() => 0) }));
  const other = starts.map(() => 0);
  let hasOther = false;
  for (const { row, b } of inRange) {
    const ids = idsOf(row, multi);
    chosen.forEach((id, s) => {
      if (ids.includes(id)) series[s]!.values[b]! += row.emails;
    });
    if (ids.some((id) => !chosen.includes(id))) [other[b], hasOther] = [other[b]! + row.emails, true];
  }
  if (hasOther) series.push({ key: 'other', code: -1, values: other });
  return { totals, rowsTotals, outside, series };
}

function plain(t: Trend): NaiveTrend {
  return { totals: [...t.totals], rowsTotals: [...t.rowsTotals], outside: t.outside, series: t.series.map((s) => ({ key: s.key, code: s.code, values: [...s.values] })) };
}

const RANGES: { name: string; lo: number; hi: number; unit: TrendUnit }[] = [
  { name: 'hours, starting mid-hour, exactly two days', lo: Date.UTC(2025, 2, 10, 13, 37, 12, 345), hi: Date.UTC(2025, 2, 12, 13, 37, 12, 344), unit: 'hour' },
  { name: 'hours, one aligned day', lo: Date.UTC(2025, 2, 10), hi: Date.UTC(2025, 2, 11) - 1, unit: 'hour' },
  { name: 'days, starting mid-day', lo: Date.UTC(2025, 0, 15, 9, 30), hi: Date.UTC(2025, 1, 20, 17), unit: 'day' },
  { name: 'days, aligned month', lo: Date.UTC(2025, 5, 1), hi: Date.UTC(2025, 6, 1) - 1, unit: 'day' },
  { name: 'weeks, starting mid-week and mid-day', lo: Date.UTC(2024, 0, 3, 15), hi: Date.UTC(2025, 3, 9, 12), unit: 'week' },
  { name: 'weeks, across 1970 (negative instants)', lo: Date.UTC(1969, 5, 4, 5), hi: Date.UTC(1970, 3, 1), unit: 'week' },
];

describe('webview analysis: trend', () => {
  it('picks the unit from the span (end inclusive)', () => {
    const t0 = Date.UTC(2025, 0, 1);
    assert.equal(trendUnit(t0, t0), 'hour');
    assert.equal(trendUnit(t0, t0 + 2 * DAY - 1), 'hour');
    assert.equal(trendUnit(t0, t0 + 2 * DAY), 'day');
    assert.equal(trendUnit(t0, t0 + 180 * DAY - 1), 'day');
    assert.equal(trendUnit(t0, t0 + 180 * DAY), 'week');
  });

  for (const { name, lo, hi, unit } of RANGES) {
    describe(name, () => {
      const data = makeRows(lo % 9973, 3000, lo, hi);
      const facts = factsOf(data);
      const idx = shuffledSubset(7, data.length);
      const single = singleField(data.map((r) => r.src));
      const multi = multiField(data.map((r) => r.tags));
      const multiRaw = multiField(data.map((r) => r.tags), false);

      it('has the buckets the calendar gives, found by index and turned back into ranges', () => {
        assert.equal(trendUnit(lo, hi), unit);
        const starts = bucketStarts(lo, hi, unit);
        const expected = naiveStarts(lo, hi, unit);
        assert.deepEqual([...starts], expected);
        if (unit === 'week') assert.ok(expected.every((s) => new Date(s).getUTCDay() === 1));
        for (const row of data) assert.equal(bucketIndex(row.date, starts, unit), Number.isNaN(row.date) ? -1 : naiveBucket(row.date, expected, unit), String(row.date));
        const after = naiveNext(expected[expected.length - 1]!, unit);
        assert.equal(bucketIndex(after, starts, unit), -1);
        assert.equal(bucketIndex(expected[0]! - 1, starts, unit), -1);
        const last = expected.length - 1;
        assert.deepEqual(bucketRange(starts, unit, 0, last), { startMs: expected[0], endMs: after - 1 });
        assert.deepEqual(bucketRange(starts, unit, 1, 1), { startMs: expected[1], endMs: expected[2]! - 1 });
      });

      it('totals each bucket, with undated and out-of-range rows apart', () => {
        const t = computeTrend(idx, facts, { startMs: lo, endMs: hi });
        assert.equal(t.unit, unit);
        assert.deepEqual(plain(t), naiveTrend(data, idx, lo, hi, unit));
        assert.ok(t.outside.rows > 0);
      });

      for (const top of [8, 3, 0, 100]) {
        it(`stacks a single-valued split: top ${top} and other`, () => {
          const t = computeTrend(idx, facts, { startMs: lo, endMs: hi }, single, { top });
          assert.deepEqual(plain(t), naiveTrend(data, idx, lo, hi, unit, single, { top }));
        });
        it(`stacks a multi-valued split: top ${top} and other, rows without a value as ''`, () => {
          const expected = naiveTrend(data, idx, lo, hi, unit, multi, { top });
          assert.deepEqual(plain(computeTrend(idx, facts, { startMs: lo, endMs: hi }, multi, { top })), expected);
          assert.deepEqual(plain(computeTrend(idx, facts, { startMs: lo, endMs: hi }, multiRaw, { top })), expected);
        });
      }

      it('draws exactly the given keys, in order, plus other', () => {
        const keys = [multi.dict.indexOf('__proto__'), multi.dict.length, multi.dict.indexOf('')];
        const t = computeTrend(idx, facts, { startMs: lo, endMs: hi }, multi, { keys });
        assert.deepEqual(t.series.map((s) => s.key), ['__proto__', '', '', 'other']);
        assert.deepEqual(plain(t), naiveTrend(data, idx, lo, hi, unit, multi, { keys }));
        const s1 = [single.dict.indexOf('constructor'), single.dict.indexOf('Google')];
        assert.deepEqual(plain(computeTrend(idx, facts, { startMs: lo, endMs: hi }, single, { keys: s1 })), naiveTrend(data, idx, lo, hi, unit, single, { keys: s1 }));
      });

      it('turns series into shares of the bucket total', () => {
        for (const field of [single, multi]) {
          const t = computeTrend(idx, facts, { startMs: lo, endMs: hi }, field, { top: 4 });
          const s = shareOf(t);
          const n = naiveTrend(data, idx, lo, hi, unit, field, { top: 4 });
          assert.deepEqual(s.series.map((x) => [...x.values]), n.series.map((x) => x.values.map((v, b) => (n.totals[b]! > 0 ? v / n.totals[b]! : 0))));
          assert.deepEqual([...s.totals], n.totals);
          assert.ok(s.series.every((x) => x.values.every((v) => v >= 0 && v <= 1)));
        }
      });
    });
  }

  it('counts zero rows and empty ranges without failing', () => {
    const facts = factsOf([]);
    const t = computeTrend(new Uint32Array(0), facts, { startMs: Date.UTC(2025, 0, 1), endMs: Date.UTC(2025, 0, 3) }, singleField([]));
    assert.deepEqual(plain(t), { totals: [0, 0, 0], rowsTotals: [0, 0, 0], outside: { rows: 0, emails: 0 }, series: [] });
    assert.equal(bucketStarts(10, 5, 'day').length, 0);
    assert.equal(bucketIndex(5, new Float64Array(0), 'day'), -1);
  });
});

// ---- groups, the slow and obvious way ----

interface NaiveGroup { code: number; key: string; rows: number; emails: number; passEmails: number; spfEmails: number; dkimEmails: number; disposition: number[]; firstMs: number; lastMs: number }

function naiveGroups(data: Row[], idx: Uint32Array, field: FieldIndex, within?: { field: FieldIndex; code: number }): { groups: NaiveGroup[]; rows: number; emails: number; multi: boolean } {
  const multi = field.kind === 'multi';
  const byId = new Map<string, NaiveGroup>();
  let rows = 0;
  let emails = 0;
  for (const i of idx) {
    const row = data[i]!;
    if (within && !idsOf(row, within.field.kind === 'multi').some((id) => codeOfId(within.field, id) === within.code)) continue;
    rows++;
    emails += row.emails;
    for (const id of idsOf(row, multi)) {
      let g = byId.get(id);
      if (!g) byId.set(id, (g = { code: codeOfId(field, id), key: keyOfId(id), rows: 0, emails: 0, passEmails: 0, spfEmails: 0, dkimEmails: 0, disposition: [0, 0, 0, 0], firstMs: Number.NaN, lastMs: Number.NaN }));
      [g.rows, g.emails] = [g.rows + 1, g.emails + row.emails];
      [g.passEmails, g.spfEmails, g.dkimEmails] = [g.passEmails + row.pass * row.emails, g.spfEmails + row.spf * row.emails, g.dkimEmails + row.dkim * row.emails];
      g.disposition[Math.min(row.disp, 3)]! += row.emails;
      if (!Number.isNaN(row.date)) {
        g.firstMs = Number.isNaN(g.firstMs) ? row.date : Math.min(g.firstMs, row.date);
        g.lastMs = Number.isNaN(g.lastMs) ? row.date : Math.max(g.lastMs, row.date);
      }
    }
  }
  return { groups: [...byId.values()].sort((a, b) => a.code - b.code), rows, emails, multi };
}

// Without a judge every mix is empty and no group has a verdict (checked in their own test).
const plainGroup = ({ mix, verdict, ...g }: GroupStats): NaiveGroup => {
  assert.ok(mix.every((x) => x === 0) && verdict === '');
  return { ...g, disposition: [...g.disposition] };
};

describe('webview analysis: where a trend bucket is labelled', () => {
  it('by the part inside the range: the week of Monday 27 Oct reads 1 Nov for a range from Saturday 1 Nov (issue 43)', () => {
    const range = { startMs: Date.UTC(2025, 10, 1), endMs: Date.UTC(2026, 5, 30, 23, 59, 59, 999) };
    const t = computeTrend(new Uint32Array(0), factsOf([]), range);
    assert.equal(t.unit, 'week');
    assert.equal(t.starts[0], Date.UTC(2025, 9, 27));
    assert.equal(labelStart(t, 0), Date.UTC(2025, 10, 1));
    assert.equal(labelStart(t, 1), Date.UTC(2025, 10, 3));
    // A range starting on a bucket's start, and hours, are labelled by their own starts.
    const days = computeTrend(new Uint32Array(0), factsOf([]), { startMs: Date.UTC(2025, 10, 1, 5), endMs: Date.UTC(2025, 10, 2, 23) });
    assert.equal(days.unit, 'hour');
    assert.equal(labelStart(days, 0), Date.UTC(2025, 10, 1, 5));
  });
});

describe('webview analysis: groups', () => {
  const lo = Date.UTC(2025, 0, 1);
  const data = makeRows(42, 4000, lo, lo + 60 * DAY);
  const facts = factsOf(data);
  const idx = shuffledSubset(3, data.length);
  const single = singleField(data.map((r) => r.src));
  const multi = multiField(data.map((r) => r.tags));
  const multiRaw = multiField(data.map((r) => r.tags), false);

  it('groups by a single-valued field', () => {
    const r = computeGroups(idx, facts, single);
    assert.deepEqual({ ...r, groups: r.groups.map(plainGroup) }, naiveGroups(data, idx, single));
    assert.equal(r.multi, false);
    assert.equal(r.groups.reduce((s, g) => s + g.rows, 0), r.rows);
  });

  it('groups by a multi-valued field: each distinct value once per row, no value as its own group', () => {
    const expected = naiveGroups(data, idx, multi);
    assert.ok(expected.groups.some((g) => g.code === multi.dict.length));
    assert.ok(expected.groups.some((g) => g.key === '' && g.code < multi.dict.length));
    for (const field of [multi, multiRaw]) {
      const r = computeGroups(idx, facts, field);
      assert.deepEqual({ ...r, groups: r.groups.map(plainGroup) }, expected);
      assert.equal(r.multi, true);
    }
  });

  it('groups a second level within a group of the first', () => {
    const cases: { field: FieldIndex; within: { field: FieldIndex; code: number } }[] = [
      { field: multi, within: { field: single, code: single.dict.indexOf('<script>alert(1)</script>') } },
      { field: single, within: { field: multi, code: multi.dict.indexOf('\u202eevil.com') } },
      { field: single, within: { field: multiRaw, code: multiRaw.dict.length } },
      { field: multi, within: { field: multi, code: multi.dict.indexOf('x'.repeat(5000)) } },
      { field: single, within: { field: single, code: single.dict.length } },
    ];
    for (const { field, within } of cases) {
      const r = computeGroups(idx, facts, field, within);
      assert.deepEqual({ ...r, groups: r.groups.map(plainGroup) }, naiveGroups(data, idx, field, within));
    }
    assert.deepEqual(computeGroups(idx, facts, single, { field: single, code: single.dict.length }).groups, []);
  });

  it('judges each group from its mix: emails per class summed by hand, Compliant at the share, else the most failing class (ties: needs fixing, unauthenticated, forwarded)', () => {
    const classes = classesOf(data.length, 5);
    const naiveVerdict = (mix: number[], bar: number): string => {
      const total = mix[0]! + mix[1]! + mix[2]! + mix[3]!;
      if (total === 0) return '';
      if (mix[0]! >= bar * total) return 'compliant';
      const [f, nf, u] = [mix[1]!, mix[2]!, mix[3]!];
      return nf >= u && nf >= f ? 'needs-fixing' : u >= f ? 'unauthenticated' : 'forwarded';
    };
    for (const bar of [0, 0.5, 0.98, 1]) {
      for (const field of [single, multi]) {
        const r = computeGroups(idx, facts, field, undefined, { classes, compliant: bar });
        const expected = naiveGroups(data, idx, field);
        assert.equal(r.groups.length, expected.groups.length);
        r.groups.forEach((g, k) => {
          const mix = [0, 0, 0, 0];
          const id = expected.groups[k]!;
          for (const i of idx) {
            const inGroup = field.kind === 'single' ? field.codes[i] === g.code : idsOf(data[i]!, true).some((x) => codeOfId(field, x) === g.code);
            if (inGroup && classes[i]! < 4) mix[classes[i]!]! += data[i]!.emails;
          }
          assert.equal(g.code, id.code);
          assert.deepEqual([...g.mix], mix, `mix of ${g.key}`);
          assert.equal(g.verdict, naiveVerdict(mix, bar), `verdict of ${g.key} at ${bar}`);
        });
      }
    }
    // Ties between failing classes, by hand.
    const tie = singleField(['s', 's', 's']);
    const tfacts = factsOf([{ ...data[0]!, emails: 5 }, { ...data[0]!, emails: 5 }, { ...data[0]!, emails: 5 }]);
    const three = new Uint32Array([0, 1, 2]);
    assert.equal(computeGroups(three, tfacts, tie, undefined, { classes: Uint8Array.of(1, 2, 3), compliant: 0.98 }).groups[0]!.verdict, 'needs-fixing');
    assert.equal(computeGroups(three, tfacts, tie, undefined, { classes: Uint8Array.of(1, 3, 255), compliant: 0.98 }).groups[0]!.verdict, 'unauthenticated');
    assert.equal(computeGroups(three, tfacts, tie, undefined, { classes: Uint8Array.of(255, 255, 255), compliant: 0.98 }).groups[0]!.verdict, '');
  });

  it('gives rates by emails, NaN without emails', () => {
    const g = computeGroups(idx, facts, single).groups[0]!;
    assert.deepEqual([passRate(g), spfRate(g), dkimRate(g)], [g.passEmails / g.emails, g.spfEmails / g.emails, g.dkimEmails / g.emails]);
    const zero = { ...g, emails: 0, passEmails: 0, spfEmails: 0, dkimEmails: 0 };
    assert.ok(Number.isNaN(passRate(zero)) && Number.isNaN(spfRate(zero)) && Number.isNaN(dkimRate(zero)));
  });

  it('sorts stably in both directions, NaN last', () => {
    const mk = (code: number, key: string, emails: number, passEmails: number, firstMs: number): GroupStats => ({ code, key, rows: code + 1, emails, passEmails, spfEmails: 0, dkimEmails: emails, disposition: new Float64Array(4), firstMs, lastMs: firstMs, mix: new Float64Array(4), verdict: '' });
    const gs = [mk(0, 'b', 10, 5, 3), mk(1, 'a', 0, 0, Number.NaN), mk(2, 'c', 20, 10, 1), mk(3, 'B', 4, 4, 3), mk(4, 'a', 10, 0, Number.NaN)];
    const codes = (by: GroupSort, d: boolean): number[] => sortGroups(gs, by, d).map((g) => g.code);
    const table: [GroupSort, boolean, number[]][] = [['pass', false, [4, 0, 2, 3, 1]], ['pass', true, [3, 0, 2, 4, 1]], ['emails', true, [2, 0, 4, 3, 1]],
      ['share', false, [1, 3, 0, 4, 2]], ['first', false, [2, 0, 3, 1, 4]], ['last', true, [0, 3, 2, 1, 4]], ['dkim', true, [0, 2, 3, 4, 1]],
      ['spf', false, [0, 2, 3, 4, 1]], ['rows', true, [4, 3, 2, 1, 0]]];
    for (const [by, d, expected] of table) assert.deepEqual(codes(by, d), expected, `${by} ${d}`);
    const coll = new Intl.Collator(undefined);
    assert.deepEqual(sortGroups(gs, 'key', false).map((g) => g.key), gs.map((g) => g.key).sort(coll.compare));
    assert.deepEqual(codes('key', false).filter((c) => gs[c]!.key === 'a'), [1, 4]);
    assert.deepEqual(codes('key', true).filter((c) => gs[c]!.key === 'a'), [1, 4]);
    assert.deepEqual(gs.map((g) => g.code), [0, 1, 2, 3, 4]); // the input is left alone

    // On generated groups, against an insertion sort (stable by construction) with NaN never before a number.
    const groups = computeGroups(idx, facts, multi, undefined, { classes: classesOf(data.length, 9), compliant: 0.5 }).groups;
    const rank: Record<string, number> = { 'needs-fixing': 4, unauthenticated: 3, forwarded: 2, compliant: 1 };
    const value: Record<GroupSort, (g: GroupStats) => number> = {
      key: () => 0, rows: (g) => g.rows, emails: (g) => g.emails, share: (g) => g.emails, pass: passRate, spf: spfRate, dkim: dkimRate,
      verdict: (g) => rank[g.verdict] ?? Number.NaN, first: (g) => g.firstMs, last: (g) => g.lastMs,
    };
    for (const by of Object.keys(value) as GroupSort[]) {
      for (const d of [false, true]) {
        const v = value[by];
        const less = (a: GroupStats, b: GroupStats): boolean => {
          if (by === 'key') return d ? coll.compare(a.key, b.key) > 0 : coll.compare(a.key, b.key) < 0;
          const [x, y] = [v(a), v(b)];
          return !Number.isNaN(x) && (Number.isNaN(y) || (d ? x > y : x < y));
        };
        const expected: GroupStats[] = [];
        for (const g of groups) {
          let j = expected.length;
          while (j > 0 && less(g, expected[j - 1]!)) j--;
          expected.splice(j, 0, g);
        }
        assert.deepEqual(sortGroups(groups, by, d).map((g) => g.code), expected.map((g) => g.code), `${by} ${d}`);
      }
    }
  });

  it('lists the rows of a group in their order', () => {
    for (const field of [single, multi, multiRaw]) {
      for (let code = 0; code <= field.dict.length; code++) {
        const expected = [...idx].filter((i) => idsOf(data[i]!, field.kind === 'multi').some((id) => codeOfId(field, id) === code));
        assert.deepEqual([...rowsInGroup(idx, field, code)], expected);
      }
    }
  });
});

describe('webview analysis: networkKey', () => {
  const cases: [string, string][] = [
    ['192.0.2.1', '192.0.2.0/24'], ['0.0.0.0', '0.0.0.0/24'], ['255.255.255.255', '255.255.255.0/24'], ['10.20.30.40', '10.20.30.0/24'],
    ['01.2.3.4', '01.2.3.4'], ['1.2.3.04', '1.2.3.04'], ['999.1.1.1', '999.1.1.1'], ['256.1.1.1', '256.1.1.1'], ['1.2.3', '1.2.3'],
    ['1.2.3.4.5', '1.2.3.4.5'], [' 1.2.3.4', ' 1.2.3.4'], ['1.2.3.4\n', '1.2.3.4\n'], ['١.2.3.4', '١.2.3.4'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::/64'], ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'], ['2001:DB8:0:0:1::1', '2001:db8::/64'],
    ['2001:db8:0:1::', '2001:db8:0:1::/64'], ['0:0:0:1::', '0:0:0:1::/64'], ['1:0:0:0:5::', '1::/64'], ['1:0:2:0::', '1:0:2::/64'],
    ['FE80::ABCD:1', 'fe80::/64'], ['::', '::/64'], ['::1', '::/64'], ['1::', '1::/64'], ['::ffff:192.0.2.1', '::/64'],
    ['64:ff9b:1:2:3:4:192.0.2.1', '64:ff9b:1:2::/64'], ['1:2:3:4:5:6:7::', '1:2:3:4::/64'], ['fe80::1%eth0', 'fe80::1%eth0'], ['::1::2', '::1::2'],
    [':::', ':::'], ['1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7:8:9'], ['1:2:3:4:5:6:7', '1:2:3:4:5:6:7'], ['1:2:3:4:5:6:7:8::', '1:2:3:4:5:6:7:8::'],
    ['1:2:3:4:5:6::1.2.3.4', '1:2:3:4:5:6::1.2.3.4'], ['::ffff:999.0.2.1', '::ffff:999.0.2.1'], ['::ffff:1.2.3', '::ffff:1.2.3'], ['12345::', '12345::'],
    ['g::1', 'g::1'], [':1:2:3:4:5:6:7', ':1:2:3:4:5:6:7'], ['', ''], ['<script>', '<script>'], ['__proto__', '__proto__'],
    ['mail.example.com', 'mail.example.com'], ['\u202e1.2.3.4', '\u202e1.2.3.4'],
  ];
  for (const [ip, key] of cases) it(`${JSON.stringify(ip)} -> ${JSON.stringify(key)}`, () => assert.equal(networkKey(ip), key));
});
