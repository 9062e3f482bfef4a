import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, makeTelemetryFilterString, Runtime, type RuntimeOptions } from '@temporalio/worker';
import type { OperationsConfig } from '../config/operations-config';
import { writeJsonLog } from './json-log';

/**
 * The worker process's SDK runtime: logs (the SDK core's too) through one logger, as JSON lines by
 * default, and the SDK's metrics (with the package's own) on a Prometheus endpoint when
 * METRICS_BIND_ADDRESS is set. Must run before anything connects to Temporal, once per process:
 * returns false (and changes nothing) when a runtime already exists, e.g. in a process that embeds
 * the worker.
 */
export function installWorkerRuntime(ops: Pick<OperationsConfig, 'logging' | 'metrics'>): boolean {
  const { level, format } = ops.logging;
  const options: RuntimeOptions = {
    logger: format === 'json' ? new DefaultLogger(level, writeJsonLog) : new DefaultLogger(level),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: level }), forward: {} },
      ...(ops.metrics.bindAddress
        ? { metrics: { prometheus: { bindAddress: ops.metrics.bindAddress } } }
        : {}),
    },
  };
  try {
    Runtime.install(options);
    return true;
  } catch (err) {
    if (err instanceof IllegalStateError) return false;
    throw err;
  }
}
