export * from '@avatar-pipeline/client/storage/blob-keys';
export * from './blob-store';
export * from './archive-avatar';
export { contentTypeOfKey, extensionOf } from './content-types';
export { FsBlobStore } from './fs-blob-store';
export { openBlobStore } from './open-blob-store';
export type { S3Connection } from './s3-blob-store';
export * from './storage-settings';
export * from '@avatar-pipeline/client/storage/storage-url';
export { BlobLinkSigner, MAX_LINK_TOKEN_LENGTH } from './link-token';
export {
  blobReference,
  isBlobReference,
  keyOfBlobReference,
} from '@avatar-pipeline/client/storage/blob-reference';
export { BlobTooLargeError, readBlob } from './read-blob';
export { deleteUploadBatch, isUploadClaim, uploadFoldersOf } from './upload-batches';
