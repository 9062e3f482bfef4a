import {
  bundleWorkflowCode,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerInterceptors,
  type WorkflowBundle,
} from '@temporalio/worker';
import { createCallbackActivities, createProviderActivities } from '../../activities';
import { temporalConnectionOptions } from '../client/connection-options';
import { ENCODED_FAILURE_CONVERTER_PATH, pipelineDataConverter } from '../codec/data-converter';
import type { AppConfig } from '../config/load-config';
import { ProviderClient } from '../provider/client';
import type { CallRecord } from '../provider/http-transport';
import { combineCallObservers, providerCallObserver } from './provider-call-observer';
import { providerScope } from './provider-scope';

const WORKFLOWS_PATH = require.resolve('../../workflows');

const bundles = new Map<string, Promise<WorkflowBundle>>();
/**
 * Bundling takes seconds; do it once per process however many workers are created. With payload
 * encryption the sandbox gets the failure converter that encodes failure messages too.
 */
export function pipelineWorkflowBundle(options: { encodedFailures?: boolean } = {}): Promise<WorkflowBundle> {
  const key = options.encodedFailures ? 'encoded-failures' : 'default';
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      logger: quietBundlerLogger,
      ...(options.encodedFailures ? { failureConverterPath: ENCODED_FAILURE_CONVERTER_PATH } : {}),
    });
    bundles.set(key, bundle);
  }
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
    options.connection ?? (await NativeConnection.connect(temporalConnectionOptions(config.temporal)));
  const observeCall = providerCallObserver(Runtime.instance().metricMeter);
  const provider = new ProviderClient({
    ...config.provider,
    onCall: options.onProviderCall ? combineCallObservers(observeCall, options.onProviderCall) : observeCall,
  });
  const dataConverter = pipelineDataConverter(config.temporal.encryption);
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: await pipelineWorkflowBundle({ encodedFailures: dataConverter !== undefined }),
    ...(dataConverter ? { dataConverter } : {}),
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
