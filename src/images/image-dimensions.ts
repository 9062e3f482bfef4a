import { detectImageFormat } from '../provider/image-format';

/**
 * The largest selfie accepted, by its declared size. A compressed image can declare far more
 * pixels than its bytes suggest (a 68-byte PNG can claim 2³¹−1 × 2³¹−1), and decoders allocate
 * for what is declared; 50 megapixels covers any phone camera and keeps one decode near 200 MB.
 */
export const MAX_IMAGE_SIDE = 16_384;
export const MAX_IMAGE_PIXELS = 50_000_000;

export interface ImageDimensions {
  width: number;
  height: number;
}

/**
 * The width and height a JPEG or PNG declares in its header (PNG IHDR, JPEG frame header), read
 * without decoding anything; undefined when the bytes hold no such header.
 */
export function declaredDimensions(bytes: Uint8Array): ImageDimensions | undefined {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = detectImageFormat(data);
  if (format === 'png') {
    // Signature (8), IHDR length (4) and type (4), then width and height.
    if (data.length < 24 || data.toString('latin1', 12, 16) !== 'IHDR') return undefined;
    return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  }
  if (format === 'jpeg') return jpegFrameSize(data);
  return undefined;
}

/** Why the declared size is too large to decode, or undefined when it is within the limits. */
export function dimensionProblem(bytes: Uint8Array): string | undefined {
  const size = declaredDimensions(bytes);
  if (size === undefined) return undefined;
  const { width, height } = size;
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    return `declares ${width} × ${height} pixels, more than the limit of ${MAX_IMAGE_SIDE} pixels a side`;
  }
  if (width * height > MAX_IMAGE_PIXELS) {
    return `declares ${width} × ${height} pixels (${(width * height).toLocaleString('en')}), more than the limit of ${MAX_IMAGE_PIXELS.toLocaleString('en')} pixels`;
  }
  return undefined;
}

/** SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC): the markers that start a frame. */
export function isJpegFrameMarker(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Walks the segments up to the first frame header: length, precision, height, width. */
function jpegFrameSize(data: Buffer): ImageDimensions | undefined {
  let offset = 2;
  while (offset + 4 <= data.length && data[offset] === 0xff) {
    let markerAt = offset + 1;
    while (data[markerAt] === 0xff) markerAt++;
    const marker = data[markerAt];
    if (marker === undefined || marker === 0xd9 || marker === 0xda) return undefined;
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      offset = markerAt + 1;
      continue;
    }
    if (markerAt + 3 > data.length) return undefined;
    if (isJpegFrameMarker(marker)) {
      if (markerAt + 8 > data.length) return undefined;
      return { height: data.readUInt16BE(markerAt + 4), width: data.readUInt16BE(markerAt + 6) };
    }
    offset = markerAt + 1 + data.readUInt16BE(markerAt + 1);
  }
  return undefined;
}
