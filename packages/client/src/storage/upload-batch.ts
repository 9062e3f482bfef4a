import { randomUUID } from 'node:crypto';
import { MIME_TYPES, type ImageFormat } from '../provider/image-format';
import { selfieUploadKey, uploadBatchPrefix, uploadClaimKey } from './blob-keys';
import { blobReference } from './blob-reference';
import type { BlobStore } from './blob-store';
import { extensionOf } from './content-types';

/** One checked selfie, read whole. */
export interface SelfieBytes {
  bytes: Buffer;
  sha256: string;
  format: ImageFormat;
}

export interface StoredSelfie {
  /** What the workflow receives as the image: a `blob:` reference the workers resolve through their store. */
  reference: string;
  bytes: number;
  sha256: string;
}

/**
 * One request's uploaded selfies in the blob store (STORAGE_URL, else BLOB_DIR), under
 * `uploads/<workflowId>/<batch>/`, where every worker reads them through its own store: no worker
 * needs the API's filesystem. A claim object, written first, names the pipeline, so the upload
 * janitor (SELFIE_RETENTION) and erasure find them by its id, and a folder without a started
 * pipeline is swept after the grace period.
 */
export class UploadBatch {
  private readonly keys: string[] = [];

  private constructor(
    private readonly store: Pick<BlobStore, 'put' | 'delete'>,
    readonly prefix: string,
  ) {}

  static async open(store: Pick<BlobStore, 'put' | 'delete'>, workflowId: string): Promise<UploadBatch> {
    const batch = new UploadBatch(store, uploadBatchPrefix(workflowId, randomUUID()));
    const claim = uploadClaimKey(batch.prefix);
    await store.put(
      claim,
      Buffer.from(JSON.stringify({ workflowId, since: Date.now() })),
      'application/json',
    );
    batch.keys.push(claim);
    return batch;
  }

  /** Stores a checked JPEG or PNG as the request's `index`th selfie. */
  async save(index: number, file: SelfieBytes): Promise<StoredSelfie> {
    const contentType = MIME_TYPES[file.format];
    const key = selfieUploadKey(this.prefix, index, extensionOf(contentType));
    this.keys.push(key);
    await this.store.put(key, file.bytes, contentType);
    return { reference: blobReference(key), bytes: file.bytes.length, sha256: file.sha256 };
  }

  /** Removes the request's objects: it was refused, or it repeated an earlier request. */
  async discard(): Promise<void> {
    for (const key of this.keys.splice(0).reverse()) await this.store.delete(key);
  }
}
