import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { ConfigError } from '../config/config-error';
import type { AppConfig } from '../config/load-config';

/** What Connection.connect (client) and NativeConnection.connect (worker) both take. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
}

/** Address, TLS (certificate files read now) and API key of the configured cluster. */
export function temporalConnectionOptions(
  temporal: Pick<AppConfig['temporal'], 'address' | 'tls' | 'apiKey'>,
): TemporalConnectionOptions {
  const options: TemporalConnectionOptions = { address: temporal.address };
  if (temporal.apiKey) options.apiKey = temporal.apiKey;
  const tls = temporal.tls;
  if (!tls) return options;
  const config: TLSConfig = {};
  if (tls.serverName) config.serverNameOverride = tls.serverName;
  if (tls.serverCaPath)
    config.serverRootCACertificate = readPem(tls.serverCaPath, 'TEMPORAL_TLS_SERVER_CA_CERT_PATH');
  if (tls.clientCertPath && tls.clientKeyPath) {
    config.clientCertPair = {
      crt: readPem(tls.clientCertPath, 'TEMPORAL_TLS_CLIENT_CERT_PATH'),
      key: readPem(tls.clientKeyPath, 'TEMPORAL_TLS_CLIENT_KEY_PATH'),
    };
  }
  options.tls = Object.keys(config).length > 0 ? config : true;
  return options;
}

function readPem(path: string, variable: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new ConfigError([{ variable, reason: `cannot read ${path} (${reason})` }]);
  }
}
