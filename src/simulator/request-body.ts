import type { IncomingMessage } from 'node:http';

export interface ReceivedBody {
  bytes: Buffer;
  /** The body was longer than the limit; the excess was read and discarded. */
  oversize: boolean;
}

/**
 * Reads the whole body, keeping at most `limit` bytes. The rest is still drained so the client
 * receives our answer (413) instead of a reset connection in the middle of its upload.
 */
export function receiveBody(req: IncomingMessage, limit: number): Promise<ReceivedBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let oversize = false;
    req.on('data', (chunk: Buffer) => {
      if (oversize) return;
      if (kept + chunk.length > limit) {
        oversize = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    });
    req.on('end', () => resolve({ bytes: Buffer.concat(chunks), oversize }));
    req.on('error', reject);
  });
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false };

export function parseJson(bytes: Buffer): ParsedJson {
  if (bytes.length === 0) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}
