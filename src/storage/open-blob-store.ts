import type { BlobStore } from './blob-store';
import { FsBlobStore } from './fs-blob-store';
import { S3BlobStore } from './s3-blob-store';
import type { StorageSettings } from './storage-settings';

export function openBlobStore(settings: StorageSettings): BlobStore {
  const { target } = settings;
  return target.kind === 'fs' ? new FsBlobStore(target.dir) : new S3BlobStore(target, settings.s3);
}
