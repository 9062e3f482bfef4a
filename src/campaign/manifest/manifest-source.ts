import { setImmediate as nextTurn } from 'node:timers/promises';
import { MANIFEST_CHUNK_BYTES } from './limits';

/** Manifest text whole (a string) or as it arrives (a file or upload stream). */
export type ManifestSource = string | AsyncIterable<Buffer | string>;

/** How much of a source was read, and whether it went past its byte limit (reading stopped there). */
export interface ByteCount {
  bytes: number;
  over: boolean;
}

/**
 * The source in pieces of at most MANIFEST_CHUNK_BYTES, ending early once more than `maxBytes`
 * arrived (`count.over`). Text given whole is cut up with a turn of the event loop between pieces,
 * so reading a large one never holds the loop for long; a stream yields between its own pieces.
 */
export async function* manifestChunks(
  source: ManifestSource,
  maxBytes: number,
  count: ByteCount,
): AsyncGenerator<Buffer> {
  const pieces = typeof source === 'string' ? textPieces(source) : source;
  for await (const piece of pieces) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    count.bytes += bytes.length;
    if (count.bytes > maxBytes) {
      count.over = true;
      return;
    }
    for (let at = 0; at < bytes.length; at += MANIFEST_CHUNK_BYTES)
      yield bytes.subarray(at, at + MANIFEST_CHUNK_BYTES);
  }
}

async function* textPieces(text: string): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += MANIFEST_CHUNK_BYTES) {
    if (at > 0) await nextTurn();
    yield bytes.subarray(at, at + MANIFEST_CHUNK_BYTES);
  }
}

/**
 * The text before the first non-blank character (at least that character), and the whole stream
 * again: what format detection needs to look at, without reading further.
 */
export async function peekStart(
  chunks: AsyncIterable<Buffer>,
): Promise<{ start: string; chunks: AsyncIterable<Buffer> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const held: Buffer[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    held.push(next.value);
    if (/[^\s\uFEFF]/.test(next.value.toString('utf8'))) break;
  }
  return { start: Buffer.concat(held).toString('utf8'), chunks: replay(held, iterator) };
}

async function* replay(held: Buffer[], rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* held;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // A reader that stops early releases the source (a file stream closes).
    await rest.return?.();
  }
}
