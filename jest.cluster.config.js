// The cluster tier (`npm run test:cluster`): test/cluster/**/*.test.ts on a PostgreSQL-backed
// Temporal server and the package's processes, which the tests start themselves (after
// scripts/cluster/prepare.sh has installed PostgreSQL and built the server).
const { projects } = require('./jest.config.js');

const temporal = projects.find((project) => project.displayName === 'temporal');

/** @type {import('jest').Config} */
module.exports = {
  reporters: ['default', '<rootDir>/test/setup/slowest-files-reporter.js'],
  projects: [
    {
      transform: temporal.transform,
      transformIgnorePatterns: temporal.transformIgnorePatterns,
      testEnvironment: temporal.testEnvironment,
      moduleFileExtensions: temporal.moduleFileExtensions,
      moduleNameMapper: temporal.moduleNameMapper,
      setupFiles: temporal.setupFiles,
      displayName: 'cluster',
      testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
    },
  ],
};
