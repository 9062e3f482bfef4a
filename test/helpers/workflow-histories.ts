import type { History } from '../../src/histories/history-json';

/**
 * Everything a history holds as text, payloads decoded (their bytes as UTF-8) rather than Base64
 * encoded as in the exported JSON, so a search finds what workflow code actually put there.
 */
export function decodedHistoryText(history: History): string {
  return JSON.stringify(plain(history));
}

/** The size in bytes of every payload in a history (anything with a `data` byte array and `metadata`). */
export function payloadSizes(history: History): number[] {
  const sizes: number[] = [];
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
    const record = value as Record<string, unknown>;
    if (ArrayBuffer.isView(record.data) && record.metadata !== undefined) sizes.push(record.data.byteLength);
    for (const child of Object.values(record)) visit(child);
  };
  visit(history);
  return sizes;
}

/**
 * A copy with byte arrays as UTF-8 text. Walks the fields itself: JSON.stringify would call the
 * messages' own toJSON, which turns bytes into Base64 first. (ArrayBuffer.isView, not instanceof:
 * under jest, Buffers from Node are Uint8Arrays of another realm.)
 */
function plain(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field)]));
}
