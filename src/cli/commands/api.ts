import type { Command } from 'commander';
import type { ApiFlags, runApi as RunApi } from '../run-api';

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
        'Needs API_TOKENS (comma separated bearer tokens; `tenant:token` gives a token to a tenant): without any the API refuses to start (exit 2).',
        'Per-tenant settings (scopes, rate limit, fairness): API_TENANTS_FILE. Browser access tokens are signed with API_ACCESS_TOKEN_SECRET.',
        'Uploaded selfies go to the blob store (STORAGE_URL, else BLOB_DIR, default .blobs), where workers read them.',
        'Other settings: API_MAX_FILE_BYTES, TEMPORAL_UI_URL (links to runs), CALLBACK_SIGNING_SECRET, CALLBACK_PRIVATE_HOSTS, LOG_LEVEL, OTEL_EXPORTER_OTLP_ENDPOINT.',
        'Logs (JSON lines, credentials redacted) go to stderr; stdout prints only the URL.',
      ].join('\n'),
    )
    .action((flags: ApiFlags) => {
      // Loaded on use: the HTTP server's modules (some 20 MB) stay out of every other command's
      // process, the worker's above all.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { runApi } = require('../run-api') as { runApi: typeof RunApi };
      return runApi(flags);
    });
}
