import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ImageFormat } from '@avatar-pipeline/client/provider/image-format';
import { detectImageFormat, MIME_TYPES } from '@avatar-pipeline/client/provider/image-format';
import {
  blobReference,
  extensionOf,
  selfieUploadKey,
  uploadBatchPrefix,
  uploadClaimKey,
  type BlobStore,
} from '../storage';
import { AvatarPipelineError } from '@avatar-pipeline/client/errors';

/** One selfie as the request sent it, read whole (it is at most API_MAX_FILE_BYTES). */
export interface ReceivedFile {
  bytes: Buffer;
  sha256: string;
  /** JPEG or PNG by the leading bytes; undefined for anything else. */
  format: ImageFormat | undefined;
  /** Whether the source stream was cut at its size limit. */
  truncated: boolean;
}

export interface StoredSelfie {
  /** What the workflow receives as the image: a `blob:` reference the workers resolve through their store. */
  reference: string;
  bytes: number;
  sha256: string;
}

/** A request's files together passed its allowance (API_MAX_REQUEST_BYTES). */
export class BatchTooLargeError extends AvatarPipelineError {
  constructor() {
    super("the request's files are larger than its allowance");
  }
}

/**
 * Reads one uploaded file into memory, hashing it; stops with BatchTooLargeError once it passes
 * `maxBytes` (what is left of the request's allowance). Only one file of a request is held at a time.
 */
export async function receiveFile(
  source: Readable & { truncated?: boolean },
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<ReceivedFile> {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of source) {
    const piece = chunk as Buffer;
    total += piece.length;
    if (total > maxBytes) {
      source.destroy();
      throw new BatchTooLargeError();
    }
    hash.update(piece);
    chunks.push(piece);
  }
  const bytes = Buffer.concat(chunks);
  return {
    bytes,
    sha256: hash.digest('hex'),
    format: detectImageFormat(bytes.subarray(0, 16)),
    truncated: source.truncated === true,
  };
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
    private readonly store: BlobStore,
    readonly prefix: string,
  ) {}

  static async open(store: BlobStore, workflowId: string): Promise<UploadBatch> {
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
  async save(index: number, file: ReceivedFile & { format: ImageFormat }): Promise<StoredSelfie> {
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
