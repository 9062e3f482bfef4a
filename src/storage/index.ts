export * from './blob-keys';
export * from './blob-store';
export * from './archive-avatar';
export { contentTypeOfKey, extensionOf } from './content-types';
export { FsBlobStore } from './fs-blob-store';
export { openBlobStore } from './open-blob-store';
export { S3BlobStore, type S3Connection } from './s3-blob-store';
export * from './storage-settings';
export * from './storage-url';
