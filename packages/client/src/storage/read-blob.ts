import type { BlobStore } from './blob-store';
import { AvatarPipelineError } from '../errors';

export class BlobTooLargeError extends AvatarPipelineError {
  constructor(
    readonly bytes: number | undefined,
    readonly maxBytes: number,
  ) {
    super(
      bytes === undefined
        ? `the object is more than the limit of ${maxBytes} bytes`
        : `the object is ${bytes} bytes, more than the limit of ${maxBytes} bytes`,
    );
  }
}

/** An object's bytes, or undefined when there is none; refuses one larger than `maxBytes` before reading it all. */
export async function readBlob(store: BlobStore, key: string, maxBytes: number): Promise<Buffer | undefined> {
  const found = await store.get(key);
  if (found === undefined) return undefined;
  if (found.info.bytes > maxBytes) {
    found.body.destroy();
    throw new BlobTooLargeError(found.info.bytes, maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of found.body) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      found.body.destroy();
      throw new BlobTooLargeError(undefined, maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
