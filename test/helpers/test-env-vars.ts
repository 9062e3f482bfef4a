/** Environment variables through which the global setup hands the Temporal servers to tests. */
export const TEST_ENV = {
  /** host:port of the run's dev server (set it yourself to use a server you keep running). */
  address: 'TEMPORAL_TEST_ADDRESS',
  /** The namespace of the test file running (each takes one of the pool the global setup registered). */
  namespace: 'TEMPORAL_TEST_NAMESPACE',
  /** How many namespaces the global setup registered for test files (see test/setup/namespace-pool.ts). */
  namespacePoolSize: 'TEMPORAL_TEST_NAMESPACE_POOL_SIZE',
  uiUrl: 'TEMPORAL_TEST_UI_URL',
  /** This run's scratch directory (under .data/test/), removed by the global teardown. */
  runDir: 'TEMPORAL_TEST_RUN_DIR',
  /** Path of the `temporal` executable (also the variable findTemporalCli() honours). */
  temporalCli: 'TEMPORAL_CLI',
  /** Path of the time-skipping test server (also the variable findTestServer() honours). */
  testServer: 'TEMPORAL_TEST_SERVER',
} as const;
