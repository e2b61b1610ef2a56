// One mocha reporter for every layer. It writes through a function given to it (stdout in Node,
// a log file inside the VS Code extension host, where stdout reaches no one) and saves the
// counts as JSON for test/run.mjs to total, with the hostile suite's figures beside them. A
// pending (skipped) test counts as a failure: the project allows no skipped tests.
'use strict';
const fs = require('node:fs');

function createReporter(Mocha, { layer, write, resultsFile }) {
  const { Base } = Mocha.reporters;
  const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;
  return class LayerReporter extends Base {
    constructor(runner, options) {
      super(runner, options);
      let depth = 0;
      const failures = [];
      let passed = 0;
      let pending = 0;
      runner.on(EVENT_SUITE_BEGIN, (suite) => {
        if (suite.root) return;
        write(`${'  '.repeat(depth + 1)}${suite.title}`);
      });
      runner.on('suite end', (suite) => { if (!suite.root) depth--; });
      runner.on(EVENT_SUITE_BEGIN, (suite) => { if (!suite.root) depth++; });
      runner.on(EVENT_TEST_PASS, (test) => {
        passed++;
        write(`${'  '.repeat(depth + 1)}✔ ${test.title} (${test.duration} ms)`);
      });
      runner.on(EVENT_TEST_FAIL, (test, err) => {
        failures.push({ title: test.fullTitle(), err });
        write(`${'  '.repeat(depth + 1)}✘ ${failures.length}) ${test.title}`);
      });
      runner.on(EVENT_TEST_PENDING, (test) => {
        pending++;
        write(`${'  '.repeat(depth + 1)}✘ skipped (not allowed): ${test.title}`);
      });
      runner.once(EVENT_RUN_END, () => {
        failures.forEach((f, i) => {
          write('');
          write(`  ${i + 1}) ${f.title}`);
          const err = f.err || {};
          write(`     ${String(err.message || err).split('\n').join('\n     ')}`);
          if (err.stack) write(String(err.stack).split('\n').slice(1, 6).join('\n'));
        });
        const failed = failures.length + pending;
        write('');
        write(`${layer}: ${passed} passed, ${failed} failed`);
        if (resultsFile) {
          fs.writeFileSync(resultsFile, JSON.stringify({ layer, passed, failed }));
          // The hostile suite's figures (test/hostile/figures.ts), when this layer ran any.
          const hostile = globalThis.__dmarcHostileFigures;
          if (hostile) fs.writeFileSync(hostileFile(resultsFile), JSON.stringify(hostile));
        }
      });
    }
  };
}

/** Where a layer's hostile figures go: beside its results (`unit.json` → `unit.hostile.json`). */
function hostileFile(resultsFile) {
  return resultsFile.replace(/(\.json)?$/, '.hostile.json');
}

module.exports = { createReporter, hostileFile };
