import { decode as decodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';
import { dimensionProblem } from '@avatar-pipeline/client/images/image-dimensions';
import { detectImageFormat, type ImageFormat } from '@avatar-pipeline/client/provider/image-format';
import type { RgbaImage } from './rgba-image';

/** Limits that keep a hostile or absurd image from exhausting the decoding process's memory. */
const MAX_MEGAPIXELS = 50;
const MAX_DECODE_MEMORY_MB = 512;

/** Decodes a JPEG or PNG, whichever the bytes are; null as decodeSelfie says, or for another format. */
export function decodeImage(bytes: Buffer): RgbaImage | null {
  const format = detectImageFormat(bytes);
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
