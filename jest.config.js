// One jest config, three projects: unit specs beside the code, e2e and chaos under test/.
const transform = {
  // tsconfig.json sets isolatedModules: ts-jest then transpiles file by file (the type check is `npm run typecheck`).
  '^.+\\.ts$': ['ts-jest', {}],
};
// Packages are loaded as Node loads them, ES modules included (scripts/jest.sh), never transformed.
const transformIgnorePatterns = ['/node_modules/'];
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
