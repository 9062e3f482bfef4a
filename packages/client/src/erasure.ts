/**
 * @avatar-pipeline/client/erasure: erasing a person (the right to be forgotten) from an app, as
 * `DELETE /v1/subjects/{subjectId}` and `avatar-pipeline forget` do: their campaign lines, runs,
 * stored selfies and avatars, and webhook delivery records. The objects are in the blob store the
 * workers use, so it takes that store: `openBlobStoreFromEnv()` opens it as the operator configured
 * the workers. An entry of its own because an `s3://` store loads the AWS SDK (optional peers).
 */
export { forgetSubject } from './erasure/forget-subject';
export type { ForgetReport, ForgetSubjectOptions } from './erasure/forget-subject';
export { openBlobStoreFromEnv } from './storage/env-blob-store';
export type { BlobStore } from './storage/blob-store';
