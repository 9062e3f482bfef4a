import type { Command } from 'commander';
import { createApiServer } from '../../api/server';
import { lazyTemporalClient } from '../../api/temporal-client';
import { ConfigError } from '../../config/config-error';
import { loadConfig } from '../../config/load-config';
import { loadOperationsConfig } from '../../config/operations-config';
import { PipelineTracing } from '../../tracing/pipeline-tracing';
import { reportError } from '../fail';
import { serveUntilSignal } from '../serve-until-signal';

interface ApiFlags {
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

async function runApi(flags: ApiFlags): Promise<void> {
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
        `  docs: ${url}/docs   OpenAPI: ${url}/openapi.json`,
        `  uploads stored in ${config.api.blobDir}`,
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

export function registerApiCommand(program: Command): void {
  program
    .command('api')
    .description('Run the workflow starter HTTP API (OpenAPI at /openapi.json, docs at /docs)')
    .option('--port <port>', 'port to listen on (default: API_PORT or 8080; 0 picks a free one)')
    .option('--host <host>', 'address to listen on (default: API_HOST or 127.0.0.1)')
    .addHelpText(
      'after',
      [
        '',
        'Needs API_TOKENS (comma separated bearer tokens): without any the API refuses to start (exit 2).',
        'Uploaded selfies go to BLOB_DIR (default .blobs), which must lie inside IMAGE_ROOTS so workers can read them.',
        'Other settings: API_MAX_FILE_BYTES, TEMPORAL_UI_URL (links to runs), CALLBACK_SIGNING_SECRET, CALLBACK_PRIVATE_HOSTS, LOG_LEVEL, OTEL_EXPORTER_OTLP_ENDPOINT.',
        'Logs (JSON lines, credentials redacted) go to stderr; stdout prints only the URL.',
      ].join('\n'),
    )
    .action((flags: ApiFlags) => runApi(flags));
}
