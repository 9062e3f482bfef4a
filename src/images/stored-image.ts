import { InvalidInputError } from '../provider/errors';
import { BlobTooLargeError, readBlob, type BlobStore } from '../storage';

/** Whether a reference names an object in a store (`s3://…`) rather than a file or an http(s) URL. */
export function isStoredReference(reference: string): boolean {
  return /^s3:\/\//i.test(reference);
}

/**
 * The key of a stored reference, when it lies under the configured store (STORAGE_URL); any other
 * bucket or prefix is refused, like a file outside IMAGE_ROOTS.
 */
export function storedImageKey(reference: string, store: BlobStore | undefined, field: string): string {
  const key = store?.keyOf(reference);
  if (store === undefined || key === undefined) {
    throw new InvalidInputError(field, 'is not under the configured storage (STORAGE_URL)');
  }
  return key;
}

/** A selfie's bytes from the store, refusing a missing object or one larger than `maxBytes`. */
export async function readStoredImage(
  reference: string,
  store: BlobStore | undefined,
  maxBytes: number,
  field: string,
): Promise<Buffer> {
  const key = storedImageKey(reference, store, field);
  try {
    const bytes = await readBlob(store!, key, maxBytes);
    if (bytes === undefined) throw new InvalidInputError(field, 'was not found in the storage');
    return bytes;
  } catch (err) {
    if (err instanceof BlobTooLargeError) {
      const size = err.bytes === undefined ? 'is more' : `is ${err.bytes} bytes, more`;
      throw new InvalidInputError(field, `${size} than the limit of ${maxBytes} bytes`);
    }
    throw err;
  }
}
