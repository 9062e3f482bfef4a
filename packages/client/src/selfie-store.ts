/**
 * @avatar-pipeline/client/selfie-store: for apps that hand selfies to `start` as bytes, having no
 * disk they share with the workers. It opens the blob store the workers read (STORAGE_URL, else
 * BLOB_DIR) with the retention policy for the selfies (SELFIE_RETENTION, set in the app's
 * environment as the operator sets it for the workers). It is an entry of its own because
 * an `s3://` store loads the AWS SDK (`@aws-sdk/client-s3` and `@aws-sdk/s3-request-presigner`,
 * optional peer dependencies): apps that never hand over bytes neither install nor bundle it.
 */
import type { SelfieStore } from './client/selfie-bytes';
import { envSchema } from './config/env-schema';
import { parseEnvOf } from './config/parse-env';
import { openBlobStoreFromEnv } from './storage/env-blob-store';

const selfieStoreEnv = envSchema.pick({ SELFIE_RETENTION: true });

/** The store the client writes selfie bytes to; close it once the client is done. */
export interface OpenedSelfieStore extends SelfieStore {
  /** Where the selfies go: `s3://bucket/prefix` or a directory. */
  readonly location: string;
  close(): void;
}

/**
 * Opens the workers' blob store from `env`: STORAGE_URL (`s3://bucket/prefix`, with endpoint,
 * region and keys from the AWS variables, or a directory), else BLOB_DIR. A ConfigError names any
 * bad variable, and an s3:// store without the AWS SDK installed. Under
 * SELFIE_RETENTION=after-training (the default) each run deletes its selfies once its model is
 * trained; under the other policies the starter API's upload janitor does.
 */
export function openSelfieStore(
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): OpenedSelfieStore {
  const e = parseEnvOf(selfieStoreEnv, env);
  const store = openBlobStoreFromEnv(env, cwd);
  return {
    location: store.location,
    put: (key, body, contentType) => store.put(key, body, contentType),
    delete: (key) => store.delete(key),
    deleteUploadsAfterTraining: e.SELFIE_RETENTION.kind === 'after-training',
    close: () => store.close(),
  };
}

export type { SelfieStore, SelfieInput } from './client/selfie-bytes';
