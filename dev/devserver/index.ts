/** A real local Temporal: finding or installing its binaries, and running its dev server. */
export { findTemporalCli, TEMPORAL_CLI } from './tools';
export { findTestServer, TEMPORAL_TEST_SERVER } from './tools';
export { findInstalledTool, locateTool } from './locate-tool';
export type { LocateToolOptions, LocatedTool, ToolOrigin, ToolSpec } from './locate-tool';
export { startDevServer } from './start-dev-server';
export type { DevServer, DevServerOptions } from './start-dev-server';
export { ensureDevServer } from './ensure-dev-server';
export { parseAddress } from './address';
export type { EnsureDevServerOptions, EnsuredDevServer } from './ensure-dev-server';
export { buildDevServerArgs } from './dev-server-args';
export type {
  SearchAttributeDefinitions,
  SearchAttributeTypeName,
} from '../../src/setup/search-attribute-definitions';
export { findFreePort, findFreePorts, isPortFree } from './free-port';
export { checkFrontend, waitForFrontend } from './frontend-readiness';
export type { Logger } from './log';
export * from './versions';
