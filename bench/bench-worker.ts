import { placementFrom, type RunPlacement } from '@avatar-pipeline/client/config/run-placement';
import type { RunningSimulator } from '../src/simulator';
import { stackBlobDir, startWorkerProcess, type Stack, type WorkerProcess } from './campaign-stack';

export interface BenchWorker extends WorkerProcess {
  /** The fresh task queues the worker polls, for starts to use. */
  placement: RunPlacement;
}

/** The product's worker process (`avatar-pipeline worker`) on fresh task queues, against `sim`. */
export async function startBenchWorker(
  stack: Stack,
  sim: RunningSimulator,
  imageDir: string,
  env: Record<string, string> = {},
  /** Another build's `bin/avatar-pipeline.js`; this checkout's by default. */
  bin?: string,
  /** Node's own arguments instead of the image's (startWorkerProcess). */
  nodeArgs?: readonly string[],
): Promise<BenchWorker> {
  const placement = placementFrom({
    taskQueue: `bench-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
  });
  const { taskQueue, providerTaskQueue } = placement;
  const worker = await startWorkerProcess(
    stack,
    {
      TEMPORAL_ADDRESS: stack.server.address,
      TEMPORAL_NAMESPACE: stack.server.namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PROVIDER_TASK_QUEUE: providerTaskQueue,
      PROVIDER_BASE_URL: sim.url,
      PROVIDER_API_KEY: 'sim-key',
      IMAGE_ROOTS: imageDir,
      BLOB_DIR: stackBlobDir(stack),
      LOG_LEVEL: 'WARN',
      ...env,
    },
    { pipeline: taskQueue, provider: providerTaskQueue },
    bin,
    nodeArgs,
  );
  return { ...worker, placement };
}
