import { Runtime } from '@temporalio/worker';
import { loadConfig } from '../config/load-config';
import { loadOperationsConfig, type OperationsConfig } from '../config/operations-config';
import type { PipelineTracing as PipelineTracingClass } from '../tracing/pipeline-tracing';
import { installWorkerRuntime } from './install-runtime';
import { PipelineWorkers } from './pipeline-workers';

/**
 * The pipeline worker: configuration from the environment, one worker on the pipeline task
 * queue and one on the rate-limited provider task queue. The SDK drains in-flight work on
 * SIGINT/SIGTERM before `run()` resolves.
 */
export async function runWorker(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  const operations = loadOperationsConfig(env);
  // Before any connection: the runtime (logger, metrics exporter) is fixed once created.
  const installed = installWorkerRuntime(operations);
  const log = Runtime.instance().logger;
  if (!installed)
    log.warn('an SDK runtime already exists in this process: worker logs and metrics settings not applied');
  const tracing = startTracing(operations.tracing);
  const workers = await PipelineWorkers.create({ config, ...(tracing ? { tracing } : {}) });
  log.info('avatar-pipeline worker started', {
    taskQueue: workers.taskQueues.pipeline ?? 'none (check worker only)',
    providerTaskQueue: workers.taskQueues.provider ?? 'none (check worker only)',
    checksTaskQueue: workers.taskQueues.checks ?? 'none',
    providerMaxRequestsPerSecond: config.worker.providerMaxRequestsPerSecond ?? 'unlimited',
    address: config.temporal.address,
    namespace: config.temporal.namespace,
    provider: withoutCredentials(config.provider.baseUrl),
    tls: config.temporal.tls !== undefined,
    payloadEncryption: config.temporal.encryption
      ? `on (key ${config.temporal.encryption.currentKeyId})`
      : 'off',
    metrics: operations.metrics.bindAddress ? `http://${operations.metrics.bindAddress}/metrics` : 'off',
    tracing: operations.tracing.endpoint ?? 'off',
  });
  await workers.run();
  await tracing?.shutdown();
  log.info('avatar-pipeline worker drained and stopped');
  // Forwarding core logs keeps the runtime (and so the process) alive after the workers stop;
  // a runtime this process did not install for the worker is not ours to shut down.
  if (installed) await Runtime.instance().shutdown();
}

/** OpenTelemetry is loaded only when tracing is on: its modules are heap a worker without it would carry (docs/operations.md, "Worker memory"). */
function startTracing(tracing: OperationsConfig['tracing']): PipelineTracingClass | undefined {
  if (!tracing.endpoint) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PipelineTracing } = require('../tracing/pipeline-tracing') as {
    PipelineTracing: typeof PipelineTracingClass;
  };
  return PipelineTracing.start(tracing);
}

/** A base URL may carry user:password@; the log gets the origin and path only. */
function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return '(invalid URL)';
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString().replace(/\/$/, '');
}
