import { Client, Connection } from '@temporalio/client';
import { clientDataConverter } from '../codec/client-data-converter';
import type { TemporalConfig } from '../config/starter-settings';
import { temporalConnectionOptions } from './connection-options';
import { TemporalUnreachableError } from './temporal-unreachable';

/**
 * A Temporal client for the configured cluster (TLS and API key when configured), with payload
 * encryption when keys are configured; close it with `client.connection.close()`.
 */
export async function connectClient(temporal: TemporalConfig): Promise<Client> {
  const connection = await Connection.connect({
    ...temporalConnectionOptions(temporal),
    connectTimeout: '5 seconds',
  }).catch((err: unknown) => {
    throw new TemporalUnreachableError(temporal.address, err);
  });
  const dataConverter = clientDataConverter(temporal.encryption);
  return new Client({
    connection,
    namespace: temporal.namespace,
    ...(dataConverter ? { dataConverter } : {}),
  });
}
