import { Client, Connection } from '@temporalio/client';
import type { AppConfig } from '../config/load-config';

/** A Temporal client for the configured cluster; close it with `client.connection.close()`. */
export async function connectClient(temporal: AppConfig['temporal']): Promise<Client> {
  const connection = await Connection.connect({ address: temporal.address, connectTimeout: '5 seconds' });
  return new Client({ connection, namespace: temporal.namespace });
}
