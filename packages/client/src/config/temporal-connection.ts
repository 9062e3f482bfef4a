import { resolve } from 'node:path';
import type { TLSConfig } from '@temporalio/client';
import { loadClientConfigProfile, toClientOptions, type ClientConfigTLS } from '@temporalio/envconfig';
import { ConfigError } from './config-error';
import type { Env } from './env-schema';

/** How to reach the cluster: what Connection.connect (client) and NativeConnection.connect (worker) take. */
export interface TemporalConnection {
  address: string;
  namespace: string;
  apiKey?: string;
  /** `true`: TLS with the system's roots; an object: certificates (read at load) and server name. */
  tls?: TLSConfig | true;
  /** gRPC headers on every call (TEMPORAL_GRPC_META_<NAME>). */
  metadata?: Record<string, string>;
}

/** Read by envconfig as paths; resolved against the working directory first. */
const FILE_VARIABLES = [
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
] as const;

/**
 * The variables the `temporal` CLI reads, read by @temporalio/envconfig: TEMPORAL_ADDRESS
 * (default localhost:7233), TEMPORAL_NAMESPACE (default `default`), TEMPORAL_API_KEY, TEMPORAL_TLS,
 * TEMPORAL_TLS_CLIENT_CERT_PATH, _CLIENT_KEY_PATH, _SERVER_CA_CERT_PATH (or their _DATA twins holding
 * the PEM), TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_<NAME>. TLS is on when asked for, when any
 * TLS variable is set, or with an API key, unless TEMPORAL_TLS=false.
 *
 * envconfig's profile file is off, and TEMPORAL_CONFIG_FILE and TEMPORAL_PROFILE are refused: by
 * default it reads the temporal CLI's ~/.config/temporalio/temporal.toml, so a worker or API
 * started by a user with a CLI profile would silently go to that profile's cluster, with its
 * credentials; one environment is the whole configuration.
 *
 * Refused here, naming the variable, where envconfig takes a value as it comes: TEMPORAL_TLS other
 * than a flag (envSchema; envconfig reads a typo as false), a client certificate without its key
 * (envconfig drops it), TEMPORAL_TLS=false beside certificate files, an unreadable file. Blank
 * values count as unset (.env.example and compose leave them blank), where envconfig would take an
 * empty API key for a key.
 */
export function temporalConnection(
  env: NodeJS.ProcessEnv,
  e: Pick<Env, 'TEMPORAL_TLS'>,
  cwd: string,
): TemporalConnection {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('TEMPORAL_') && value?.trim()) variables[name] = value;
  }
  if (e.TEMPORAL_TLS !== undefined) variables.TEMPORAL_TLS = String(e.TEMPORAL_TLS);
  for (const name of FILE_VARIABLES) if (variables[name]) variables[name] = resolve(cwd, variables[name]);
  for (const name of ['TEMPORAL_CONFIG_FILE', 'TEMPORAL_PROFILE']) {
    if (variables[name]) {
      throw new ConfigError([
        { variable: name, reason: 'is not read: set the TEMPORAL_* variables instead' },
      ]);
    }
  }

  const profile = loadClientConfigProfile({ disableFile: true, overrideEnvVars: variables });
  checkTls(profile.tls);
  const { connectionOptions, namespace } = withFileErrorsNamed(variables, () => toClientOptions(profile));
  const { address, apiKey, tls } = connectionOptions;
  return {
    address: address ?? 'localhost:7233',
    namespace: namespace ?? 'default',
    ...(apiKey ? { apiKey } : {}),
    ...(tls ? { tls } : {}),
    ...(profile.grpcMeta && Object.keys(profile.grpcMeta).length > 0 ? { metadata: profile.grpcMeta } : {}),
  };
}

function checkTls(tls: ClientConfigTLS | undefined): void {
  if (tls && Boolean(tls.clientCert) !== Boolean(tls.clientKey)) {
    throw new ConfigError([
      {
        variable: tls.clientCert ? 'TEMPORAL_TLS_CLIENT_KEY_PATH' : 'TEMPORAL_TLS_CLIENT_CERT_PATH',
        reason:
          'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together (client certificate and its key)',
      },
    ]);
  }
  if (tls?.disabled && (tls.clientCert || tls.serverCACert)) {
    throw new ConfigError([
      { variable: 'TEMPORAL_TLS', reason: 'is false, but TLS certificate files are set' },
    ]);
  }
}

/** envconfig reads the certificate files; one it cannot read is named by its variable. */
function withFileErrorsNamed<T>(variables: Record<string, string>, read: () => T): T {
  try {
    return read();
  } catch (err) {
    const { path, code } = err as NodeJS.ErrnoException;
    const variable = FILE_VARIABLES.find((name) => variables[name] === path);
    if (!variable) throw err;
    throw new ConfigError([{ variable, reason: `cannot read ${path} (${code ?? String(err)})` }]);
  }
}
