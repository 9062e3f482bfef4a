import type { Readable } from 'node:stream';

/** What the store knows about one object. */
export interface BlobInfo {
  /** Key relative to the store's root (the S3 prefix or the directory). */
  key: string;
  bytes: number;
  contentType: string;
}

export interface StoredBlob {
  info: BlobInfo;
  body: Readable;
}

/**
 * Objects by key: uploaded selfies and archived avatars. Keys are chosen by the caller so that
 * writing the same thing twice (an activity retry) lands on the same object instead of a copy.
 * Every operation is idempotent: a put replaces, a delete of a missing key succeeds.
 */
export interface BlobStore {
  /** Where the objects live, for logs and for `referenceOf`: `s3://bucket/prefix` or a directory. */
  readonly location: string;
  /** Writes (or replaces) the object at `key`. */
  put(key: string, body: Buffer, contentType: string): Promise<BlobInfo>;
  /** The object's bytes as a stream, or undefined when there is no such object. */
  get(key: string): Promise<StoredBlob | undefined>;
  head(key: string): Promise<BlobInfo | undefined>;
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): Promise<BlobInfo[]>;
  /**
   * The keys `list` would answer, for callers that need no sizes: on the filesystem it reads no
   * file's metadata, which matters to the workers that list on every pipeline.
   */
  listKeys(prefix: string): Promise<string[]>;
  /**
   * A URL anyone holding it can read the object through until it expires, or undefined when the
   * backend cannot sign one (the filesystem: the API serves those objects itself).
   */
  signedUrl(key: string, expiresInSeconds: number): Promise<string | undefined>;
  /** The reference a worker resolves back to this object (`s3://bucket/prefix/key` or an absolute path). */
  referenceOf(key: string): string;
  /** The key of a reference made by `referenceOf`, or undefined when it points elsewhere. */
  keyOf(reference: string): string | undefined;
  /** Releases connections; the store is not used afterwards. */
  close(): void;
}

/** Deletes every object under `prefix`; returns the keys that were there. */
export async function deletePrefix(store: BlobStore, prefix: string): Promise<string[]> {
  const keys = await store.listKeys(prefix);
  for (const key of keys) await store.delete(key);
  return keys;
}
