import type { EncryptionConfig } from '../codec/encryption-keys';
import { ConfigError } from './config-error';
import type { Env } from './env-schema';
import { temporalConnection, type TemporalConnection } from './temporal-connection';

/** How to reach and talk to a cluster: address, namespace, credentials, TLS, payload encryption. */
export type TemporalAccess = TemporalConnection & { encryption?: EncryptionConfig };

/** The connection (packages/client/src/config/temporal-connection.ts) and payload encryption (ENCRYPTION_KEYS, ours). */
export function temporalAccess(
  env: NodeJS.ProcessEnv,
  e: Pick<Env, 'TEMPORAL_TLS' | 'ENCRYPTION_KEYS' | 'ENCRYPTION_KEY_ID'>,
  cwd: string,
): TemporalAccess {
  const connection = temporalConnection(env, e, cwd);
  const encryption = payloadEncryption(e);
  return { ...connection, ...(encryption ? { encryption } : {}) };
}

function payloadEncryption(
  e: Pick<Env, 'ENCRYPTION_KEYS' | 'ENCRYPTION_KEY_ID'>,
): EncryptionConfig | undefined {
  if (!e.ENCRYPTION_KEYS) {
    if (e.ENCRYPTION_KEY_ID) {
      throw new ConfigError([
        { variable: 'ENCRYPTION_KEYS', reason: 'must be set when ENCRYPTION_KEY_ID is' },
      ]);
    }
    return undefined;
  }
  const keys = e.ENCRYPTION_KEYS;
  const currentKeyId = e.ENCRYPTION_KEY_ID ?? (keys.length === 1 ? keys[0]!.id : undefined);
  if (currentKeyId === undefined) {
    throw new ConfigError([
      {
        variable: 'ENCRYPTION_KEY_ID',
        reason: `is required with several ENCRYPTION_KEYS: name the one that encrypts (${keys.map((k) => k.id).join(', ')})`,
      },
    ]);
  }
  if (!keys.some((k) => k.id === currentKeyId)) {
    throw new ConfigError([
      {
        variable: 'ENCRYPTION_KEY_ID',
        reason: `"${currentKeyId}" is not among ENCRYPTION_KEYS (${keys.map((k) => k.id).join(', ')})`,
      },
    ]);
  }
  return { currentKeyId, keys };
}
