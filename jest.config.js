// One jest config, three projects: unit specs beside the code, e2e and chaos under test/.
const transform = {
  // tsconfig.json sets isolatedModules: ts-jest then transpiles file by file (the type check is `npm run typecheck`).
  '^.+\\.ts$': ['ts-jest', {}],
  // A few dependencies of @fastify/static ship ESM only; Node 20 requires them natively, jest needs them transpiled.
  '^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true } }],
};
const transformIgnorePatterns = ['/node_modules/(?!(content-disposition)/)'];
const moduleNameMapper = { '^@app/distributed-lock(|/.*)$': '<rootDir>/libs/distributed-lock/src$1' };
// Jest's transform cache too stays in the project (its default is the system temp folder).
const cacheDirectory = `${__dirname}/.infra/jest-cache`;
const base = { rootDir: __dirname, cacheDirectory, transformIgnorePatterns, testEnvironment: 'node', transform, moduleNameMapper, moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  cacheDirectory,
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,scripts,bench}/**/*.spec.ts', '<rootDir>/test/history/**/*.spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'], },
    { ...base, displayName: 'chaos', testMatch: ['<rootDir>/test/chaos/**/*.chaos-spec.ts'], },
  ],
};
