import { filesystemStorage } from '@avatar-pipeline/client/storage/storage-settings';
import { placementFrom } from '@avatar-pipeline/client/config/run-placement';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { startPipeline } from '@avatar-pipeline/client/client/pipelines';
import type { AppConfig } from '../src/config/load-config';
import { findTestServer } from '../dev/devserver';
import { PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS } from '../src/setup/search-attribute-definitions';
import { addSearchAttributes } from '../src/setup/prepare-namespace';
import { syntheticSelfiePng } from '../src/samples/synthetic-selfie';
import { startSimulator } from '../src/simulator';
import { PipelineWorkers } from '../src/worker/pipeline-workers';
import type { NamedPolicy, PollingRun } from './polling-run';

interface StatusReport {
  status: string;
}

/**
 * The real thing, minus the waiting: a pipeline (one style) on Temporal's time-skipping test
 * server, with its workflow timers, activities and the simulator keeping the server's time. Status
 * calls are counted by the simulator; the lag is read from when the run and the DONE-seeing status
 * activity happened on the server's clock.
 */
export async function measureOnTimeSkippingServer(
  run: NamedPolicy & {
    trainingMs: number;
    reportProgress: boolean;
    /**
     * The worker's blob store (and image root), kept after the run: runs that share one learn the
     * durations of the trainings before them. Absent: a fresh directory, nothing learned.
     */
    storeDir?: string;
  },
): Promise<PollingRun> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: await findTestServer() } },
  });
  await addSearchAttributes(env.connection, 'default', PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS);
  const dir = run.storeDir ?? (await mkdtemp(path.join(tmpdir(), 'bench-polling-')));
  let clock = await env.currentTimeMs();
  const sim = await startSimulator({
    progression: { mode: 'wall', trainingMs: run.trainingMs, generationMs: 60_000 },
    reportProgress: run.reportProgress,
    clock: () => clock,
  });
  try {
    const selfie = path.join(dir, 'selfie.png');
    await writeFile(selfie, syntheticSelfiePng(1, 64));
    let modelRunAt: number | undefined;
    let modelId: number | undefined;
    let doneSeenAt: number | undefined;
    const observe = async (
      name: string,
      input: ActivityExecuteInput,
      next: Next<ActivityInboundCallsInterceptor, 'execute'>,
    ): Promise<unknown> => {
      // The server's time does not move while an activity runs: that is "now" for the provider.
      clock = await env.currentTimeMs();
      const [args] = input.args as [{ orderId?: number }];
      const result: unknown = await next(input);
      if (name === 'runOrder' && modelId === undefined) {
        modelId = args.orderId;
        modelRunAt = clock;
      }
      if (name === 'getOrderStatus' && args.orderId === modelId && doneSeenAt === undefined) {
        if ((result as StatusReport).status === 'DONE') doneSeenAt = clock;
      }
      return result;
    };
    const taskQueue = `bench-polling-${Date.now()}`;
    const worker = await PipelineWorkers.create({
      config: benchConfig(sim.url, taskQueue, dir),
      connection: env.nativeConnection,
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: { execute: (input, next) => observe(ctx.info.activityType, input, next) },
          }),
        ],
      },
    });
    await worker.runUntil(async () => {
      const pipeline = await startPipeline(
        env.client,
        { images: [selfie], styles: [3], gender: 1, polling: run.polling },
        placementFrom({ taskQueue }),
      );
      await pipeline.result();
    });
    const model = sim.stats().orders.find((o) => o.id === modelId);
    if (model === undefined || modelRunAt === undefined || doneSeenAt === undefined) {
      throw new Error('the measurement missed the training run or its end');
    }
    return { statusCalls: model.statusCalls, lagMs: doneSeenAt - (modelRunAt + run.trainingMs) };
  } finally {
    await sim.stop();
    await env.teardown();
    if (run.storeDir === undefined) await rm(dir, { recursive: true, force: true });
  }
}

function benchConfig(providerUrl: string, taskQueue: string, imageRoot: string): AppConfig {
  return {
    provider: { baseUrl: providerUrl, apiKey: 'sim-key', timeoutMs: 5_000 },
    temporal: { address: 'unused', namespace: 'default', taskQueue },
    imageAccess: { roots: [imageRoot], urlHosts: [] },
    api: { tokens: [], port: 0, host: '127.0.0.1', blobDir: imageRoot, maxFileBytes: 1 },
    storage: filesystemStorage(imageRoot),
    callbacks: { privateHosts: [] },
    placement: placementFrom({ taskQueue }),
    campaigns: { maxInFlight: 1 },
    worker: {
      maxConcurrentActivities: 10,
      maxConcurrentWorkflowTasks: 10,
      maxCachedWorkflows: 10,
      shutdownGraceMs: 1_000,
    },
  };
}
