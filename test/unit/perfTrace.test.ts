// The performance trace of bench:panel (src/perf.ts): off unless a file is named, and then the slow
// steps of the host's work (a network read parsed, a chunk encoded) marked with their step and time.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { perfMark, slowStep, startPerfTrace, stepStart } from '../../src/perf';

/** Busy for `ms` of wall time (a step of work, as the host's are). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* work */
  }
}

describe('performance trace (src/perf.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmarc-perf-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('records nothing and reads no clock while off', () => {
    assert.equal(startPerfTrace(undefined), undefined);
    assert.equal(stepStart(), 0);
    // No trace to write to: these do nothing (and throw nothing).
    slowStep('encode', 0, { rows: 1 });
    perfMark('rowsSent', { rows: 1 });
  });

  it('marks a step over 40 ms with its name, time and detail, and not a quick one', () => {
    const file = join(dir, 'perf.jsonl');
    const trace = startPerfTrace(file)!;
    try {
      const slow = stepStart();
      assert.ok(slow > 0);
      busy(45);
      slowStep('encode', slow, { rows: 1250 });
      const quick = stepStart();
      slowStep('read', quick, { bytes: 65536 });
    } finally {
      trace.dispose();
    }
    assert.ok(existsSync(file));
    const steps = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.event === 'slowStep');
    assert.equal(steps.length, 1);
    assert.equal(steps[0]!.step, 'encode');
    assert.equal(steps[0]!.rows, 1250);
    assert.ok((steps[0]!.ms as number) >= 45 && (steps[0]!.ms as number) < 5_000);
    assert.equal(typeof steps[0]!.at, 'number');
    // Off again once disposed.
    assert.equal(stepStart(), 0);
  });

  it('records every full collection, however short its pause, with its kind and flags', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const file = join(dir, 'perf.jsonl');
    const trace = startPerfTrace(file)!;
    try {
      gc(); // a full collection of a small heap: a pause of a few milliseconds
      // The observer hears of it in a later task.
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      trace.dispose();
    }
    const full = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.event === 'gc' && e.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    assert.ok(full.length >= 1, 'the forced collection is in the trace');
    assert.ok(full.some((e) => ((e.flags as number) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0), 'its flags say it was forced');
    assert.equal(typeof full[0]!.ms, 'number');
  });
});
