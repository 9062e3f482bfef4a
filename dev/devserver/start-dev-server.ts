import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { buildDevServerArgs } from './dev-server-args';
import type { SearchAttributeDefinitions } from '../../src/setup/search-attribute-definitions';
import { findTemporalCli } from './tools';
import { findFreePorts, isPortFree } from './free-port';
import { waitForFrontend } from './frontend-readiness';
import { logToStderr, type Logger } from './log';
import { readLogTail } from './log-tail';
import { PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS } from '../../src/setup/search-attribute-definitions';
import { prepareNamespace } from '../../src/setup/prepare-namespace';
import { hasExited, stopProcess } from './stop-process';

export interface DevServerOptions {
  /** SQLite file; it survives stop() so a restart on the same file resumes every workflow. */
  dbFile: string;
  /** Frontend gRPC port; a free one when omitted. */
  port?: number;
  /** Web UI port; a free one when omitted. */
  uiPort?: number;
  /** Set false to run without the Web UI. Default true. */
  ui?: boolean;
  /** Created at start (the "default" namespace always exists). Default "default". */
  namespace?: string;
  /** Interface to bind. Default 127.0.0.1, so nothing is exposed beyond this machine. */
  ip?: string;
  /** Server output (appended). Default: next to the database, `<dbFile>.log`. */
  logFile?: string;
  /** Registered at start, in addition to the pipeline's own (AvatarTenant, SubjectId, CampaignId, ModelId, PipelineStage). */
  searchAttributes?: SearchAttributeDefinitions;
  /** Path of the `temporal` executable; found (or installed) with findTemporalCli() when omitted. */
  temporalCli?: string;
  /** How long to wait for the frontend. Default 60 s (first start on a slow machine migrates the schema). */
  startTimeoutMs?: number;
  log?: Logger;
}

export interface DevServer {
  /** host:port of the frontend, for Connection.connect / NativeConnection.connect. */
  address: string;
  /** Web UI, or undefined when started with `ui: false`. */
  uiUrl: string | undefined;
  namespace: string;
  pid: number;
  dbFile: string;
  logFile: string;
  /** SIGTERM, SIGKILL after a grace period; resolves once the process is gone. */
  stop(): Promise<void>;
}

class PortTakenError extends Error {}

/** Free ports may be taken by someone else between the probe and the server's bind. */
const ATTEMPTS_WITH_PICKED_PORTS = 3;

/** Starts `temporal server start-dev` and resolves once its frontend serves the namespace. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const log = options.log ?? logToStderr;
  const temporalCli = options.temporalCli ?? (await findTemporalCli({ log }));
  const dbFile = path.resolve(options.dbFile);
  const logFile = path.resolve(options.logFile ?? `${dbFile}.log`);
  mkdirSync(path.dirname(dbFile), { recursive: true });
  mkdirSync(path.dirname(logFile), { recursive: true });
  await assertExplicitPortsFree(options);
  const portsArePicked = options.port === undefined || (options.ui !== false && options.uiPort === undefined);
  const attempts = portsArePicked ? ATTEMPTS_WITH_PICKED_PORTS : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, { temporalCli, dbFile, logFile, log });
    } catch (err) {
      if (!(err instanceof PortTakenError) || attempt >= attempts) throw err;
      log(`port taken before the dev server could bind it; retrying with other ports`);
    }
  }
}

/** Otherwise a server already listening there would answer the readiness check in place of ours. */
async function assertExplicitPortsFree(options: DevServerOptions): Promise<void> {
  const ip = options.ip ?? '127.0.0.1';
  const explicitPorts = [options.port, options.ui === false ? undefined : options.uiPort];
  for (const port of explicitPorts) {
    if (port !== undefined && !(await isPortFree(port, ip))) {
      throw new Error(`Cannot start a Temporal dev server: port ${port} on ${ip} is already in use`);
    }
  }
}

interface ResolvedPaths {
  temporalCli: string;
  dbFile: string;
  logFile: string;
  log: Logger;
}

async function startOnce(options: DevServerOptions, resolved: ResolvedPaths): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const searchAttributes = { ...PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS, ...options.searchAttributes };
  const [pickedPort = 0, pickedUiPort = 0] = await findFreePorts(2, ip);
  const port = options.port ?? pickedPort;
  const uiPort = options.ui === false ? undefined : (options.uiPort ?? pickedUiPort);
  const args = buildDevServerArgs({
    dbFile: resolved.dbFile,
    ip,
    port,
    uiPort,
    namespace,
    searchAttributes,
  });
  const address = `${ip}:${port}`;
  resolved.log(`starting Temporal dev server on ${address} (db ${resolved.dbFile}, log ${resolved.logFile})`);
  const { child, logOffset } = spawnWithLog(resolved.temporalCli, args, resolved.logFile);
  const killOnExit = (): void => void child.kill('SIGTERM');
  // If this process ends without stop() (a crash, process.exit), the server must not outlive it.
  process.once('exit', killOnExit);
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const started = Date.now();
  try {
    const readiness = {
      address,
      namespace,
      timeoutMs: options.startTimeoutMs ?? 60_000,
      giveUpReason: () =>
        spawnError
          ? `could not run ${resolved.temporalCli}: ${spawnError.message}`
          : hasExited(child)
            ? `the server exited (${child.signalCode ?? `exit code ${String(child.exitCode)}`})`
            : undefined,
    };
    await waitForFrontend({ ...readiness, searchAttributeNames: [] });
    // `--search-attribute` only takes effect when the database is created: a database from an
    // earlier version of this package gets the attributes it lacks here.
    const connection = await Connection.connect({ address });
    try {
      await prepareNamespace(connection, namespace, searchAttributes, resolved.log);
    } finally {
      await connection.close();
    }
    await waitForFrontend({ ...readiness, searchAttributeNames: Object.keys(searchAttributes) });
  } catch (err) {
    process.removeListener('exit', killOnExit);
    await stopProcess(child, 2_000);
    const reason = err instanceof Error ? err.message : String(err);
    const tail = readLogTail(resolved.logFile, logOffset);
    const message = `Temporal dev server did not start: ${reason}\n--- last lines of ${resolved.logFile} ---\n${tail}`;
    throw /address already in use/i.test(tail) ? new PortTakenError(message) : new Error(message);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${resolved.temporalCli} did not start`); // unreachable once it answered
  resolved.log(`Temporal dev server ready on ${address} in ${Date.now() - started} ms (pid ${pid})`);
  return {
    address,
    uiUrl: uiPort === undefined ? undefined : `http://${ip}:${uiPort}`,
    namespace,
    pid,
    dbFile: resolved.dbFile,
    logFile: resolved.logFile,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      await stopProcess(child);
    },
  };
}

/**
 * The server writes straight into the log file, so its output survives us and never fills a pipe.
 * `logOffset` is where this run's output starts.
 */
function spawnWithLog(
  command: string,
  args: string[],
  logFile: string,
): { child: ChildProcess; logOffset: number } {
  const fd = openSync(logFile, 'a');
  try {
    writeSync(fd, `\n--- ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
    // Measured before spawning: the child may write before spawn() returns.
    const logOffset = fstatSync(fd).size;
    return { child: spawn(command, args, { stdio: ['ignore', fd, fd] }), logOffset };
  } finally {
    closeSync(fd);
  }
}
