import { UPLOAD_CLAIM_NAME, uploadsPrefix } from '@avatar-pipeline/client/storage/blob-keys';
import { keyOfBlobReference } from '@avatar-pipeline/client/storage/blob-reference';
import type { BlobStore } from '@avatar-pipeline/client/storage/blob-store';

/** Whether a key is the claim object of its upload folder. */
export function isUploadClaim(key: string): boolean {
  return key.endsWith(`/${UPLOAD_CLAIM_NAME}`);
}

/**
 * Deletes one request's upload folder, its claim last: a deletion cut short leaves a folder that
 * still says whose it is, so the janitor can finish it. Returns the keys deleted.
 */
export async function deleteUploadBatch(store: BlobStore, keys: readonly string[]): Promise<string[]> {
  const claimLast = [...keys].sort((a, b) => Number(isUploadClaim(a)) - Number(isUploadClaim(b)));
  for (const key of claimLast) await store.delete(key);
  return claimLast;
}

/**
 * The upload folders (`uploads/<workflowId>/<batch>/`) that a run's selfie references name, for
 * the run `workflowId` only: a reference to another run's uploads names no folder of this one.
 */
export function uploadFoldersOf(workflowId: string, images: readonly string[]): string[] {
  const own = uploadsPrefix(workflowId);
  const folders = new Set<string>();
  for (const image of images) {
    const key = keyOfBlobReference(image);
    if (key === undefined || !key.startsWith(own)) continue;
    folders.add(key.slice(0, key.lastIndexOf('/') + 1));
  }
  return [...folders];
}
