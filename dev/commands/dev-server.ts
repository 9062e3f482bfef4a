import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { isPortFree, startDevServer } from '../devserver';
import { EXIT } from '../../src/cli/exit-codes';
import { reportError } from '../../src/cli/fail';
import { serveUntilSignal } from '../../src/cli/serve-until-signal';

/** The ports `temporal server start-dev` uses by default, so TEMPORAL_ADDRESS's default finds it. */
const DEFAULT_PORT = 7233;
const DEFAULT_DB_FILE = path.join('.data', 'temporal', 'dev-server.db');

interface DevServerFlags {
  port: number;
  uiPort?: number;
  dbFile: string;
  namespace: string;
  ip: string;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new InvalidArgumentError('must be a port number from 1 to 65535');
  }
  return port;
}

async function runDevServer(flags: DevServerFlags): Promise<void> {
  const uiPort = flags.uiPort ?? flags.port + 1000;
  for (const [flag, port] of [
    ['--port', flags.port],
    ['--ui-port', uiPort],
  ] as const) {
    if (!(await isPortFree(port, flags.ip))) {
      console.error(`dev-server: ${flag} ${port}: already in use (is a Temporal server running?)`);
      process.exitCode = EXIT.badInput;
      return;
    }
  }
  const server = await startDevServer({
    dbFile: flags.dbFile,
    port: flags.port,
    uiPort,
    ip: flags.ip,
    namespace: flags.namespace,
  });
  // stdout carries only the address, so scripts can read it; the rest goes to stderr.
  process.stdout.write(`${server.address}\n`);
  console.error(
    [
      `Temporal dev server at ${server.address} (namespace ${server.namespace}, pid ${server.pid})`,
      `  Web UI:   ${server.uiUrl ?? 'off'}`,
      `  database: ${server.dbFile}`,
      `  log:      ${server.logFile}`,
      '  stop with Ctrl-C',
    ].join('\n'),
  );
  await serveUntilSignal('Temporal dev server', () => server.stop());
}

export function registerDevServerCommand(program: Command): void {
  program
    .command('dev-server')
    .description(
      'Run a local Temporal dev server (SQLite, Web UI) until SIGINT/SIGTERM; installs the Temporal CLI if missing',
    )
    .option('--port <n>', 'frontend gRPC port', parsePort, DEFAULT_PORT)
    .option('--ui-port <n>', 'Web UI port (default: --port + 1000)', parsePort)
    .option(
      '--db-file <file>',
      'SQLite database; workflows survive restarts on the same file',
      DEFAULT_DB_FILE,
    )
    .option('--namespace <name>', 'namespace to create at start', 'default')
    .option('--ip <address>', 'interface to bind', '127.0.0.1')
    .action(async (flags: DevServerFlags) => {
      try {
        await runDevServer(flags);
      } catch (err) {
        reportError(err);
      }
    });
}
