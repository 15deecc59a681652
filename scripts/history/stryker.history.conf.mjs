// Mutation testing of the history checker's rules (issue 46): `npm run mutation:history`.
// Every mutant of scripts/history/rules is run against the checker's specs (unit, corpus,
// properties); the score and each survivor are in docs/RELIABILITY.md. Slow (tens of minutes on
// two cores), so it is not part of `npm test`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'scripts/history/jest.stryker.config.js', enableFindRelatedTests: false },
  coverageAnalysis: 'perTest',
  mutate: ['scripts/history/rules/**/*.ts', '!scripts/history/rules/**/*.spec.ts'],
  // Message text is prose for a reader: no verdict depends on it, so its mutants say nothing.
  mutator: { excludedMutations: ['StringLiteral'] },
  // Only what the specs import is copied to the sandbox.
  ignorePatterns: ['/*', '!/scripts', '!/test', '!/bench', '!/package.json', '!/tsconfig.json', '/test/chaos', '/test/e2e'],
  tempDirName: '.infra/stryker-tmp',
  cleanTempDir: true,
  concurrency: 2,
  timeoutMS: 30000,
  thresholds: { high: 90, low: 85, break: 85 },
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/history.json' },
  htmlReporter: { fileName: 'reports/mutation/history.html' },
  incremental: false,
};
