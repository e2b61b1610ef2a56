// The panel's Advice (media/webview/data/advice.ts, from the table's columns) says exactly what
// the tree's Health (src/advice/health.ts, from the records) says for the same rows: every
// source's mix, verdict, fix and figures, and readiness for the organization and each domain.
import { strict as assert } from 'node:assert';
import { periodHealth } from '../../src/advice/health';
import type { PeriodHealth } from '../../src/advice/tally';
import type { SourceMark } from '../../src/advice/marks';
import { DEFAULT_THRESHOLDS, termOf } from '../../src/advice/vocabulary';
import { normaliseRow } from '../../src/api/schema';
import type { DmarcRecord } from '../../src/api/types';
import { toTuple } from '../../src/records/tuple';
import { computeAdvice } from '../../media/webview/data/advice';
import { computeGroups } from '../../media/webview/data/groups';
import { policyText, publishedAdvice } from '../../media/webview/ui/advice';
import { RecordsModel } from '../../media/webview/data/query';
import { appendTuples } from '../../media/webview/data/tuples';
import { findOrganization, generateDay } from '../server/data';

function recordsOf(orgId: string, days: number): DmarcRecord[] {
  const org = findOrganization(orgId)!;
  const out: DmarcRecord[] = [];
  for (let d = 0; d < days; d++)
    for (const w of generateDay(org, 20_400 + d, 11)) {
      const r = normaliseRow(w);
      if ('record' in r) out.push(r.record);
    }
  return out;
}

function modelOf(records: readonly DmarcRecord[]): RecordsModel {
  const m = new RecordsModel();
  const tuples = records.map(toTuple);
  // Several chunks, as the host sends them.
  for (let k = 0; k < tuples.length; k += 700) appendTuples(m, tuples.slice(k, k + 700), tuples.length);
  return m;
}

/** What both must agree on, without the per-IP mixes (the panel keeps none). */
function comparable(h: PeriodHealth): unknown {
  return {
    mix: h.mix,
    readiness: h.readiness,
    domains: h.domains,
    sources: h.sources.map(({ ips: _ips, ...s }) => s),
  };
}

const opts = { thresholds: DEFAULT_THRESHOLDS, days: 30 };

