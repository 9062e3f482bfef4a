import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { detectImageFormat, type ImageFormat } from '../provider/image-format';

export interface StoredFile {
  /** Absolute path: what the workflow receives as the image reference. */
  path: string;
  bytes: number;
  sha256: string;
  /** JPEG or PNG by the leading bytes; undefined for anything else. */
  format: ImageFormat | undefined;
  /** Whether the source stream was cut at its size limit. */
  truncated: boolean;
}

/**
 * Uploaded selfies on disk under BLOB_DIR, one directory per request with an unguessable name.
 * Workers read them by path, so BLOB_DIR must be inside their IMAGE_ROOTS (on shared storage when
 * the API and the workers run on different machines).
 */
export class BlobStore {
  constructor(readonly dir: string) {}

  /** A fresh directory for one request's files. */
  async openBatch(): Promise<BlobBatch> {
    const dir = join(this.dir, randomUUID());
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new BlobBatch(dir);
  }
}

export class BlobBatch {
  constructor(readonly dir: string) {}

  /** Streams one file to disk, hashing it on the way; named by index and detected type. */
  async save(source: Readable & { truncated?: boolean }, index: number): Promise<StoredFile> {
    const hash = createHash('sha256');
    let head = Buffer.alloc(0);
    let bytes = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        if (head.length < 16) head = Buffer.concat([head, chunk.subarray(0, 16 - head.length)]);
        done(null, chunk);
      },
    });
    const partial = join(this.dir, `selfie-${index + 1}.part`);
    await pipeline(source, tap, createWriteStream(partial, { mode: 0o600 }));
    const format = detectImageFormat(head);
    const path = join(this.dir, `selfie-${index + 1}.${format === 'jpeg' ? 'jpg' : (format ?? 'bin')}`);
    await rename(partial, path);
    return { path, bytes, sha256: hash.digest('hex'), format, truncated: source.truncated === true };
  }

  /** Removes the request's files: it was refused, or it repeated an earlier request. */
  async discard(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
