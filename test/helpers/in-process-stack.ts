import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import type { ApiServerOptions } from '../../src/api/server';
import type { AppConfig } from '../../src/config/load-config';
import { startSimulator, type RunningSimulator } from '../../src/simulator';
import { PipelineWorkers } from '../../src/worker/pipeline-workers';
import { uniqueBasePath } from './e2e-pipeline';
import { fsStorage, testConfig } from './pipeline-worker';
import { writeSelfies } from './selfie-files';
import {
  createDevServerEnv,
  devServerUnderTest,
  makeScratchDir,
  uniqueName,
  useOwnNamespace,
} from './temporal-env';
import { startTestApi } from './test-api';

export interface InProcessStackOptions {
  /** Prefix of the stack's task queue, simulator base path, scratch and selfie directories. */
  name: string;
  /** API_TOKENS entries: `token` or `tenant:token`. */
  tokens: string[];
  /** How many synthetic selfies to write (the stack's first image root). */
  selfies: number;
  /** The simulator's wall-clock timings and avatars per order (the simulator's default when absent). */
  simulator: { trainingMs: number; generationMs: number; avatarsPerOrder?: number };
  /** ARCHIVE_AVATARS, into the blob store; on unless false. */
  archive?: boolean;
  /** More API settings (ACCESS_TOKEN_SECRET, limits, …) over the stack's tokens and BLOB_DIR. */
  api?: Partial<AppConfig['api']>;
  /** WEBHOOK_SIGNING_KEY, CALLBACK_PRIVATE_HOSTS, …, for the workers and the API (none when absent). */
  callbacks?: AppConfig['callbacks'];
  /** The API server's logger; none when absent. */
  logger?: ApiServerOptions['logger'];
  /** API_TENANTS_FILE as read (tenants' settings, the prices of provider work), for the workers and the API. */
  tenantsFile?: Pick<AppConfig, 'tenants' | 'costs'>;
}

export interface InProcessStack {
  /** On the run's dev server; its client reaches the stack's workflows. */
  env: TestWorkflowEnvironment;
  sim: RunningSimulator;
  workers: PipelineWorkers;
  app: FastifyInstance;
  /** The API's http://127.0.0.1:<port> */
  base: string;
  /** What the workers and the API were started with. */
  config: AppConfig;
  selfies: { dir: string; files: string[] };
  /** A fresh directory inside the run's directory, holding the ones below. */
  scratch: string;
  /** The filesystem blob store (BLOB_DIR: uploaded selfies, archived avatars, campaign manifests), an image root. */
  blobDir: string;
  /** Closes the API, shuts the workers down (awaiting their run), stops the simulator, closes the env. */
  stop(): Promise<void>;
}

/**
 * The dev server, a wall-clock simulator, pipeline and provider workers on a fresh task queue and
 * the starter API in this process, all on one configuration, as an end-to-end test of the API
 * against real runs needs them. Whatever had started when a step fails is stopped before the
 * failure is thrown.
 */
export async function startInProcessStack(options: InProcessStackOptions): Promise<InProcessStack> {
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async (): Promise<void> => {
    for (const step of stops.reverse().splice(0)) await step();
  };
  try {
    // A namespace of its own: erasure finds runs by search attributes (a subject, a model id), and
    // every test's simulator numbers its models from 1001, so in a shared namespace one test's
    // erasure would find (and delete) another's runs.
    const restoreNamespace = await useOwnNamespace(uniqueName(options.name));
    stops.push(async () => restoreNamespace());
    const { namespace } = devServerUnderTest();
    const env = await createDevServerEnv();
    stops.push(() => env.teardown());
    const selfies = await writeSelfies(options.selfies, `${options.name}-`);
    const scratch = await makeScratchDir(options.name);
    const blobDir = path.join(scratch, 'blobs');
    const sim = await startSimulator({
      basePath: uniqueBasePath(options.name),
      progression: {
        mode: 'wall',
        trainingMs: options.simulator.trainingMs,
        generationMs: options.simulator.generationMs,
      },
      ...(options.simulator.avatarsPerOrder !== undefined
        ? { avatarsPerOrder: options.simulator.avatarsPerOrder }
        : {}),
    });
    stops.push(() => sim.stop());
    const base_ = testConfig({
      namespace,
      taskQueue: uniqueName(options.name),
      providerUrl: sim.url,
      imageRoots: [selfies.dir, blobDir],
      archiveAvatars: options.archive ?? true,
      ...(options.callbacks !== undefined ? { callbacks: options.callbacks } : {}),
    });
    const config: AppConfig = {
      ...base_,
      api: { ...base_.api, tokens: options.tokens, blobDir, ...options.api },
      campaigns: { maxInFlight: 4 },
      ...options.tenantsFile,
      // As loadConfig fills it in: the API and the workers share one store, so uploads reach the runs.
      storage: fsStorage(blobDir),
    };
    const workers = await PipelineWorkers.create({ config, connection: env.nativeConnection });
    const running = workers.run();
    stops.push(async () => {
      workers.shutdown();
      await running;
    });
    const { app, base } = await startTestApi({
      config,
      client: env.client,
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
    });
    stops.push(() => app.close());
    return { env, sim, workers, app, base, config, selfies, scratch, blobDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
