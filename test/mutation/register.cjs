// Loads the unit tests and the code under test from TypeScript as they are, for the mutation
// run: Stryker then sees each test file's own source, so a change to one test re-runs only the
// mutants it covers (bundled tests change whenever any code they bundle does).
require('tsx/cjs');
