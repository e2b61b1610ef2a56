// The hostile suite's line (issue 14), totalled over the layers that ran: what was tried on the
// left, what was lost on the right. Each layer's reporter saved its figures beside its results
// (reporter.cjs, from test/hostile/figures.ts).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { hostileFile } = require('./reporter.cjs');

/** The least of each kind a whole run must try (the floors; files: what exists). */
export const FLOORS = { bodies: 200, faults: 20, messages: 200, states: 30, files: 1 };
const TRIED = ['bodies', 'faults', 'messages', 'states', 'files'];
const LOST = ['crashes', 'lostRows', 'leaks', 'executions'];

/** The figures of every layer whose results file is given, summed; `layers`: how many had any. */
export function totalFigures(resultsFiles) {
  const total = { ...Object.fromEntries([...TRIED, ...LOST].map((k) => [k, 0])), notes: [], layers: 0 };
  for (const file of resultsFiles) {
    const f = hostileFile(file);
    if (!existsSync(f)) continue;
    const one = JSON.parse(readFileSync(f, 'utf8'));
    total.layers++;
    for (const k of [...TRIED, ...LOST]) total[k] += Number(one[k]) || 0;
    total.notes.push(...(one.notes ?? []));
  }
  return total;
}

/**
 * The line, and what is wrong with the figures: any loss, and (when `floors` is set, i.e. the
 * run covered every layer with hostile tests) any kind tried fewer times than its floor.
 */
export function hostileLine(total, { floors }) {
  const line =
    `hostile: ${total.bodies} bodies, ${total.faults} faults, ${total.messages} messages, ${total.states} states, ${total.files} files; ` +
    `${total.crashes} crashes, ${total.lostRows} lost rows, ${total.leaks} leaks, ${total.executions} executions`;
  const problems = [];
  for (const k of LOST) if (total[k] !== 0) problems.push(`${k} is ${total[k]}, not 0`);
  if (floors) for (const k of TRIED) if (total[k] < FLOORS[k]) problems.push(`${k}: ${total[k]} tried, under the floor of ${FLOORS[k]}`);
  return { line, problems, notes: total.notes };
}
