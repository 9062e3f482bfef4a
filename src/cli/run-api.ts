/** `avatar-pipeline api`: the starter HTTP API until SIGINT/SIGTERM (registered in commands/api.ts). */
import { createApiServer } from '../api/server';
import { lazyTemporalClient } from '../api/temporal-client';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { loadConfig } from '../config/load-config';
import { loadOperationsConfig } from '../config/operations-config';
import { PipelineTracing } from '../tracing/pipeline-tracing';
import { reportError } from './fail';
import { serveUntilSignal } from './serve-until-signal';

export interface ApiFlags {
  port?: string;
  host?: string;
}

/** --port and --host override API_PORT and API_HOST. */
function applyFlags(env: NodeJS.ProcessEnv, flags: ApiFlags): NodeJS.ProcessEnv {
  return {
    ...env,
    ...(flags.port !== undefined ? { API_PORT: flags.port } : {}),
    ...(flags.host !== undefined ? { API_HOST: flags.host } : {}),
  };
}

export async function runApi(flags: ApiFlags): Promise<void> {
  let config;
  let operations;
  try {
    const env = applyFlags(process.env, flags);
    config = loadConfig(env);
    operations = loadOperationsConfig(env);
  } catch (err) {
    reportError(err);
    return;
  }
  const logLevel = operations.logging.level.toLowerCase();
  const tracing = PipelineTracing.start(operations.tracing);
  const client = lazyTemporalClient(config.temporal, tracing ? { tracing } : {});
  try {
    const app = await createApiServer({
      config,
      client,
      logger: { level: logLevel, stream: process.stderr },
    });
    let url: string;
    try {
      url = await app.listen({ port: config.api.port, host: config.api.host });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') {
        throw new ConfigError([
          {
            variable: 'API_PORT/API_HOST',
            reason: `cannot listen on ${config.api.host}:${config.api.port} (${code})`,
          },
        ]);
      }
      throw err;
    }
    // stdout carries only the URL, so scripts can read it; the rest goes to stderr.
    process.stdout.write(`${url}\n`);
    console.error(
      [
        `avatar-pipeline api listening at ${url} (Temporal ${config.temporal.address}, namespace ${config.temporal.namespace}, task queue ${config.temporal.taskQueue})`,
        `  docs: ${url}/docs   OpenAPI: ${url}/openapi.json   console: ${url}/console/`,
        `  uploads and archived avatars stored in ${storeLocation(config)}`,
        `  callbacks: ${config.callbacks.signingSecret ? 'enabled (signed)' : 'disabled (CALLBACK_SIGNING_SECRET not set)'}`,
        `  tracing: ${operations.tracing.endpoint ?? 'off (OTEL_EXPORTER_OTLP_ENDPOINT not set)'}`,
        '  stop with Ctrl-C',
      ].join('\n'),
    );
    // Closing finishes the requests in flight first.
    await serveUntilSignal('avatar-pipeline api', () => app.close());
  } catch (err) {
    reportError(err);
  } finally {
    await client.connection.close();
    await tracing?.shutdown();
  }
}

function storeLocation(config: ReturnType<typeof loadConfig>): string {
  const target = config.storage.target;
  return target.kind === 'fs' ? target.dir : `s3://${target.bucket}/${target.prefix}`;
}
