import { isValidKey } from './blob-keys';

/**
 * How a workflow input names an object in the blob store: `blob:<key>`. The key is relative to the
 * store, so each worker resolves it through the store it is configured with (STORAGE_URL, else
 * BLOB_DIR): a worker needs no path on the API's filesystem, and object storage needs none at all.
 */
const SCHEME = 'blob:';

export function blobReference(key: string): string {
  if (!isValidKey(key)) throw new Error(`invalid blob key "${key}"`);
  return `${SCHEME}${key}`;
}

export function isBlobReference(reference: string): boolean {
  return reference.startsWith(SCHEME);
}

/** The key a `blob:` reference names, or undefined when it is not one or its key is not valid. */
export function keyOfBlobReference(reference: string): string | undefined {
  if (!isBlobReference(reference)) return undefined;
  const key = reference.slice(SCHEME.length);
  return isValidKey(key) ? key : undefined;
}
