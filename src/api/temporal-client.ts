import { Client, Connection } from '@temporalio/client';
import { clientDataConverter } from '@avatar-pipeline/client/codec/client-data-converter';
import { temporalConnectionOptions } from '@avatar-pipeline/client/client/connection-options';
import type { AppConfig } from '../config/load-config';
import type { PipelineTracing } from '../tracing/pipeline-tracing';

/**
 * A client whose connection is made on first use, so the API starts (and /readyz answers 503)
 * while Temporal is still down. Same TLS, API key and payload encryption as connectClient; with
 * tracing, each start is the parent span of the pipeline's trace.
 */
export function lazyTemporalClient(
  temporal: AppConfig['temporal'],
  options: { tracing?: PipelineTracing } = {},
): Client {
  const connection = Connection.lazy({ ...temporalConnectionOptions(temporal), connectTimeout: '5 seconds' });
  const dataConverter = clientDataConverter(temporal.encryption);
  return new Client({
    connection,
    namespace: temporal.namespace,
    ...(dataConverter ? { dataConverter } : {}),
    ...(options.tracing ? { interceptors: { workflow: options.tracing.clientInterceptors() } } : {}),
  });
}
