// The owner's marks (src/advice/marks.ts) in the advice: a source marked mine has its
// Unauthenticated rows counted as Needs fixing, one marked not mine its Needs fixing and Forwarded
// rows as Unauthenticated, Compliant rows never move; mixes, verdicts, fixes, IPs and readiness
// follow, exactly. Marks read from untrusted values keep only what is well formed.
import { strict as assert } from 'node:assert';
import type { DmarcRecord } from '../../src/api/types';
import { periodHealth } from '../../src/advice/health';
import { classesCountedAs, markedClass, marksFrom, markPairs, MAX_MARKED_SOURCE, MAX_MARKS, sameMarks, type SourceMark } from '../../src/advice/marks';
import type { PeriodHealth } from '../../src/advice/tally';
import { CLASS_INDEX } from '../../src/advice/verdict';
import { dk, opts, rec } from './adviceHelpers';


/** The period of test/unit/adviceRules.test.ts: one source of each verdict. */
const records: DmarcRecord[] = [
  rec({ source: 'Acme Mail', ipAddress: '192.0.2.1', emails: 60, alignedDkim: 'pass', dkims: [dk('acme.com', 'pass')] }),
  rec({ source: 'Acme Mail', ipAddress: '192.0.2.1', emails: 40, alignedSpf: 'pass', spf: 'pass' }),
  rec({ source: 'Acme Mail', ipAddress: '192.0.2.2', emails: 1 }),
  rec({ source: 'ESP', ipAddress: '198.51.100.7', emails: 20, spf: 'pass', returnPath: 'bounce.esp.net', dkims: [dk('esp.net', 'pass', 'k1')] }),
  rec({ source: 'ESP', ipAddress: '198.51.100.7', emails: 10, dmarc: 'quarantine', spf: 'pass', returnPath: 'bounce.esp.net', dkims: [dk('esp.net', 'pass', 'k1')] }),
  rec({ source: 'ESP', ipAddress: '198.51.100.8', emails: 10, alignedDkim: 'pass', dkims: [dk('acme.com', 'pass', 'k2')] }),
  rec({ source: 'Google', ipAddress: '209.85.220.41', rdns: ['mail-sor-f41.google.com'], emails: 5, dkims: [dk('acme.com', 'fail')] }),
  rec({ source: 'Unknown', ipAddress: '203.0.113.9', visibleFrom: 'acme.org', emails: 50, dmarc: 'reject', spf: 'softfail', returnPath: 'acme.org' }),
];

const marks = (pairs: [string, SourceMark][]) => new Map(pairs);
const bySource = (h: PeriodHealth) => new Map(h.sources.map((s) => [s.source, s]));
/** A health without the sources' marks (what a mark on a source leaves otherwise unchanged). */
const unmarked = (h: PeriodHealth) => ({ ...h, sources: h.sources.map(({ mark: _m, ips, ...s }) => ({ ...s, ips: [...ips] })) });

