import { readFile } from 'node:fs/promises';
import { extensionOf, selfieUploadKey, uploadClaimKey, uploadsPrefix, type BlobStore } from '../storage';
import type { StoredFile } from './blob-store';

export interface StoredUploads {
  /** What the workflow receives for each selfie: `s3://…` references into the bucket. */
  references: string[];
  /** Removes them again: the request was refused, or it repeated an earlier one. */
  discard(): Promise<void>;
}

/**
 * Copies a request's checked uploads from the API's staging directory into the blob store, under
 * the pipeline's id, where every worker reads them (object storage needs no shared filesystem).
 * A claim object names the pipeline, so the upload janitor and erasure can find them by its id.
 */
export async function storeUploads(
  store: BlobStore,
  files: StoredFile[],
  workflowId: string,
): Promise<StoredUploads> {
  const keys: string[] = [];
  const discard = async () => {
    for (const key of keys) await store.delete(key);
  };
  try {
    const claim = uploadClaimKey(workflowId);
    await store.put(
      claim,
      Buffer.from(JSON.stringify({ workflowId, since: Date.now() })),
      'application/json',
    );
    keys.push(claim);
    for (const [index, file] of files.entries()) {
      const contentType = file.format === 'jpeg' ? 'image/jpeg' : 'image/png';
      const key = selfieUploadKey(workflowId, index, extensionOf(contentType));
      await store.put(key, await readFile(file.path), contentType);
      keys.push(key);
    }
  } catch (err) {
    await discard();
    throw err;
  }
  return {
    references: keys
      .filter((key) => key.startsWith(uploadsPrefix(workflowId)) && key !== uploadClaimKey(workflowId))
      .map((key) => store.referenceOf(key)),
    discard,
  };
}
