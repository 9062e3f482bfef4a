import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { detectImageFormat, type ImageFormat } from '@avatar-pipeline/client/provider/image-format';
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