describe('webview: Advice from the columns equals Health from the records', () => {
  for (const org of ['acme', 'wayne', 'initech', 'umbrella']) {
    it(`${org}: every source, domain and readiness figure is the same`, () => {
      const records = recordsOf(org, 30);
      const model = modelOf(records);
      const all = model.compute({ search: '', facets: {} }).order;
      assert.equal(all.length, records.length);
      const panel = computeAdvice(all, model, opts);
      const tree = periodHealth(records, opts);
      assert.ok(tree.sources.length >= 3, 'several sources');
      assert.deepStrictEqual(comparable(panel), comparable(tree));
    });
  }

  it('follows the rows given: a filtered view is judged on its rows only', () => {
    const records = recordsOf('acme', 14);
    const model = modelOf(records);
    const view = model.compute({ search: '', facets: { source: ['Mailchimp'] } });
    const panel = computeAdvice(view.order, model, opts);
    const tree = periodHealth(records.filter((r) => r.source === 'Mailchimp'), opts);
    assert.deepStrictEqual(panel.sources.map((s) => s.source), ['Mailchimp']);
    assert.deepStrictEqual(comparable(panel), comparable(tree));
  });

  it('with the owner’s marks: the same moves in both, and they do move verdicts and readiness', () => {
    for (const org of ['acme', 'wayne']) {
      const records = recordsOf(org, 30);
      const model = modelOf(records);
      const all = model.compute({ search: '', facets: {} }).order;
      const plain = periodHealth(records, opts);
      // Every non-Compliant source gets the mark that moves it: Unauthenticated ones mine, the others not mine; a Compliant one mine.
      const marks = new Map<string, SourceMark>(plain.sources.map((s) => [s.source, s.verdict === 'unauthenticated' || s.verdict === 'compliant' ? 'mine' : 'not-mine']));
      const panel = computeAdvice(all, model, { ...opts, marks });
      const tree = periodHealth(records, { ...opts, marks });
      assert.deepStrictEqual(comparable(panel), comparable(tree), org);
      const moved = tree.sources.filter((s) => s.verdict !== plain.sources.find((p) => p.source === s.source)!.verdict);
      assert.ok(moved.length >= 2, `${org}: verdicts moved (${moved.map((s) => s.source).join(', ')})`);
      assert.ok(tree.sources.every((s) => s.mark === marks.get(s.source)));
      assert.notDeepStrictEqual(tree.mix, plain.mix);
      assert.notDeepStrictEqual(tree.readiness, plain.readiness);
      assert.equal(tree.mix[0], plain.mix[0], `${org}: Compliant emails never move`);
    }
  });

  it('the groups table judges each source as Health does (mix and verdict), with and without marks, also by Header From and IP', () => {
    for (const org of ['acme', 'wayne']) {
      const records = recordsOf(org, 30);
      const model = modelOf(records);
      const all = model.compute({ search: '', facets: {} }).order;
      const plain = periodHealth(records, opts);
      const marks = new Map<string, SourceMark>(plain.sources.map((s) => [s.source, s.verdict === 'unauthenticated' ? 'mine' : 'not-mine']));
      for (const m of [new Map<string, SourceMark>(), marks]) {
        model.classes.setMarks(m);
        const tree = periodHealth(records, { ...opts, marks: m });
        const judge = { classes: model.classes.classes(), compliant: opts.thresholds.compliant };
        const bySource = computeGroups(all, model.store, model.fields.get('source'), undefined, judge).groups;
        assert.deepStrictEqual(
          bySource.map((g) => [g.key, [...g.mix], g.verdict]).sort(),
          tree.sources.map((s) => [s.source, [...s.mix], s.verdict]).sort(),
          `${org} ${m.size ? 'marked' : 'unmarked'}`,
        );
        // Per Header From: the sum of its sources' mixes; per IP: that of the tree's IP entries.
        const byFrom = computeGroups(all, model.store, model.fields.get('visibleFrom'), undefined, judge).groups;
        assert.deepStrictEqual(byFrom.reduce((a, g) => a.map((x, k) => x + g.mix[k]!), [0, 0, 0, 0]), [...tree.mix]);
        const ips = new Map<string, string>();
        for (const s of tree.sources) for (const [ip, v] of s.ips) ips.set(ip, `${[...v.mix]} ${v.verdict}`);
        for (const g of computeGroups(all, model.store, model.fields.get('ipAddress'), undefined, judge).groups) {
          if (records.filter((r) => r.ipAddress === g.key).some((r) => r.source !== records.find((x) => x.ipAddress === g.key)!.source)) continue; // an IP of two sources
          assert.equal(`${[...g.mix]} ${g.verdict}`, ips.get(g.key), `${org}: IP ${g.key}`);
        }
      }
    }
  });

  it('the verdict field gives each row its source\u2019s verdict over every row, and follows marks and the Compliant share', () => {
    const records = recordsOf('acme', 30);
    const model = modelOf(records);
    const all = model.compute({ search: '', facets: {} }).order;
    const check = (marks: Map<string, SourceMark>, compliant: number): void => {
      model.classes.setMarks(marks);
      model.classes.setCompliant(compliant);
      const tree = periodHealth(records, { ...opts, thresholds: { ...opts.thresholds, compliant }, marks });
      const verdictOf = new Map(tree.sources.map((x) => [x.source, x.verdict ? termOf(x.verdict)!.label : '']));
      const field = model.fields.get('verdict');
      assert.equal(field.kind, 'single');
      records.forEach((r, i) => assert.equal(model.fields.valueOf('verdict', i), verdictOf.get(r.source), `row ${i} (${r.source})`));
      // Grouped by it: each verdict's emails are those of its sources.
      const groups = computeGroups(all, model.store, field).groups;
      for (const g of groups) assert.equal(g.emails, tree.sources.filter((x) => verdictOf.get(x.source) === g.key).reduce((n, x) => n + x.emails, 0), g.key);
      assert.ok(groups.length >= 2);
    };
    check(new Map(), 0.98);
    const plain = periodHealth(records, opts);
    check(new Map(plain.sources.map((x) => [x.source, 'not-mine' as SourceMark])), 0.98);
    check(new Map(), 0.5);
    assert.equal(model.fields.find('verdict', 'Compliant'), 3);
    assert.equal(model.fields.find('verdict', 'nope'), undefined);
  });

  it('the verdict facet: judged while rows stream in, on every row once they are all in; filtering by it keeps the rows of those sources; marks move it', () => {
    const records = recordsOf('acme', 30);
    const tuples = records.map(toTuple);
    const model = new RecordsModel();
    const facet = (): Map<string, number> => new Map(model.compute({ search: '', facets: {} }).facets.verdict.map((o) => [o.key, o.emails]));
    // Streaming: chunk after chunk, each update counts the facet (as the page does); every row counted once.
    for (let k = 0; k < tuples.length; k += 500) {
      appendTuples(model, tuples.slice(k, k + 500), tuples.length);
      model.classes.setSettled(k + 500 >= tuples.length);
      const counted = [...facet().values()].reduce((a, b) => a + b, 0);
      assert.equal(counted, records.slice(0, Math.min(tuples.length, k + 500)).reduce((a, r) => a + r.emails, 0), `after ${k + 500} rows`);
    }
    const expected = (marks: Map<string, SourceMark>): Map<string, number> => {
      const tree = periodHealth(records, { ...opts, marks });
      const out = new Map<string, number>();
      for (const x of tree.sources) {
        const label = x.verdict ? termOf(x.verdict)!.label : '';
        out.set(label, (out.get(label) ?? 0) + x.emails);
      }
      return out;
    };
    const withoutZeros = (m: Map<string, number>) => new Map([...m].filter(([, n]) => n > 0));
    assert.deepEqual(withoutZeros(facet()), expected(new Map()));
    // Filtering by a verdict: the rows of the sources with it.
    const tree = periodHealth(records, opts);
    const fixing = new Set(tree.sources.filter((x) => x.verdict === 'needs-fixing').map((x) => x.source));
    assert.ok(fixing.size > 0);
    const shown = model.compute({ search: '', facets: { verdict: ['Needs fixing'] } }).order;
    assert.equal(shown.length, records.filter((r) => fixing.has(r.source)).length);
    // A mark moves the verdicts, and the facet follows.
    const marks = new Map<string, SourceMark>([...fixing].map((x) => [x, 'not-mine']));
    model.classes.setMarks(marks);
    assert.deepEqual(withoutZeros(facet()), expected(marks));
  });

  it('no rows: no sources, and nothing to judge', () => {
    const model = modelOf(recordsOf('acme', 1));
    const panel = computeAdvice(new Uint32Array(0), model, opts);
    assert.deepStrictEqual(panel.sources, []);
    assert.equal(panel.readiness.step.kind, 'no-mail');
  });
});

