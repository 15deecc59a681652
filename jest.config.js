// One jest config, three projects: unit specs beside the code, e2e and chaos under test/.
const transform = { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] };
const moduleNameMapper = { '^@app/distributed-lock(|/.*)$': '<rootDir>/libs/distributed-lock/src$1' };
const base = { rootDir: __dirname, testEnvironment: 'node', transform, moduleNameMapper, moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
    { ...base, displayName: 'chaos', testMatch: ['<rootDir>/test/chaos/**/*.chaos-spec.ts'] },
  ],
};
