// The full chaos suite (`npm run chaos`): test/chaos/**/*.test.ts on the temporal project's setup
// (one dev server per run, the compiled CLI for worker processes). Its fast subset runs in
// `npm test` as test/e2e/chaos-fast.test.ts.
const { projects } = require('./jest.config.js');

const temporal = projects.find((project) => project.displayName === 'temporal');

/** @type {import('jest').Config} */
module.exports = {
  projects: [{ ...temporal, displayName: 'chaos', testMatch: ['<rootDir>/test/chaos/**/*.test.ts'] }],
};
