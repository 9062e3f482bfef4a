import { isBlobReference } from '../storage/blob-reference';

/**
 * Whether a reference names an object in the blob store rather than a file or an http(s) URL:
 * `blob:<key>` (what the API gives uploaded selfies), or a full `s3://bucket/key` location.
 */
export function isStoredReference(reference: string): boolean {
  return isBlobReference(reference) || /^s3:\/\//i.test(reference);
}
