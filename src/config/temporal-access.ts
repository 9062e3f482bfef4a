import { resolve } from 'node:path';
import type { EncryptionConfig } from '../codec/encryption-keys';
import { ConfigError } from './config-error';
import type { Env } from './env-schema';

/** TLS to the Temporal frontend; file paths are absolute. Without files, TLS with the system's roots. */
export interface TemporalTlsConfig {
  clientCertPath?: string;
  clientKeyPath?: string;
  serverCaPath?: string;
  serverName?: string;
}

/** How to reach and talk to a cluster beyond its address: credentials, TLS, payload encryption. */
export interface TemporalAccess {
  apiKey?: string;
  tls?: TemporalTlsConfig;
  encryption?: EncryptionConfig;
}

/**
 * Hand-written rather than @temporalio/envconfig (1.24.0 reads the same variable names): that
 * package by default also reads a TOML profile file from the home directory, which could silently redirect a
 * server process; it takes any TEMPORAL_TLS other than 1/true as false, ignores a client
 * certificate given without its key, and lets TEMPORAL_TLS=false override certificate files,
 * where this refuses each with the variable named. Encryption keys are ours in any case.
 *
 * TLS is on when asked for (TEMPORAL_TLS=true), when certificate files are given, or with an API
 * key (Temporal Cloud takes keys over TLS only) unless TEMPORAL_TLS=false says otherwise.
 */
export function temporalAccess(e: Env, cwd: string): TemporalAccess {
  const problems: { variable: string; reason: string }[] = [];
  if (Boolean(e.TEMPORAL_TLS_CLIENT_CERT_PATH) !== Boolean(e.TEMPORAL_TLS_CLIENT_KEY_PATH)) {
    problems.push({
      variable: e.TEMPORAL_TLS_CLIENT_CERT_PATH
        ? 'TEMPORAL_TLS_CLIENT_KEY_PATH'
        : 'TEMPORAL_TLS_CLIENT_CERT_PATH',
      reason:
        'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together (client certificate and its key)',
    });
  }
  const hasTlsFiles = Boolean(
    e.TEMPORAL_TLS_CLIENT_CERT_PATH || e.TEMPORAL_TLS_CLIENT_KEY_PATH || e.TEMPORAL_TLS_SERVER_CA_CERT_PATH,
  );
  if (e.TEMPORAL_TLS === false && hasTlsFiles) {
    problems.push({ variable: 'TEMPORAL_TLS', reason: 'is false, but TLS certificate files are set' });
  }
  const tlsOn = e.TEMPORAL_TLS ?? (hasTlsFiles || e.TEMPORAL_API_KEY !== undefined);

  let encryption: EncryptionConfig | undefined;
  if (e.ENCRYPTION_KEYS) {
    const keys = e.ENCRYPTION_KEYS;
    const currentKeyId = e.ENCRYPTION_KEY_ID ?? (keys.length === 1 ? keys[0]!.id : undefined);
    if (currentKeyId === undefined) {
      problems.push({
        variable: 'ENCRYPTION_KEY_ID',
        reason: `is required with several ENCRYPTION_KEYS: name the one that encrypts (${keys.map((k) => k.id).join(', ')})`,
      });
    } else if (!keys.some((k) => k.id === currentKeyId)) {
      problems.push({
        variable: 'ENCRYPTION_KEY_ID',
        reason: `"${currentKeyId}" is not among ENCRYPTION_KEYS (${keys.map((k) => k.id).join(', ')})`,
      });
    } else {
      encryption = { currentKeyId, keys };
    }
  } else if (e.ENCRYPTION_KEY_ID) {
    problems.push({ variable: 'ENCRYPTION_KEYS', reason: 'must be set when ENCRYPTION_KEY_ID is' });
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const file = (path: string | undefined) => (path ? resolve(cwd, path) : undefined);
  const tls: TemporalTlsConfig | undefined = tlsOn
    ? {
        ...(e.TEMPORAL_TLS_CLIENT_CERT_PATH ? { clientCertPath: file(e.TEMPORAL_TLS_CLIENT_CERT_PATH) } : {}),
        ...(e.TEMPORAL_TLS_CLIENT_KEY_PATH ? { clientKeyPath: file(e.TEMPORAL_TLS_CLIENT_KEY_PATH) } : {}),
        ...(e.TEMPORAL_TLS_SERVER_CA_CERT_PATH
          ? { serverCaPath: file(e.TEMPORAL_TLS_SERVER_CA_CERT_PATH) }
          : {}),
        ...(e.TEMPORAL_TLS_SERVER_NAME ? { serverName: e.TEMPORAL_TLS_SERVER_NAME } : {}),
      }
    : undefined;
  return {
    ...(e.TEMPORAL_API_KEY ? { apiKey: e.TEMPORAL_API_KEY } : {}),
    ...(tls ? { tls } : {}),
    ...(encryption ? { encryption } : {}),
  };
}
