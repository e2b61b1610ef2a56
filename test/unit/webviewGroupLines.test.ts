import { strict as assert } from 'node:assert';
import type { Facts, MultiField, SingleField } from '../../media/webview/data/fieldTypes';
import { groupLines, NO_LINES, type GroupLine } from '../../media/webview/data/groupLines';
import { computeGroups, countGroups, sortGroups, type GroupSort, type GroupStats } from '../../media/webview/data/groups';

const SORTS: GroupSort[] = ['key', 'rows', 'emails', 'share', 'pass', 'spf', 'dkim', 'first', 'last'];
const KEYS = ['<script>', '__proto__', '', 'a', 'A', 'ä', 'b', '\u202eevil.com', '\ud800', 'x'.repeat(300), 'google.com', 'Google.com'];

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** Rows with some zero-email and undated ones (NaN rates and dates), a single and a multi-valued field. */
function data(n: number, seed: number): { facts: Facts; single: SingleField; multi: MultiField; rows: Uint32Array } {
  const r = prng(seed);
  const facts = { length: n, emails: new Float64Array(n), dateMs: new Float64Array(n), dmarcPass: new Uint8Array(n), spfAligned: new Uint8Array(n), dkimAligned: new Uint8Array(n), disposition: new Uint8Array(n) };
  const codes = new Uint32Array(n);
  const start = new Uint32Array(n + 1);
  const multiCodes: number[] = [];
  for (let i = 0; i < n; i++) {
    facts.emails[i] = r() < 0.1 ? 0 : Math.floor(r() * 50);
    facts.dateMs[i] = r() < 0.05 ? Number.NaN : Date.UTC(2026, 0, 1) + Math.floor(r() * 30) * 86_400_000;
    facts.dmarcPass[i] = r() < 0.6 ? 1 : 0;
    facts.spfAligned[i] = r() < 0.5 ? 1 : 0;
    facts.dkimAligned[i] = r() < 0.5 ? 1 : 0;
    facts.disposition[i] = Math.floor(r() * 4);
    codes[i] = Math.floor(r() * KEYS.length);
    const k = Math.floor(r() * 3);
    for (let j = 0; j < k; j++) multiCodes.push(Math.floor(r() * KEYS.length));
    start[i + 1] = multiCodes.length;
  }
  const rows = new Uint32Array(n);
  for (let i = 0; i < n; i++) rows[i] = (i * 7919) % n; // every row, shuffled
  return { facts, single: { kind: 'single', dict: KEYS, codes }, multi: { kind: 'multi', dict: KEYS, start, codes: Uint32Array.from(multiCodes) }, rows };
}

const plain = (g: GroupStats) => ({ ...g, disposition: [...g.disposition] });

describe('webview groups: counted, sorted and shown line by line', () => {
  const { facts, single, multi, rows } = data(3_001, 7);

  it('a counted table holds what computeGroups lists, and sorts as sortGroups does, every key and direction', () => {
    for (const field of [single, multi]) {
      for (const within of [undefined, { field: single, code: 3 }, { field: multi, code: KEYS.length }]) {
        const t = countGroups(rows, facts, field, within);
        const all = computeGroups(rows, facts, field, within);
        assert.deepEqual(Array.from({ length: t.count }, (_, k) => plain(t.stats(k))), all.groups.map(plain));
        assert.deepEqual([t.rows, t.emails, t.multi], [all.rows, all.emails, all.multi]);
        for (let k = 0; k < t.count; k++) assert.equal(t.indexOf(t.code(k)), k);
        assert.equal(t.indexOf(KEYS.length + 5), -1);
        for (const by of SORTS) {
          for (const d of [false, true]) {
            const order = t.sorted(by, d);
            assert.deepEqual(Array.from(order, (k) => t.code(k)), sortGroups(all.groups, by, d).map((g) => g.code), `${by} ${d}`);
            assert.equal(t.sorted(by, d), order, 'not sorted again while the sort is the same');
          }
        }
      }
    }
  });

  it('lines: level-0 groups in order, open ones followed by their subgroups, as the eager list was', () => {
    const top = countGroups(rows, facts, single);
    const order = top.sorted('emails', true);
    const subOf = (code: number) => {
      const table = countGroups(rows, facts, multi, { field: single, code });
      return { table, order: table.sorted('emails', true) };
    };
    // Open the first, a middle and the last group (given out of order).
    const openAt = [order.length - 1, 0, 4];
    const open = openAt.map((at) => ({ at, sub: subOf(top.code(order[at]!)) }));
    const lines = groupLines({ table: top, order }, true, open);
    const eager: GroupLine[] = [];
    for (let p = 0; p < order.length; p++) {
      const g = top.stats(order[p]!);
      const o = open.find((x) => x.at === p);
      eager.push({ level: 0, stats: g, expandable: true, expanded: !!o });
      if (o) for (const k of o.sub.order) eager.push({ level: 1, stats: o.sub.table.stats(k), parent: g });
    }
    assert.equal(lines.length, eager.length);
    assert.equal(lines.groups, order.length);
    const plainLine = (l: GroupLine) => ({ ...l, stats: plain(l.stats), ...(l.parent ? { parent: plain(l.parent) } : {}) });
    for (let k = 0; k < eager.length; k++) {
      assert.deepEqual(plainLine(lines.at(k)), plainLine(eager[k]!), `line ${k}`);
      const parent = eager[k]!.level === 0 ? k : eager.findIndex((l) => l.level === 0 && l.stats === eager[k]!.parent);
      assert.equal(lines.parentOf(k), parent, `parent of line ${k}`);
    }
    assert.throws(() => lines.at(eager.length), RangeError);
    assert.throws(() => lines.at(-1), RangeError);
    // Nothing open, no second field: one line a group, none expandable.
    const flat = groupLines({ table: top, order }, false, []);
    assert.equal(flat.length, order.length);
    assert.deepEqual(plainLine(flat.at(2)), { level: 0, stats: plain(top.stats(order[2]!)), expandable: false, expanded: false });
    assert.equal(NO_LINES.length, 0);
  });

  it('a million distinct values: counted into typed arrays, sorted, and only the lines asked for made', () => {
    const n = 1_000_000;
    const dict = Array.from({ length: n }, (_, i) => `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`);
    const codes = new Uint32Array(n);
    const f = { length: n, emails: new Float64Array(n), dateMs: new Float64Array(n), dmarcPass: new Uint8Array(n), spfAligned: new Uint8Array(n), dkimAligned: new Uint8Array(n), disposition: new Uint8Array(n) };
    const all = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      codes[i] = i;
      f.emails[i] = i % 1000;
      all[i] = i;
    }
    const t = countGroups(all, f, { kind: 'single', dict, codes });
    assert.equal(t.count, n);
    const order = t.sorted('emails', true);
    const lines = groupLines({ table: t, order }, false, []);
    assert.equal(lines.length, n);
    // Emails descending, ties in value order: 999 emails at rows 999, 1999, …
    assert.deepEqual([0, 1, 2].map((k) => lines.at(k).stats.key), [dict[999], dict[1999], dict[2999]]);
    assert.equal(lines.at(n - 1).stats.emails, 0);
    assert.equal(lines.at(n - 1).stats.key, dict[999_000]);
  });
});
