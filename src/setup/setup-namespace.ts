import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { Duration } from '@temporalio/common/lib/time';
import { temporalConnectionOptions } from '@avatar-pipeline/client/client/connection-options';
import type { AppConfig } from '../config/load-config';
import { PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS } from './search-attribute-definitions';
import { prepareNamespace } from './prepare-namespace';

export interface SetupOptions {
  /** History retention of a namespace registered here (one that exists is left as it is). */
  retention?: Duration;
  /** How long to wait for new search attributes to become visible. Default 60 s. */
  timeoutMs?: number;
  log?: (message: string) => void;
}

/**
 * Makes a cluster ready for pipelines, idempotently: the namespace (registered when missing, where
 * the cluster lets clients do that; Temporal Cloud namespaces are made in Cloud) and the
 * package's custom search attributes. Resolves once all of them are visible.
 */
export async function setupNamespace(
  temporal: AppConfig['temporal'],
  options: SetupOptions = {},
): Promise<{ searchAttributes: string[] }> {
  const log = options.log ?? (() => undefined);
  const connection = await Connection.connect({
    ...temporalConnectionOptions(temporal),
    connectTimeout: '10 seconds',
  });
  try {
    await prepareNamespace(connection, temporal.namespace, PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS, log, {
      ...(options.retention !== undefined ? { retention: options.retention } : {}),
    });
    const wanted = Object.keys(PIPELINE_SEARCH_ATTRIBUTE_DEFINITIONS);
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({
        namespace: temporal.namespace,
      });
      const missing = wanted.filter((name) => !(customAttributes && name in customAttributes));
      if (missing.length === 0) return { searchAttributes: wanted };
      if (Date.now() > deadline) {
        throw new Error(`Search attributes ${missing.join(', ')} did not become visible in time`);
      }
      await delay(500);
    }
  } finally {
    await connection.close();
  }
}
