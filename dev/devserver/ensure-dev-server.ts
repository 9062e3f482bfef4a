import { Connection } from '@temporalio/client';
import { parseAddress } from './address';
import { logToStderr } from './log';
import { waitForFrontend } from './frontend-readiness';
import { PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS } from '../../src/setup/search-attribute-definitions';
import { prepareNamespace } from '../../src/setup/prepare-namespace';
import { startDevServer, type DevServerOptions } from './start-dev-server';

export interface EnsureDevServerOptions extends Omit<DevServerOptions, 'port' | 'ip'> {
  /** Where to look for a running server, and where to start one if none answers. Default 127.0.0.1:7233. */
  address?: string;
}

export interface EnsuredDevServer {
  address: string;
  namespace: string;
  /** Web UI of a server started here; undefined for a reused server (its UI port is unknown). */
  uiUrl: string | undefined;
  /** Undefined when an already running server was reused. */
  pid: number | undefined;
  startedHere: boolean;
  /** Stops the server if this call started it; a reused server belongs to someone else and keeps running. */
  stop(): Promise<void>;
}

/**
 * Uses the Temporal server already answering at `address` (a developer's own `temporal server
 * start-dev`, an earlier demo run) instead of starting a second one, which could not bind the
 * port anyway. A server started here gets the UI on port + 1000, as `temporal` does by default.
 */
export async function ensureDevServer(options: EnsureDevServerOptions): Promise<EnsuredDevServer> {
  const log = options.log ?? logToStderr;
  const address = options.address ?? '127.0.0.1:7233';
  const namespace = options.namespace ?? 'default';
  const searchAttributes = { ...PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS, ...options.searchAttributes };
  const running = await connectIfAnswering(address);
  if (running) {
    try {
      log(`reusing the Temporal server already running at ${address}`);
      await prepareNamespace(running, namespace, searchAttributes, log);
    } finally {
      await running.close();
    }
    // Registration takes effect asynchronously (namespace cache refresh).
    const searchAttributeNames = Object.keys(searchAttributes);
    await waitForFrontend({
      address,
      namespace,
      searchAttributeNames,
      timeoutMs: options.startTimeoutMs ?? 30_000,
    });
    return { address, namespace, uiUrl: undefined, pid: undefined, startedHere: false, stop: async () => {} };
  }
  const { host, port } = parseAddress(address);
  const server = await startDevServer({ ...options, ip: host, port, uiPort: options.uiPort ?? port + 1000 });
  return { ...server, address, startedHere: true };
}

async function connectIfAnswering(address: string): Promise<Connection | undefined> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1_000 });
    const answering = connection;
    await answering.withDeadline(Date.now() + 2_000, () => answering.workflowService.getSystemInfo({}));
    return answering;
  } catch {
    await connection?.close();
    return undefined;
  }
}
