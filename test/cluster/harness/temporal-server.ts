import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isPortFree } from '../../../dev/devserver';
import { ProcessGroup } from './process-group';
import type { Postgres } from './postgres';

export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..', '..');
/** The one source of the server's version, configuration, dynamic config and schema steps (compose mounts it too). */
export const DEPLOY_DIR = path.join(PACKAGE_ROOT, 'deploy', 'temporal');
/** What compose's health check of the server container asks for (docker-compose.yml, service temporal). */
export const SERVER_HEALTH_PATH = '/api/v1/system-info';
export const SERVER_VERSION = readFileSync(path.join(DEPLOY_DIR, 'version'), 'utf8').trim();

/** Where scripts/cluster/build-temporal-server.sh puts temporal-server and temporal-sql-tool. */
export function serverBinDir(): string {
  const dir = path.join(PACKAGE_ROOT, '.tools', `temporal-server-${SERVER_VERSION}`, 'bin');
  if (!existsSync(path.join(dir, 'temporal-server')) || !existsSync(path.join(dir, 'temporal-sql-tool'))) {
    throw new Error(
      `the Temporal server ${SERVER_VERSION} is not built in ${dir}: run scripts/cluster/prepare.sh (npm run test:cluster does)`,
    );
  }
  return dir;
}

/** deploy/temporal/schema.sh with the tool built here: the steps of compose's temporal-schema job. */
export async function createSchema(pg: Postgres, logDir: string): Promise<string> {
  return ProcessGroup.run(
    {
      name: 'temporal schema',
      command: 'sh',
      args: [path.join(DEPLOY_DIR, 'schema.sh')],
      env: {
        PATH: process.env.PATH,
        SQL_TOOL: path.join(serverBinDir(), 'temporal-sql-tool'),
        POSTGRES_SEEDS: '127.0.0.1',
        DB_PORT: String(pg.options.port),
        POSTGRES_USER: pg.options.user,
        SQL_PASSWORD: pg.options.password,
      },
      logFile: path.join(logDir, 'schema.log'),
    },
    180_000,
  );
}

/**
 * `temporal-server start` with deploy/temporal/config.yaml and its dynamic config, on loopback
 * ports of its own, against the PostgreSQL given. Restartable on the same ports and database.
 */
export class TemporalServer {
  private process: ProcessGroup | undefined;

  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    readonly address: string,
    private readonly logDir: string,
  ) {}

  static async start(pg: Postgres, logDir: string): Promise<TemporalServer> {
    const [
      grpc,
      http,
      frontendMembership,
      history,
      historyMembership,
      matching,
      matchingMembership,
      worker,
      workerMembership,
    ] = await freePortsBelow32768(9);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      // The names compose gives the server container (docker-compose.yml, service temporal).
      TEMPORAL_SERVER_CONFIG_FILE_PATH: path.join(DEPLOY_DIR, 'config.yaml'),
      DYNAMIC_CONFIG_FILE_PATH: path.join(DEPLOY_DIR, 'dynamicconfig.yaml'),
      POSTGRES_SEEDS: '127.0.0.1',
      DB_PORT: String(pg.options.port),
      POSTGRES_USER: pg.options.user,
      POSTGRES_PWD: pg.options.password,
      BIND_ON_IP: '127.0.0.1',
      LOG_LEVEL: 'warn',
      FRONTEND_GRPC_PORT: String(grpc),
      FRONTEND_HTTP_PORT: String(http),
      FRONTEND_MEMBERSHIP_PORT: String(frontendMembership),
      HISTORY_GRPC_PORT: String(history),
      HISTORY_MEMBERSHIP_PORT: String(historyMembership),
      MATCHING_GRPC_PORT: String(matching),
      MATCHING_MEMBERSHIP_PORT: String(matchingMembership),
      WORKER_GRPC_PORT: String(worker),
      WORKER_MEMBERSHIP_PORT: String(workerMembership),
    };
    const server = new TemporalServer(env, `127.0.0.1:${grpc}`, logDir);
    await server.launch();
    return server;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  private async launch(): Promise<void> {
    this.process = ProcessGroup.start({
      name: 'temporal-server',
      command: path.join(serverBinDir(), 'temporal-server'),
      args: ['start'],
      env: this.env,
      logFile: path.join(this.logDir, 'temporal-server.log'),
    });
    await this.waitUntilServing(180_000);
  }

  /**
   * Until the frontend's HTTP API answers GET /api/v1/system-info: compose's health check of the
   * server container asks the same, so this run shows that check works.
   */
  private async waitUntilServing(timeoutMs: number): Promise<void> {
    const url = `http://127.0.0.1:${String(this.env.FRONTEND_HTTP_PORT)}${SERVER_HEALTH_PATH}`;
    const deadline = Date.now() + timeoutMs;
    let last: string;
    for (;;) {
      this.process!.assertRunning();
      try {
        const answer = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        if (answer.ok) return;
        last = `HTTP ${answer.status}`;
      } catch (err) {
        last = err instanceof Error ? err.message : String(err);
      }
      if (Date.now() > deadline) {
        throw new Error(
          `Temporal server at ${this.address} not serving after ${timeoutMs} ms (last: ${last})`,
        );
      }
      await delay(250);
    }
  }

  /** SIGKILL (no shutdown at all), then the server again on the same ports and database. */
  async killAndRestart(): Promise<{ killedPid: number; restartMs: number }> {
    const killedPid = this.process!.pid;
    await this.process!.stop('SIGKILL');
    const started = Date.now();
    await this.launch();
    return { killedPid, restartMs: Date.now() - started };
  }

  async stop(): Promise<void> {
    await this.process?.stop('SIGTERM', 20_000);
  }
}

/**
 * Free loopback ports in 20000-32767. The server records its ports in PostgreSQL's
 * cluster_membership table as smallint, so ports the OS hands out (32768 and up) stop it at start.
 */
async function freePortsBelow32768(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let attempt = 0; ports.length < count; attempt++) {
    if (attempt > 1_000) throw new Error(`no ${count} free ports found in 20000-32767`);
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    if (!ports.includes(port) && (await isPortFree(port))) ports.push(port);
  }
  return ports;
}
