import type { Payload } from '@temporalio/common';

/**
 * A whole payload (metadata and data) as one byte string, so encryption covers the metadata too
 * (its encoding says what the data is). Layout, big-endian:
 *   u8 version (1) | u16 entry count | per entry: u16 key length, key (UTF-8), u32 value length, value | data
 */
const VERSION = 1;

export function payloadToBytes(payload: Payload): Buffer {
  const entries = Object.entries(payload.metadata ?? {}).filter(
    (entry): entry is [string, Uint8Array] => entry[1] != null,
  );
  if (entries.length > 0xffff) throw new Error('payload has too many metadata entries');
  const parts: Buffer[] = [Buffer.from([VERSION, entries.length >> 8, entries.length & 0xff])];
  for (const [key, value] of entries) {
    const keyBytes = Buffer.from(key, 'utf8');
    if (keyBytes.length > 0xffff) throw new Error('payload metadata key too long');
    const header = Buffer.alloc(2 + keyBytes.length + 4);
    header.writeUInt16BE(keyBytes.length, 0);
    keyBytes.copy(header, 2);
    header.writeUInt32BE(value.length, 2 + keyBytes.length);
    parts.push(header, bytesOf(value));
  }
  if (payload.data) parts.push(bytesOf(payload.data));
  return Buffer.concat(parts);
}

/**
 * A view of the bytes without copying. A payload decoded from protobuf without data (a
 * workflow's void update answer, `binary/null`) reaches the codec with the decoder's default, an
 * empty plain array, which is copied instead.
 */
function bytesOf(bytes: Uint8Array | readonly number[]): Buffer {
  return ArrayBuffer.isView(bytes)
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : Buffer.from(bytes as number[]);
}

export function bytesToPayload(bytes: Buffer): Payload {
  let offset = 0;
  const take = (length: number): Buffer => {
    if (offset + length > bytes.length) throw new Error('truncated payload');
    const slice = bytes.subarray(offset, offset + length);
    offset += length;
    return slice;
  };
  const version = take(1)[0];
  if (version !== VERSION) throw new Error(`unknown payload layout version ${String(version)}`);
  const count = take(2).readUInt16BE(0);
  const metadata: Record<string, Uint8Array> = {};
  for (let i = 0; i < count; i++) {
    const key = take(take(2).readUInt16BE(0)).toString('utf8');
    metadata[key] = new Uint8Array(take(take(4).readUInt32BE(0)));
  }
  return { metadata, data: new Uint8Array(bytes.subarray(offset)) };
}