describe('advice: the owner’s marks', () => {
  it('a class moves only as the rules say; Compliant never', () => {
    const C = CLASS_INDEX;
    const table = [C.compliant, C.forwarded, C['needs-fixing'], C.unauthenticated].map((c) => [markedClass(c, undefined), markedClass(c, 'mine'), markedClass(c, 'not-mine')]);
    assert.deepEqual(table, [
      [C.compliant, C.compliant, C.compliant],
      [C.forwarded, C.forwarded, C.unauthenticated],
      [C['needs-fixing'], C['needs-fixing'], C.unauthenticated],
      [C.unauthenticated, C['needs-fixing'], C.unauthenticated],
    ]);
    assert.deepEqual(classesCountedAs('needs-fixing', 'mine'), ['needs-fixing', 'unauthenticated']);
    assert.deepEqual(classesCountedAs('unauthenticated', 'not-mine'), ['forwarded', 'needs-fixing', 'unauthenticated']);
    assert.deepEqual(classesCountedAs('compliant', 'not-mine'), ['compliant']);
    assert.deepEqual(classesCountedAs('forwarded', undefined), ['forwarded']);
    assert.deepEqual(classesCountedAs('', 'mine'), []);
  });

  it('mine on an Unauthenticated source and not mine on a Needs fixing and a Forwarded one: exact mixes, verdicts, fixes and readiness', () => {
    const h = periodHealth(records, { ...opts, marks: marks([['Unknown', 'mine'], ['ESP', 'not-mine'], ['Google', 'not-mine']]) });
    assert.deepEqual(h.mix, [110, 0, 50, 36]);
    assert.deepEqual(h.sources.map((s) => [s.source, s.mix, s.verdict, s.failing, s.lost, s.mark]), [
      ['Unknown', [0, 0, 50, 0], 'needs-fixing', 50, 50, 'mine'],
      ['ESP', [10, 0, 0, 30], 'unauthenticated', 0, 0, 'not-mine'],
      ['Google', [0, 0, 0, 5], 'unauthenticated', 0, 0, 'not-mine'],
      ['Acme Mail', [100, 0, 0, 1], 'compliant', 0, 0, undefined],
    ]);
    const by = bySource(h);
    // The reasons stay the rows' own; the fix of the owner's unconfigured server comes from them.
    assert.deepEqual([by.get('Unknown')!.facts.spf, by.get('Unknown')!.facts.dkim], [{ 'spf-not-allowed-own': 50 }, { 'dkim-none': 50 }]);
    assert.equal(
      by.get('Unknown')!.fix,
      'No DKIM signature for `acme.org`: turn on DKIM signing with `acme.org` at this sender. `acme.org`’s SPF record does not list this sender’s IPs (`203.0.113.9`): add the sender’s include or its IPs to it.',
    );
    assert.deepEqual(by.get('ESP')!.facts.dkim, { 'dkim-other-domain': 30 });
    assert.equal(by.get('ESP')!.fix, 'Marked as not yours: nothing to set up. p=quarantine or p=reject stops this mail (IPs: `198.51.100.7`).');
    assert.equal(by.get('Google')!.fix, 'Marked as not yours: nothing to set up. p=quarantine or p=reject stops this mail (IPs: `209.85.220.41`).');
    // The IPs' mixes too (worked out when read).
    assert.deepEqual([...by.get('ESP')!.ips].map(([ip, v]) => [ip, v.mix, v.verdict]), [['198.51.100.7', [0, 0, 0, 30], 'unauthenticated'], ['198.51.100.8', [10, 0, 0, 0], 'compliant']]);
    assert.deepEqual([...by.get('Unknown')!.ips].map(([ip, v]) => [ip, v.mix, v.verdict]), [['203.0.113.9', [0, 0, 50, 0], 'needs-fixing']]);
    // Readiness: the legitimate mail is Acme's, ESP's passing mail and Unknown's, which receivers reject.
    const r = h.readiness;
    assert.deepEqual([r.legitimate, r.legitimatePass, r.atRisk, r.stopped, r.observed], [160, 110, { emails: 50, sources: 1 }, 36, { quarantine: 0, reject: 50 }]);
    assert.deepEqual(r.step, { kind: 'losing', text: 'Legitimate mail is being lost: Unknown had 50 emails quarantined or rejected in 30 days. Fix it first.' });
    assert.deepEqual(h.domains.map((d) => [d.domain, d.readiness.emails, d.readiness.legitimate, d.readiness.step.kind]), [['acme.com', 146, 110, 'reject'], ['acme.org', 50, 50, 'losing']]);
  });

  it('not mine on every failing legitimate source: the rest passes, ready for p=reject', () => {
    const h = periodHealth(records, { ...opts, marks: marks([['ESP', 'not-mine'], ['Google', 'not-mine']]) });
    assert.deepEqual(h.mix, [110, 0, 0, 86]);
    assert.deepEqual([h.readiness.share, h.readiness.atRisk, h.readiness.stopped, h.readiness.observed], [1, { emails: 0, sources: 0 }, 86, { quarantine: 0, reject: 0 }]);
    assert.deepEqual(h.readiness.step, { kind: 'reject', text: 'Ready for p=reject: 100% of legitimate mail passes over 30 days.' });
    // Without marks the same rows lose ESP's mail (test/unit/adviceRules.test.ts).
    assert.equal(periodHealth(records, opts).readiness.step.kind, 'losing');
  });

  it('a mark on a Compliant source changes nothing but the mark it carries', () => {
    const compliant = records.filter((r) => r.alignedDkim === 'pass' || r.alignedSpf === 'pass').map((r) => ({ ...r, source: 'Acme Mail' }));
    const plain = periodHealth(compliant, opts);
    for (const mark of ['mine', 'not-mine'] as const) {
      const h = periodHealth(compliant, { ...opts, marks: marks([['Acme Mail', mark]]) });
      assert.deepEqual(unmarked(h), unmarked(plain), mark);
      assert.equal(h.sources[0]!.mark, mark);
    }
    // Not mine on a source whose one failing row is Unauthenticated already: nothing moves either.
    const h = periodHealth(records, { ...opts, marks: marks([['Acme Mail', 'not-mine']]) });
    assert.deepEqual(unmarked(h), unmarked(periodHealth(records, opts)));
  });

  it('mine on a source whose reasons name nothing to change: its servers’ setup', () => {
    const h = periodHealth([rec({ source: 'Printer', ipAddress: '192.0.2.77', emails: 3, spf: 'none', returnPath: '', dkims: [dk('acme.com', 'weird')] })], { ...opts, marks: marks([['Printer', 'mine']]) });
    const s = h.sources[0]!;
    assert.deepEqual([s.mix, s.verdict, s.facts.dkim, s.facts.spf], [[0, 0, 3, 0], 'needs-fixing', { 'dkim-unknown': 3 }, { 'spf-none': 3 }]);
    assert.equal(s.fix, 'These servers are marked as yours: add their IPs (`192.0.2.77`) to `acme.com`’s SPF record and sign with DKIM for `acme.com`.');
  });

  it('marks read from untrusted values keep the well-formed pairs only, bounded', () => {
    for (const junk of [undefined, null, 7, 'mine', {}, { Unknown: 'mine' }, [[]], [['x']], [[5, 'mine']], [['x', 'yours']], [['x', 'mine', 1]]]) assert.equal(marksFrom(junk).size, 0, JSON.stringify(junk));
    assert.deepEqual([...marksFrom([['b', 'not-mine'], ['a', 'mine'], 'x', ['b', 'mine'], ['', 'not-mine'], ['y'.repeat(MAX_MARKED_SOURCE + 1), 'mine']])], [['b', 'mine'], ['a', 'mine'], ['', 'not-mine']]);
    const many = Array.from({ length: MAX_MARKS + 10 }, (_, k) => [`s${k}`, 'mine']);
    assert.equal(marksFrom(many).size, MAX_MARKS);
    assert.deepEqual(markPairs(marks([['b', 'mine'], ['a', 'not-mine']])), [['a', 'not-mine'], ['b', 'mine']]);
    assert.ok(sameMarks(marks([['a', 'mine']]), marks([['a', 'mine']])));
    assert.ok(!sameMarks(marks([['a', 'mine']]), marks([['a', 'not-mine']])));
  });
});
