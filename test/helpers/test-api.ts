import type { FastifyInstance } from 'fastify';
import { createApiServer, type ApiServerOptions } from '../../src/api/server';
import type { AppConfig } from '../../src/config/load-config';

export interface TestApi {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  base: string;
}

/**
 * The starter API as `avatar-pipeline api` serves it (its provider client built from the config),
 * on a free loopback port. The caller closes `app`.
 */
export async function startTestApi(options: ApiServerOptions): Promise<TestApi> {
  const app = await createApiServer(options);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base };
}

/** A test config whose API section is changed by `api` (bearer tokens, blob directory, limits). */
export function withApi(config: AppConfig, api: Partial<AppConfig['api']>): AppConfig {
  return { ...config, api: { ...config.api, ...api } };
}
