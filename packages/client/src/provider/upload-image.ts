import { readFile } from 'node:fs/promises';
import { detectImageFormat, MIME_TYPES, type ImageFormat } from './image-format';
import { InputError } from '../errors';

/** The provider does not publish a size limit; 10 MiB keeps a request well inside typical gateway limits. */
export const DEFAULT_MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export interface ImageCheckOptions {
  maxBytes?: number;
  /** Names the input in error messages, e.g. "images[2]" or a file path. */
  field?: string;
}

export interface CheckedImage {
  bytes: Buffer;
  format: ImageFormat;
}

/** Refuses empty, oversize and non-JPEG/PNG bytes with an error naming the input. */
export function checkImageBytes(bytes: Uint8Array, options: ImageCheckOptions = {}): CheckedImage {
  const field = options.field ?? 'image';
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  if (bytes.length === 0) throw InputError.field(field, 'is empty');
  if (bytes.length > maxBytes) {
    throw InputError.field(field, `is ${bytes.length} bytes, more than the limit of ${maxBytes} bytes`);
  }
  const format = detectImageFormat(bytes);
  if (format === undefined) throw InputError.field(field, 'is not a JPEG or PNG image');
  return { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), format };
}

/** The upload body's `image` field: Base64 with a data-URI header, which the provider accepts and which names the format. */
export function toUploadImage(bytes: Uint8Array, options: ImageCheckOptions = {}): string {
  const image = checkImageBytes(bytes, options);
  return `data:${MIME_TYPES[image.format]};base64,${image.bytes.toString('base64')}`;
}

const DATA_URI = /^data:image\/(?:jpeg|jpg|png);base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Accepts Base64 (optionally with a data-URI header) from a caller, checking it decodes to a real image. */
export function uploadImageFromBase64(encoded: string, options: ImageCheckOptions = {}): string {
  const field = options.field ?? 'image';
  const payload = encoded.replace(DATA_URI, '').replace(/\s+/g, '');
  if (payload.length === 0) throw InputError.field(field, 'is empty');
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) throw InputError.field(field, 'is not valid Base64');
  return toUploadImage(Buffer.from(payload, 'base64'), options);
}

/** Reads a selfie file and turns it into the upload body's `image` field. */
export async function uploadImageFromFile(path: string, options: ImageCheckOptions = {}): Promise<string> {
  const field = options.field ?? path;
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'file does not exist'
        : code === 'EISDIR'
          ? 'is a directory'
          : `cannot be read (${code ?? String(err)})`;
    throw InputError.field(field, reason);
  }
  return toUploadImage(bytes, { ...options, field });
}
