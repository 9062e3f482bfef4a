import {
  bundleWorkflowCode,
  NativeConnection,
  Worker,
  type WorkerInterceptors,
  type WorkflowBundle,
} from '@temporalio/worker';
import { createCallbackActivities, createProviderActivities } from '../../activities';
import type { AppConfig } from '../config/load-config';
import { ProviderClient } from '../provider/client';
import type { CallRecord } from '../provider/http-transport';
import { providerScope } from './provider-scope';

const WORKFLOWS_PATH = require.resolve('../../workflows');

let bundle: Promise<WorkflowBundle> | undefined;
/** Bundling takes seconds; do it once per process however many workers are created. */
export function pipelineWorkflowBundle(): Promise<WorkflowBundle> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  return bundle;
}

export interface PipelineWorkerOptions {
  config: Pick<AppConfig, 'provider' | 'temporal' | 'imageAccess' | 'worker'> & {
    callbacks?: AppConfig['callbacks'];
  };
  connection?: NativeConnection;
  onProviderCall?: (call: CallRecord) => void;
  interceptors?: WorkerInterceptors;
}

/** Wires the provider client, activities and bundled workflows into one worker on the pipeline task queue. */
export async function createPipelineWorker(options: PipelineWorkerOptions): Promise<Worker> {
  const { config } = options;
  const connection =
    options.connection ?? (await NativeConnection.connect({ address: config.temporal.address }));
  const provider = new ProviderClient({ ...config.provider, onCall: options.onProviderCall });
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: await pipelineWorkflowBundle(),
    activities: {
      ...createProviderActivities({
        provider,
        imageAccess: config.imageAccess,
        providerScope: providerScope(config.provider.baseUrl),
      }),
      ...createCallbackActivities(config.callbacks ?? { privateHosts: [] }),
    },
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    shutdownGraceTime: config.worker.shutdownGraceMs,
    ...(options.interceptors ? { interceptors: options.interceptors } : {}),
  });
}

const quietBundlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: unknown) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: unknown) => console.error(message, meta ?? ''),
  log: () => undefined,
};
