import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TLSConfig } from '@temporalio/client';
import { loadClientConfigProfile, toClientOptions, type ClientConfigProfile } from '@temporalio/envconfig';
import { ConfigError } from './config-error';
import { TEMPORAL_ADDRESS_PATTERN, type Env } from './env-schema';

export const DEFAULT_TEMPORAL_ADDRESS = 'localhost:7233';
export const DEFAULT_TEMPORAL_NAMESPACE = 'default';

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

/** The variables operators set (.env.example lists them); envconfig reads a few more (see below). */
export const CONNECTION_VARIABLES = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_NAME',
] as const;

/** Variables naming files, resolved against the working directory before @temporalio/envconfig reads them. */
const FILE_VARIABLES = [
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_CONFIG_FILE',
] as const;

/**
 * The TEMPORAL_* variables the `temporal` CLI reads too, read by @temporalio/envconfig:
 * TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH
 * / _KEY_PATH / _SERVER_CA_CERT_PATH (or their _DATA twins holding the PEM itself),
 * TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_<NAME>. TLS is on when TEMPORAL_TLS=true, when any
 * TLS variable is set, or with an API key (Temporal Cloud takes keys over TLS only), unless
 * TEMPORAL_TLS=false.
 *
 * The profile file is read only when TEMPORAL_CONFIG_FILE names it (profile TEMPORAL_PROFILE, else
 * `default`; the variables override its values). envconfig's own fallback, the temporal CLI's
 * ~/.config/temporalio/temporal.toml, is off: a worker or API started from a shell whose user has a
 * CLI profile there would silently go to that profile's cluster, with its credentials.
 *
 * What envconfig takes as it comes is refused here, naming the variable (the CLI exits 2 on it): a
 * blank value (as .env.example and compose leave them) counts as unset, where envconfig would take
 * an empty API key as a key and an empty path as a file; TEMPORAL_TLS other than true/false/1/0/yes/no
 * (envconfig reads a typo as false); a client certificate without its key (envconfig drops it);
 * TEMPORAL_TLS=false beside certificate files (envconfig drops the files); an unreadable file.
 * Relative paths are taken from `cwd`.
 */
export function temporalConnection(env: NodeJS.ProcessEnv, e: Env, cwd: string): TemporalConnection {
  const variables = envconfigVariables(env, e, cwd);
  const profile = loadProfile(variables);
  checkTls(profile);
  const address = profile.address ?? DEFAULT_TEMPORAL_ADDRESS;
  if (!TEMPORAL_ADDRESS_PATTERN.test(address)) {
    // TEMPORAL_ADDRESS itself was checked with the rest of the environment: this one is the file's.
    throw new ConfigError([
      {
        variable: 'TEMPORAL_CONFIG_FILE',
        reason: `address "${address}" must be host:port, e.g. localhost:7233`,
      },
    ]);
  }
  const { connectionOptions, namespace } = withFileErrorsNamed(variables, () => toClientOptions(profile));
  const { apiKey, tls } = connectionOptions;
  const metadata = profile.grpcMeta;
  return {
    address,
    namespace: namespace ?? DEFAULT_TEMPORAL_NAMESPACE,
    ...(typeof apiKey === 'string' ? { apiKey } : {}),
    ...(tls ? { tls } : {}),
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/** The non-blank TEMPORAL_* variables, TEMPORAL_TLS as envconfig spells it, file paths absolute. */
function envconfigVariables(env: NodeJS.ProcessEnv, e: Env, cwd: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('TEMPORAL_') && value !== undefined && value.trim() !== '') variables[name] = value;
  }
  if (e.TEMPORAL_TLS !== undefined) variables.TEMPORAL_TLS = String(e.TEMPORAL_TLS);
  for (const name of FILE_VARIABLES) {
    const path = variables[name];
    if (path !== undefined) variables[name] = resolve(cwd, path);
  }
  return variables;
}

function loadProfile(variables: Record<string, string>): ClientConfigProfile {
  const file = variables.TEMPORAL_CONFIG_FILE;
  if (file === undefined && variables.TEMPORAL_PROFILE !== undefined) {
    throw new ConfigError([
      {
        variable: 'TEMPORAL_PROFILE',
        reason:
          'needs TEMPORAL_CONFIG_FILE: profiles are read only from a file named there, not from the temporal CLI default',
      },
    ]);
  }
  // envconfig takes a missing profile file for an empty one; read here so a wrong path is refused.
  const data = file === undefined ? undefined : readNamed(file, 'TEMPORAL_CONFIG_FILE');
  try {
    return loadClientConfigProfile({
      overrideEnvVars: variables,
      ...(data === undefined ? { disableFile: true } : { configSource: { data } }),
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const both = /Cannot specify both (\w+)_path and/.exec(message);
    if (both) {
      const name = `TEMPORAL_TLS_${both[1]!.toUpperCase()}`;
      throw new ConfigError([
        { variable: `${name}_PATH`, reason: `and ${name}_DATA are both set: give one` },
      ]);
    }
    const variable = /^Profile '/.test(message) ? 'TEMPORAL_PROFILE' : 'TEMPORAL_CONFIG_FILE';
    throw new ConfigError([{ variable, reason: message }]);
  }
}

function checkTls(profile: ClientConfigProfile): void {
  const tls = profile.tls;
  if (!tls) return;
  if (Boolean(tls.clientCert) !== Boolean(tls.clientKey)) {
    throw new ConfigError([
      {
        variable: tls.clientCert ? 'TEMPORAL_TLS_CLIENT_KEY_PATH' : 'TEMPORAL_TLS_CLIENT_CERT_PATH',
        reason:
          'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together (client certificate and its key)',
      },
    ]);
  }
  if (tls.disabled && (tls.clientCert || tls.clientKey || tls.serverCACert)) {
    throw new ConfigError([
      { variable: 'TEMPORAL_TLS', reason: 'is false, but TLS certificate files are set' },
    ]);
  }
}

/** envconfig reads the certificate files; a file it cannot read is named by the variable that gave it. */
function withFileErrorsNamed<T>(variables: Record<string, string>, read: () => T): T {
  try {
    return read();
  } catch (err) {
    const path = (err as NodeJS.ErrnoException).path;
    if (path === undefined) throw err;
    const variable = FILE_VARIABLES.find((name) => variables[name] === path) ?? 'TEMPORAL_CONFIG_FILE';
    throw new ConfigError([{ variable, reason: cannotRead(path, err) }]);
  }
}

function readNamed(path: string, variable: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([{ variable, reason: cannotRead(path, err) }]);
  }
}

function cannotRead(path: string, err: unknown): string {
  const reason = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
  return `cannot read ${path} (${reason})`;
}
