// The history checker's specs alone, for StrykerJS (stryker.history.conf.mjs): no global setup
// (they need no Postgres or Redis), and without the speed spec (it measures, it does not judge)
// nor the corpus read back from a database (the same verdicts as the in-memory corpus).
const root = `${__dirname}/../..`;
// Every mutant reruns the property tests: a third of their histories keeps a run of all mutants in tens of minutes.
process.env.HISTORY_PROPERTY_RUNS ??= '100';
module.exports = {
  rootDir: root,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/scripts/history/**/*.spec.ts', '<rootDir>/test/history/**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', 'speed\\.spec\\.ts$', 'corpus-database\\.spec\\.ts$'],
  cacheDirectory: `${root}/.infra/jest-cache-stryker`,
};
