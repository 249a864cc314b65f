/**
 * One jest run for every test in the repo. Unit tests are `*.test.ts`;
 * integration tests are `*.int.test.ts` and talk to the real Redis and
 * PostgreSQL named by REDIS_URL / DATABASE_URL (see libs/testing). The global
 * setup migrates a template database once; each test file clones it.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/scripts', '<rootDir>/bench'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
  testTimeout: 60_000,
  maxWorkers: 2,
};
