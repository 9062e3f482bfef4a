import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createApiServer } from '../../src/api/server';
import { lazyTemporalClient } from '../../src/api/temporal-client';
import { SIMULATOR_API_KEY } from '@avatar-pipeline/client/config/env-schema';
import { loadConfig } from '../../src/config/load-config';
import { CONSOLE_PATH } from '../../src/console/console-location';

export interface DemoConsole {
  /** The web console's address: `http://127.0.0.1:<port>/console/`. */
  url: string;
  /** The API token to sign in with; made up for this demo, valid while it runs. */
  token: string;
  stop(): Promise<void>;
}

/**
 * The starter API with its web console, on a free loopback port, over the demo's stack: the same
 * Temporal server, namespace and task queue, the simulator, and the worker's archive directory
 * as its blob store (so archived avatars open and uploaded selfies reach the worker).
 */
export async function startDemoConsole(options: {
  env: NodeJS.ProcessEnv;
  temporalAddress: string;
  uiUrl: string;
  providerUrl: string;
  imageRoots: string[];
  archiveDir: string;
}): Promise<DemoConsole> {
  const token = randomBytes(18).toString('base64url');
  const env: NodeJS.ProcessEnv = { ...options.env };
  delete env.STORAGE_URL;
  const config = loadConfig({
    ...env,
    TEMPORAL_ADDRESS: options.temporalAddress,
    TEMPORAL_UI_URL: options.uiUrl,
    PROVIDER_BASE_URL: options.providerUrl,
    PROVIDER_API_KEY: SIMULATOR_API_KEY,
    API_TOKENS: token,
    BLOB_DIR: options.archiveDir,
    IMAGE_ROOTS: options.imageRoots.join(path.delimiter),
  });
  const client = lazyTemporalClient(config.temporal);
  try {
    const app = await createApiServer({ config, client });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      url: `${base}${CONSOLE_PATH}`,
      token,
      stop: async () => {
        await app.close();
        await client.connection.close();
      },
    };
  } catch (err) {
    await client.connection.close();
    throw err;
  }
}
