import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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

/** Names the pipeline a batch's files were uploaded for; written before the pipeline is started. */
const CLAIM_FILE = 'pipeline.json';

/** A batch on disk, as the upload janitor sees it. */
export interface StoredBatch {
  dir: string;
  /** The pipeline it was claimed for; undefined when the request never got that far. */
  workflowId?: string;
  /** When the batch was opened, or claimed when it was. */
  since: Date;
}

/**
 * Uploaded selfies on disk under BLOB_DIR, one directory per request with an unguessable name.
 * Workers read them by path, so BLOB_DIR must be inside their IMAGE_ROOTS (on shared storage when
 * the API and the workers run on different machines). The upload janitor deletes them when their
 * pipeline no longer needs them (SELFIE_RETENTION).
 */
export class BlobStore {
  constructor(readonly dir: string) {}

  /** A fresh directory for one request's files. */
  async openBatch(): Promise<BlobBatch> {
    const dir = join(this.dir, randomUUID());
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new BlobBatch(dir);
  }

  /** Every batch under BLOB_DIR, with the pipeline it was claimed for. */
  async batches(): Promise<StoredBatch[]> {
    const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    const found: StoredBatch[] = [];
    for (const entry of entries) {
      // Only folders openBatch made: BLOB_DIR may hold other things (archived avatars, or a
      // directory shared with other files), and the janitor must never sweep those.
      if (!entry.isDirectory() || !BATCH_NAME.test(entry.name)) continue;
      const dir = join(this.dir, entry.name);
      const claim = await readClaim(dir);
      const info = claim ? undefined : await stat(dir).catch(() => undefined);
      const since = claim?.since ?? info?.mtime;
      if (since) found.push({ dir, since, ...(claim ? { workflowId: claim.workflowId } : {}) });
    }
    return found;
  }

  /** Deletes the batches claimed for these pipelines (erasing a subject). */
  async removeClaimedBy(workflowIds: string[]): Promise<void> {
    const wanted = new Set(workflowIds);
    for (const batch of await this.batches()) {
      if (batch.workflowId !== undefined && wanted.has(batch.workflowId)) {
        await rm(batch.dir, { recursive: true, force: true });
      }
    }
  }
}

/** The names openBatch gives its folders (randomUUID). */
const BATCH_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function readClaim(dir: string): Promise<{ workflowId: string; since: Date } | undefined> {
  const path = join(dir, CLAIM_FILE);
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { workflowId?: unknown };
    if (typeof parsed.workflowId !== 'string') return undefined;
    return { workflowId: parsed.workflowId, since: (await stat(path)).mtime };
  } catch {
    return undefined;
  }
}

/** A request's files together passed its allowance (API_MAX_REQUEST_BYTES). */
export class BatchTooLargeError extends Error {
  constructor() {
    super("the request's files are larger than its allowance");
    this.name = 'BatchTooLargeError';
  }
}

export class BlobBatch {
  constructor(readonly dir: string) {}

  /**
   * Streams one file to disk, hashing it on the way; named by index and detected type. Stops with
   * BatchTooLargeError once the file passes `maxBytes` (what is left of the request's allowance).
   */
  async save(
    source: Readable & { truncated?: boolean },
    index: number,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<StoredFile> {
    const hash = createHash('sha256');
    let head = Buffer.alloc(0);
    let bytes = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        if (bytes > maxBytes) {
          done(new BatchTooLargeError());
          return;
        }
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

  /** Records which pipeline the files are for, before it is started, so the janitor can ask after it. */
  async claim(workflowId: string): Promise<void> {
    await writeFile(join(this.dir, CLAIM_FILE), JSON.stringify({ workflowId }), { mode: 0o600 });
  }

  /** Removes the request's files: it was refused, or it repeated an earlier request. */
  async discard(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
