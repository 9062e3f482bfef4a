import {
  BlobTooLargeError,
  isBlobReference,
  keyOfBlobReference,
  readBlob,
  UPLOADS_ROOT,
  uploadsPrefix,
  type BlobStore,
} from '../storage';
import { InputError } from '@avatar-pipeline/client/errors';

/**
 * The key of a stored reference, in the worker's configured store (STORAGE_URL, else BLOB_DIR):
 * a `blob:` key must name an upload, and with `uploadsOf` (the reading run's workflow id) one of
 * that run's own uploads; an `s3://` location must lie under the store's bucket and prefix.
 * Anything else is refused, like a file outside IMAGE_ROOTS.
 */
function storedImageKey(
  reference: string,
  store: BlobStore | undefined,
  field: string,
  uploadsOf?: string,
): string {
  if (isBlobReference(reference)) {
    const key = keyOfBlobReference(reference);
    if (key === undefined || !key.startsWith(UPLOADS_ROOT)) {
      throw InputError.field(field, 'does not name an uploaded selfie in the storage');
    }
    // Uploads are stored under the run they were sent with: a run reads no other run's.
    if (uploadsOf !== undefined && !key.startsWith(uploadsPrefix(uploadsOf))) {
      throw InputError.field(field, 'names a selfie uploaded for another run');
    }
    if (store === undefined) throw InputError.field(field, 'cannot be read: no storage is configured');
    return key;
  }
  const key = store?.keyOf(reference);
  if (store === undefined || key === undefined) {
    throw InputError.field(field, 'is not under the configured storage (STORAGE_URL)');
  }
  return key;
}

/** A selfie's bytes from the store, refusing a missing object or one larger than `maxBytes`. */
export async function readStoredImage(
  reference: string,
  store: BlobStore | undefined,
  maxBytes: number,
  field: string,
  uploadsOf?: string,
): Promise<Buffer> {
  const key = storedImageKey(reference, store, field, uploadsOf);
  try {
    const bytes = await readBlob(store!, key, maxBytes);
    if (bytes === undefined) throw InputError.field(field, 'was not found in the storage');
    return bytes;
  } catch (err) {
    if (err instanceof BlobTooLargeError) {
      const size = err.bytes === undefined ? 'is more' : `is ${err.bytes} bytes, more`;
      throw InputError.field(field, `${size} than the limit of ${maxBytes} bytes`);
    }
    throw err;
  }
}