describe('webview: the published policy the host sends, checked', () => {
  it('keeps the tags of a policy and its domains; drops what is not text, a pct outside 0–100 and junk entries', () => {
    const p = publishedAdvice({
      fromReports: true,
      latest: { domain: 'acme.com', p: 'reject', sp: 'none', adkim: 'r', aspf: 's', pct: 50, testing: 'y', np: 7, fo: { x: 1 } },
      byDomain: [['acme.com', { domain: 'acme.com', p: 'quarantine', pct: 101 }], ['bad'], [5, {}], 'x', ['x.com', null]],
    });
    assert.equal(p.fromReports, true);
    assert.deepEqual(p.latest, { domain: 'acme.com', p: 'reject', sp: 'none', adkim: 'r', aspf: 's', testing: 'y', pct: 50 });
    assert.deepEqual([...p.byDomain], [['acme.com', { domain: 'acme.com', p: 'quarantine' }]]);
    assert.equal(policyText(p.latest!), 'p=reject; sp=none; adkim=r; aspf=s; pct=50; t=y');
  });

  it('anything else reads as no policy, not from reports', () => {
    for (const raw of [null, 7, 'x', [], { fromReports: 'yes', latest: 'p=reject', byDomain: {} }]) {
      const p = publishedAdvice(raw);
      assert.deepEqual([p.fromReports, p.latest, p.byDomain.size], [false, undefined, 0]);
    }
  });
});
