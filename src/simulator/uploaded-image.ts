import { dimensionProblem } from '@avatar-pipeline/client/images/image-dimensions';
import { tooLarge, unprocessable } from './simulator-refusal';
import type { ImageFormat } from './state-schema';

const DATA_URI_HEADER = /^data:([^,;]*)((?:;[^,;]*)*),/i;
const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

export interface UploadedImage {
  format: ImageFormat;
  bytes: Buffer;
}

function startsWith(bytes: Buffer, signature: readonly number[]): boolean {
  return bytes.length >= signature.length && signature.every((byte, i) => bytes[i] === byte);
}

function stripDataUriHeader(value: string): string {
  const header = DATA_URI_HEADER.exec(value);
  if (header === null) return value;
  if (!/;base64$/i.test(header[2] ?? ''))
    throw unprocessable('image: a data URI must be Base64 (data:image/jpeg;base64,...)');
  return value.slice(header[0].length);
}

/**
 * The upload's `image` field: Base64, optionally behind a data-URI header. Refuses what a real
 * image service would: text that is not Base64, bytes that are not JPEG or PNG, images over the
 * size limit, and images whose header declares more than may be decoded (an image bomb: its
 * avatars would decode it). The format is read from the bytes, never from the header.
 */
export function decodeUploadedImage(value: string, maxBytes: number): UploadedImage {
  const payload = stripDataUriHeader(value.trim()).replace(/\s+/g, '');
  if (payload.length === 0) throw unprocessable('image: is empty');
  // Unpadded Base64 is accepted, as lenient decoders do; a length of 4n+1 can never be valid.
  if (!BASE64_BODY.test(payload) || payload.length % 4 === 1)
    throw unprocessable('image: is not valid Base64');
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const decodedLength = Math.floor((payload.length * 3) / 4) - padding;
  if (decodedLength > maxBytes) {
    throw tooLarge(`image: is ${decodedLength} bytes, more than the limit of ${maxBytes} bytes`);
  }
  const bytes = Buffer.from(payload, 'base64');
  const format = startsWith(bytes, PNG_SIGNATURE)
    ? 'png'
    : startsWith(bytes, JPEG_SIGNATURE)
      ? 'jpeg'
      : undefined;
  if (format === undefined) throw unprocessable('image: is not a JPEG or PNG image');
  const problem = dimensionProblem(bytes);
  if (problem !== undefined) throw unprocessable(`image: ${problem}`);
  return { format, bytes };
}
