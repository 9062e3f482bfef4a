import type { BlobStore } from './blob-store';
import { FsBlobStore } from './fs-blob-store';
import type { S3BlobStore as S3BlobStoreClass } from './s3-blob-store';
import type { StorageSettings } from './storage-settings';

export function openBlobStore(settings: StorageSettings): BlobStore {
  const { target } = settings;
  if (target.kind === 'fs') return new FsBlobStore(target.dir);
  // Loaded on first use: the AWS SDK is some 10 MB of heap a process storing on the filesystem
  // would otherwise carry for its whole life (docs/operations.md, "Worker memory").
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { S3BlobStore } = require('./s3-blob-store') as { S3BlobStore: typeof S3BlobStoreClass };
  return new S3BlobStore(target, settings.s3);
}
