/** JPEG and PNG are what the provider accepts; both are recognised by their leading bytes, not by file names. */
export type ImageFormat = 'jpeg' | 'png';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  return bytes.length >= signature.length && signature.every((b, i) => bytes[i] === b);
}

export function detectImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (startsWith(bytes, PNG_SIGNATURE)) return 'png';
  if (startsWith(bytes, JPEG_SIGNATURE)) return 'jpeg';
  return undefined;
}

export const MIME_TYPES: Readonly<Record<ImageFormat, string>> = { jpeg: 'image/jpeg', png: 'image/png' };
