import { decode as decodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { dimensionProblem } from '@avatar-pipeline/client/images/image-dimensions';
import type { RgbaImage } from './rgba-image';

/** The formats selfies come in (the provider takes JPEG and PNG). */
export type ImageFormat = 'png' | 'jpeg';

/** Limits that keep a hostile or absurd image from exhausting the decoding process's memory. */
const MAX_MEGAPIXELS = 50;
const MAX_DECODE_MEMORY_MB = 512;

/** The format the bytes' signature names; undefined for anything else. */
export function formatOf(bytes: Uint8Array): ImageFormat | undefined {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpeg';
  return undefined;
}

/** Decodes a JPEG or PNG, whichever the bytes are; null as decodeSelfie says, or for another format. */
export function decodeImage(bytes: Buffer): RgbaImage | null {
  const format = formatOf(bytes);
  return format === undefined ? null : decodeSelfie(bytes, format);
}

/**
 * Decodes an uploaded selfie to RGBA; null when the bytes only look like an image (valid header,
 * broken body) or declare more pixels than may be decoded: the declared size is checked first,
 * because pngjs allocates for it and aborts the process when it cannot.
 */
export function decodeSelfie(bytes: Buffer, format: ImageFormat): RgbaImage | null {
  if (dimensionProblem(bytes) !== undefined) return null;
  try {
    if (format === 'png') {
      const png = PNG.sync.read(bytes);
      return { width: png.width, height: png.height, data: png.data };
    }
    const jpeg = decodeJpeg(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: MAX_MEGAPIXELS,
      maxMemoryUsageInMB: MAX_DECODE_MEMORY_MB,
    });
    return { width: jpeg.width, height: jpeg.height, data: jpeg.data };
  } catch {
    return null;
  }
}
