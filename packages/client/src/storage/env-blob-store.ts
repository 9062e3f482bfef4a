import { ConfigError } from '../config/config-error';
import { envSchema } from '../config/env-schema';
import { parseEnvOf } from '../config/parse-env';
import type { BlobStore } from './blob-store';
import { openBlobStore } from './open-blob-store';
import { StorageSettingsError, storageSettingsFromEnv, type StorageSettings } from './storage-settings';

const blobStoreEnv = envSchema.pick({ BLOB_DIR: true });

/**
 * Opens the blob store the workers use, from `env` as the operator sets it for them: STORAGE_URL
 * (`s3://bucket/prefix`, with endpoint, region and keys from the AWS variables, or a directory),
 * else BLOB_DIR. A ConfigError names any bad variable, and an s3:// store without the AWS SDK
 * (`@aws-sdk/client-s3` and `@aws-sdk/s3-request-presigner`, optional peers) installed. Close it
 * once done.
 */
export function openBlobStoreFromEnv(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): BlobStore {
  const e = parseEnvOf(blobStoreEnv, env);
  return openStore(storageSettingsOf(env, e.BLOB_DIR, cwd));
}

/** storageSettingsFromEnv, its problems reported as a ConfigError naming each variable. */
export function storageSettingsOf(env: NodeJS.ProcessEnv, blobDir: string, cwd: string): StorageSettings {
  try {
    return storageSettingsFromEnv(env, blobDir, cwd);
  } catch (err) {
    if (err instanceof StorageSettingsError) throw new ConfigError(err.issues);
    throw err;
  }
}

function openStore(settings: StorageSettings): BlobStore {
  try {
    return openBlobStore(settings);
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND' || !String(err).includes('@aws-sdk/'))
      throw err;
    throw new ConfigError([
      {
        variable: 'STORAGE_URL',
        reason:
          'an s3:// store needs the optional peers @aws-sdk/client-s3 and @aws-sdk/s3-request-presigner installed',
      },
    ]);
  }
}
