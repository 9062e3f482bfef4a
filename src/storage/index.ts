export * from '@avatar-pipeline/client/storage/blob-keys';
export * from '@avatar-pipeline/client/storage/blob-store';
export * from './archive-avatar';
export { contentTypeOfKey, extensionOf } from '@avatar-pipeline/client/storage/content-types';
export { FsBlobStore } from '@avatar-pipeline/client/storage/fs-blob-store';
export { openBlobStore } from '@avatar-pipeline/client/storage/open-blob-store';
export type { S3Connection } from '@avatar-pipeline/client/storage/s3-blob-store';
export * from '@avatar-pipeline/client/storage/storage-settings';
export * from '@avatar-pipeline/client/storage/storage-url';
export { BlobLinkSigner, MAX_LINK_TOKEN_LENGTH } from './link-token';
export {
  blobReference,
  isBlobReference,
  keyOfBlobReference,
} from '@avatar-pipeline/client/storage/blob-reference';
export { BlobTooLargeError, readBlob } from '@avatar-pipeline/client/storage/read-blob';
export { deleteUploadBatch, isUploadClaim, uploadFoldersOf } from './upload-batches';
