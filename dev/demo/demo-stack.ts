import { NativeConnection } from '@temporalio/worker';
import { ensureDevServer, isPortFree, type EnsuredDevServer } from '../devserver';
import type { Logger } from '../devserver/log';
import { temporalConnectionOptions } from '@avatar-pipeline/client/client/connection-options';
import type { StarterSettings } from '@avatar-pipeline/client/config/starter-settings';
import { pipelineDataConverter } from '../../src/codec/data-converter';
import { SIMULATOR_API_KEY } from '@avatar-pipeline/client/config/env-schema';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { pipelineWorkflowBundle } from '../../src/worker/workflow-bundle';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import type { CheckWorkerConfig } from '../../src/config/load-config';
import { answersHttp, guessUiUrl } from './temporal-ui';

export interface DemoStackOptions extends Pick<StarterSettings, 'temporal' | 'placement' | 'campaigns'> {
  /** SQLite file of a dev server started here. */
  dbFile: string;
  /** Web UI port of a dev server started here; default frontend port + 1000. */
  uiPort?: number;
  /** Web UI of a server that is already running, when it is not at frontend port + 1000. */
  uiUrl?: string;
  /** Preferred simulator port; a free one is used when it is taken. */
  simulatorPort: number;
  trainingMs: number;
  generationMs: number;
  avatarsPerOrder: number;
  avatarSize: number;
  /**
   * The simulator's state on disk. It must last as long as the Temporal database: pipelines
   * recorded there claim provider ids, and a simulator starting from scratch would hand the same
   * ids out again.
   */
  simulatorStateFile: string;
  /** Directories the worker may read selfies from. */
  imageRoots: string[];
  /** Where the worker archives avatars (a filesystem blob store). */
  archiveDir: string;
  /** The worker's check worker (CHECK_WORKER and the thresholds), which checks the selfies. */
  checks: CheckWorkerConfig;
  log: Logger;
}

export interface DemoStack {
  temporal: EnsuredDevServer;
  /** The Web UI, known (started here) or presumed (a reused server). */
  uiUrl: string;
  uiAnswers: boolean;
  simulator: RunningSimulator;
  /** Rejects if the worker stops on its own (it never should before stop()). */
  workerFailure: Promise<never>;
  /** Stops the worker, the simulator and a dev server started here (a reused one keeps running). */
  stop(): Promise<void>;
}

/**
 * Everything a pipeline needs on one machine: a Temporal dev server (reused when one already
 * answers at the configured address), the provider simulator with short timings, and a worker.
 * Whatever was started is stopped again if a later part fails to start.
 */
export async function startDemoStack(options: DemoStackOptions): Promise<DemoStack> {
  const { log } = options;
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse()) {
      await stop().catch((err: unknown) =>
        log(`while stopping: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
  };
  try {
    // Bundling the workflow code takes seconds; it overlaps with the server's start.
    const bundling = pipelineWorkflowBundle({
      encodedFailures: pipelineDataConverter(options.temporal.encryption) !== undefined,
    });
    bundling.catch(() => undefined);
    const temporal = await ensureDevServer({
      address: options.temporal.address,
      namespace: options.temporal.namespace,
      dbFile: options.dbFile,
      ...(options.uiPort !== undefined ? { uiPort: options.uiPort } : {}),
      log,
    });
    stops.push(() => temporal.stop());
    const uiUrl = options.uiUrl ?? temporal.uiUrl ?? guessUiUrl(options.temporal.address);
    const uiAnswers = await answersHttp(uiUrl);

    const port = (await isPortFree(options.simulatorPort)) ? options.simulatorPort : 0;
    if (port === 0) log(`port ${options.simulatorPort} is taken; the simulator uses a free port`);
    const simulator = await startSimulator({
      port,
      progression: { mode: 'wall', trainingMs: options.trainingMs, generationMs: options.generationMs },
      avatarsPerOrder: options.avatarsPerOrder,
      avatarSize: options.avatarSize,
      stateFile: options.simulatorStateFile,
    });
    stops.push(() => simulator.stop());
    log(
      `provider simulator at ${simulator.url} (training ${options.trainingMs} ms, each style ${options.generationMs} ms)`,
    );

    await bundling;
    const connection = await NativeConnection.connect(
      temporalConnectionOptions({ ...options.temporal, address: temporal.address }),
    );
    stops.push(() => connection.close());
    const workers = await PipelineWorkers.create({
      connection,
      config: {
        temporal: options.temporal,
        placement: options.placement,
        campaigns: options.campaigns,
        provider: { baseUrl: simulator.url, apiKey: SIMULATOR_API_KEY, timeoutMs: 10_000 },
        imageAccess: { roots: options.imageRoots, urlHosts: [] },
        storage: {
          target: { kind: 'fs', dir: options.archiveDir },
          s3: { endpoint: undefined, region: 'us-east-1', credentials: undefined, forcePathStyle: false },
        },
        worker: {
          maxConcurrentActivities: 20,
          maxConcurrentWorkflowTasks: 10,
          maxCachedWorkflows: 100,
          shutdownGraceMs: 2_000,
          checks: options.checks,
        },
      },
    });
    const running = workers.run();
    stops.push(async () => {
      workers.shutdown();
      await running.catch(() => undefined);
    });
    log(`worker polling task queue "${options.temporal.taskQueue}"`);
    const workerFailure = running.then(
      () => Promise.reject(new Error('the worker stopped')),
      (err: unknown) => Promise.reject(err instanceof Error ? err : new Error(String(err))),
    );
    workerFailure.catch(() => undefined);
    return { temporal, uiUrl, uiAnswers, simulator, workerFailure, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
