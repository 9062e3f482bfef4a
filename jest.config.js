/** @type {import('jest').Config} */
const TEMPORAL_TIER_DIRS = require('./test/setup/temporal-tier-dirs');
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }];
// ES-module-only dependencies (content-disposition, under @fastify/swagger-ui; cookie, which @fastify/cookie
// imports dynamically; swagger-parser's ref parser) compiled to CommonJS, which jest's runtime needs; Node
// itself loads them natively.
const ESM_ONLY = ['content-disposition', 'cookie', '@fastify/cookie', '@apidevtools/json-schema-ref-parser'];
const swcEsm = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
];
const common = {
  transform: { '^.+\\.ts$': swc, [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: swcEsm },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['<rootDir>/test/setup/checks-off-by-default.ts'],
  // Tests load the client package from its sources, as the typecheck reads them (tsconfig.json's
  // paths). Workflow bundles made in a test are webpack's, which resolves it through node_modules to
  // its build (packages/client/dist): npm test builds first; after editing its contracts, build.
  moduleNameMapper: {
    '^@avatar-pipeline/client$': '<rootDir>/packages/client/src/index.ts',
    '^@avatar-pipeline/client/(.*)$': '<rootDir>/packages/client/src/$1',
  },
};

module.exports = {
  reporters: ['default', '<rootDir>/test/setup/slowest-files-reporter.js'],
  projects: [
    // Fast tier: no Temporal server needed.
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    // Needs a real S3-compatible server (versitygw, built into .tools/ from the Go module proxy if missing).
    { ...common, displayName: 'storage', testMatch: ['<rootDir>/test/storage/**/*.test.ts'] },
    // Needs the Temporal CLI (installed by the global setup if missing) and the test server binaries;
    // the fuzz tier also installs Schemathesis from PyPI into .tools/ on first use.
    {
      ...common,
      displayName: 'temporal',
      testMatch: [`<rootDir>/test/{${TEMPORAL_TIER_DIRS.join(',')}}/**/*.test.ts`],
      setupFiles: [...common.setupFiles, '<rootDir>/test/setup/quiet-temporal-runtime.ts'],
      setupFilesAfterEnv: [
        '<rootDir>/test/setup/temporal-test-timeout.ts',
        '<rootDir>/test/setup/namespace-per-file.ts',
      ],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
