/** Environment variables through which the global setup hands the Temporal servers to tests. */
export const TEST_ENV = {
  /** host:port of the run's dev server (set it yourself to use a server you keep running). */
  address: 'TEMPORAL_TEST_ADDRESS',
  namespace: 'TEMPORAL_TEST_NAMESPACE',
  uiUrl: 'TEMPORAL_TEST_UI_URL',
  /** This run's scratch directory (under .data/test/), removed by the global teardown. */
  runDir: 'TEMPORAL_TEST_RUN_DIR',
  /** Path of the `temporal` executable (also the variable findTemporalCli() honours). */
  temporalCli: 'TEMPORAL_CLI',
  /** Path of the time-skipping test server (also the variable findTestServer() honours). */
  testServer: 'TEMPORAL_TEST_SERVER',
} as const;
