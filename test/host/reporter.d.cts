import type Mocha from 'mocha';
export function createReporter(
  mocha: typeof Mocha,
  options: { layer: string; write: (line: string) => void; resultsFile?: string },
): typeof Mocha.reporters.Base;
