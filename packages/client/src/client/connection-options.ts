import type { TemporalConnection } from '../config/temporal-connection';

/** What Connection.connect (client) and NativeConnection.connect (worker) both take. */
export type TemporalConnectionOptions = Pick<TemporalConnection, 'address' | 'apiKey' | 'tls' | 'metadata'>;

/** The cluster's address, API key, TLS and gRPC headers, as packages/client/src/config/temporal-connection.ts read them. */
export function temporalConnectionOptions(temporal: TemporalConnectionOptions): TemporalConnectionOptions {
  const { address, apiKey, tls, metadata } = temporal;
  return {
    address,
    ...(apiKey ? { apiKey } : {}),
    ...(tls ? { tls } : {}),
    ...(metadata ? { metadata } : {}),
  };
}
