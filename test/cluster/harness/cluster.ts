import { chmodSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { findFreePort, findFreePorts, findTemporalCli } from '../../../dev/devserver';
import { syntheticSelfiePng } from '../../../src/samples/synthetic-selfie';
import type { SimulatorStats } from '../../../src/simulator';
import { CHAOS_POLLING } from '../../chaos/harness/chaos-size';
import { Postgres } from './postgres';
import { ProcessGroup } from './process-group';
import { createSchema, PACKAGE_ROOT, SERVER_VERSION, TemporalServer } from './temporal-server';
import { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
import type { BlobStore } from '@avatar-pipeline/client/storage/blob-store';

const CLI_BIN = path.join(PACKAGE_ROOT, 'bin', 'avatar-pipeline.js');
export const NAMESPACE = 'default';
export const TASK_QUEUE = 'avatar-pipeline-cluster';
export const PROVIDER_API_KEY = 'sim-key';
export const API_TOKEN = 'cluster-tier-api-token-0123456789';
export const SELFIES_PER_SUBJECT = 2;

/**
 * Provider faults during the whole run. The client gives up on a request after 2 s, and a slow
 * answer comes after 3 s, so a slow write is performed after the client gave up: the workers wait
 * PROVIDER_WRITE_SETTLE_MS (12 s) before looking for it instead of writing twice. The margin is
 * wide because the simulator starts its 3 s only once it has read the request, and while
 * PostgreSQL and the Temporal server recover from a SIGKILL the cores can be busy for seconds:
 * with 5 s, one run saw a generation order called twice (the second call refused: runs 1,
 * runAttempts 2), which a slow run read late would explain (not confirmed).
 */
const SIMULATOR_ARGS = [
  '--training-ms',
  '3000',
  '--generation-ms',
  '1500',
  '--fault-5xx',
  '0.08',
  '--lose-response',
  '0.05',
  '--malformed-json',
  '0.03',
  '--slow',
  '0.02',
  '--slow-ms',
  '3000',
  '--seed',
  '15',
];
const PROVIDER_TIMEOUT_MS = '2000';
const PROVIDER_WRITE_SETTLE_MS = '12000';

export interface WorkerProcess {
  name: string;
  process: ProcessGroup;
  metricsUrl: string;
}

/** Seconds between two moments, for the timing lines. */
function seconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}

export function timing(what: string, since: number): void {
  process.stderr.write(`[cluster] timing: ${what} took ${seconds(since)} s\n`);
}

/**
 * The compose topology, natively: PostgreSQL, the schema job, the Temporal server, then
 * `avatar-pipeline setup`, the provider simulator, two `avatar-pipeline worker` processes and
 * `avatar-pipeline api`, each a process (group) of its own on loopback.
 */
export class Cluster {
  readonly workers: WorkerProcess[] = [];
  private constructor(
    readonly dir: string,
    readonly pg: Postgres,
    readonly temporal: TemporalServer,
    readonly temporalCli: string,
    readonly client: Client,
    readonly selfies: { dir: string; files: string[] },
    /** BLOB_DIR of the API, the workers and the tests' starters: manifests, uploads, archived avatars. */
    readonly blobDir: string,
    readonly simulatorUrl: string,
    private readonly simulator: ProcessGroup,
    readonly apiUrl: string,
    private readonly api: ProcessGroup,
  ) {}

  /** The blob store campaigns are started with: the workers' and the API's. */
  get store(): BlobStore {
    return new FsBlobStore(this.blobDir);
  }

  static async start(): Promise<Cluster> {
    // Under the system's temporary directory: the `postgres` user must be able to reach it.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'avatar-cluster-'));
    chmodSync(dir, 0o755);
    const logDir = path.join(dir, 'logs');
    mkdirSync(logDir);
    process.stderr.write(`[cluster] Temporal server ${SERVER_VERSION}; logs in ${logDir}\n`);
    const temporalCli = await findTemporalCli();

    let since = Date.now();
    const pg = await Postgres.start({
      dir,
      port: await findFreePort(),
      user: 'temporal',
      password: 'temporal',
    });
    timing('PostgreSQL start (initdb included)', since);

    since = Date.now();
    await createSchema(pg, logDir);
    timing('schema (create, setup-schema, update-schema)', since);

    since = Date.now();
    const temporal = await TemporalServer.start(pg, logDir);
    timing('Temporal server start', since);

    since = Date.now();
    const selfiesDir = path.join(dir, 'selfies');
    mkdirSync(selfiesDir);
    const files = Array.from({ length: SELFIES_PER_SUBJECT }, (_, i) => {
      const file = path.join(selfiesDir, `selfie-${i + 1}.png`);
      writeFileSync(file, syntheticSelfiePng(i + 1, 64));
      return file;
    });
    const blobDir = path.join(dir, 'blobs');
    mkdirSync(blobDir);

    const { process: simulator, url: simulatorUrl } = await startSimulatorProcess(
      'simulator',
      SIMULATOR_ARGS,
      logDir,
    );

    const appEnv = {
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: NAMESPACE,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      PROVIDER_BASE_URL: simulatorUrl,
      PROVIDER_API_KEY,
      PROVIDER_TIMEOUT_MS,
      PROVIDER_WRITE_SETTLE_MS,
      IMAGE_ROOTS: selfiesDir,
      BLOB_DIR: blobDir,
      // Drawn selfies, which the face checks would refuse (test/setup/checks-off-by-default.ts).
      SELFIE_CHECKS: 'false',
      AVATAR_CHECKS: 'false',
      // The operator's polling floor, lowered for the simulator's seconds-long orders: the API
      // refuses (422) a request polling faster than it, as the tests' requests do (CHAOS_POLLING).
      PROVIDER_POLL_MIN_INTERVAL_MS: String(CHAOS_POLLING.minIntervalMs),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    };

    await ProcessGroup.run(
      {
        name: 'avatar-pipeline setup',
        command: process.execPath,
        args: [CLI_BIN, 'setup', '--retention', '24h'],
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...appEnv },
        cwd: PACKAGE_ROOT,
        logFile: path.join(logDir, 'setup.log'),
      },
      120_000,
    );
    timing('avatar-pipeline setup', since);

    since = Date.now();
    const connection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection, namespace: NAMESPACE });
    const [apiPort] = await findFreePorts(1);
    const api = ProcessGroup.start({
      name: 'avatar-pipeline api',
      command: process.execPath,
      args: [CLI_BIN, 'api'],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...appEnv,
        API_HOST: '127.0.0.1',
        API_PORT: String(apiPort),
        API_TOKENS: API_TOKEN,
      },
      cwd: PACKAGE_ROOT,
      logFile: path.join(logDir, 'api.log'),
    });
    const cluster = new Cluster(
      dir,
      pg,
      temporal,
      temporalCli,
      client,
      { dir: selfiesDir, files },
      blobDir,
      simulatorUrl,
      simulator,
      `http://127.0.0.1:${String(apiPort)}`,
      api,
    );
    cluster.appEnv = appEnv;
    await Promise.all([cluster.startWorker('worker-1'), cluster.startWorker('worker-2')]);
    await cluster.waitFor('the simulator and the API to answer', async () => {
      simulator.assertRunning();
      api.assertRunning();
      const [sim, ready] = await Promise.all([
        fetch(`${simulatorUrl}/__sim/stats`).catch(() => undefined),
        fetch(`${cluster.apiUrl}/readyz`).catch(() => undefined),
      ]);
      return sim?.ok === true && ready?.ok === true;
    });
    timing('workers, API and simulator start', since);
    return cluster;
  }

  private appEnv: Record<string, string> = {};
  /** More simulators, started by the checks; stopped with the rest. */
  private readonly extras: ProcessGroup[] = [];

  /**
   * Starts `avatar-pipeline worker` (metrics on a port of its own); resolves once it polls.
   * `env` adds to or overrides the cluster's settings (task queues, build id, provider).
   */
  async startWorker(name: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
    const metricsPort = await findFreePort();
    const worker = ProcessGroup.start({
      name,
      command: process.execPath,
      args: [CLI_BIN, 'worker'],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...this.appEnv,
        METRICS_BIND_ADDRESS: `127.0.0.1:${metricsPort}`,
        WORKER_SHUTDOWN_GRACE_MS: '5000',
        // Debug: every provider call and every activity attempt is in the workers' logs, so a
        // duplicate write the campaign check finds can be traced (checks/write-trace.ts).
        LOG_LEVEL: 'debug',
        ...env,
      },
      cwd: PACKAGE_ROOT,
      logFile: path.join(this.dir, 'logs', `${name}.log`),
    });
    await this.waitFor(`${name} to start`, () => {
      worker.assertRunning();
      return worker.text().includes('avatar-pipeline worker started');
    });
    const entry = { name, process: worker, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
    const index = this.workers.findIndex((w) => w.name === name);
    if (index >= 0) this.workers[index] = entry;
    else this.workers.push(entry);
    return entry;
  }

  /** Another provider simulator (`avatar-pipeline simulator` with `args`); resolves once it answers. */
  async startSimulator(name: string, args: string[]): Promise<string> {
    const { process: simulator, url } = await startSimulatorProcess(name, args, path.join(this.dir, 'logs'));
    this.extras.push(simulator);
    await this.waitFor(`${name} to answer`, async () => {
      simulator.assertRunning();
      return (await fetch(`${url}/__sim/stats`).catch(() => undefined))?.ok === true;
    });
    return url;
  }

  /** What the provider saw: its own records (GET /__sim/stats of the simulator process). */
  async providerStats(): Promise<SimulatorStats> {
    const answer = await fetch(`${this.simulatorUrl}/__sim/stats`);
    if (!answer.ok) throw new Error(`simulator stats: HTTP ${answer.status}`);
    return (await answer.json()) as SimulatorStats;
  }

  async waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await delay(200);
    }
  }

  /** Stops everything, the package's processes first, then Temporal, then PostgreSQL. */
  async stop(): Promise<void> {
    await this.client.connection.close().catch(() => undefined);
    await Promise.all([
      ...this.workers.map((w) => w.process.stop()),
      ...this.extras.map((p) => p.stop()),
      this.api.stop(),
      this.simulator.stop(),
    ]);
    await this.temporal.stop();
    await this.pg.stop();
    await ProcessGroup.killAll();
    if (!process.env.CLUSTER_KEEP_DIR) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `avatar-pipeline simulator` on a free loopback port, its output in `<logDir>/<name>.log`. */
async function startSimulatorProcess(
  name: string,
  args: string[],
  logDir: string,
): Promise<{ process: ProcessGroup; url: string }> {
  const port = await findFreePort();
  const simulator = ProcessGroup.start({
    name,
    command: process.execPath,
    args: [CLI_BIN, 'simulator', '--host', '127.0.0.1', '--port', String(port), ...args],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PROVIDER_API_KEY },
    cwd: PACKAGE_ROOT,
    logFile: path.join(logDir, `${name}.log`),
  });
  return { process: simulator, url: `http://127.0.0.1:${port}` };
}
