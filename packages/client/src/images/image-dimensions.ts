import { detectImageFormat } from '../provider/image-format';

/**
 * The largest selfie accepted, by its declared size. A compressed image can declare far more
 * pixels than its bytes suggest (a 68-byte PNG can claim 2³¹−1 × 2³¹−1), and decoders allocate
 * for what is declared; 50 megapixels covers any phone camera and keeps one decode near 200 MB.
 */
export const MAX_IMAGE_SIDE = 16_384;
export const MAX_IMAGE_PIXELS = 50_000_000;
/**
 * The most bytes the declared samples may take once decoded: an 8-bit RGBA image at the pixel
 * limit. Pixels alone do not bound memory: a 7000 × 7000 PNG of 16-bit RGBA samples is under the
 * pixel limit and decodes to 392 MB before any conversion.
 */
export const MAX_DECODED_BYTES = MAX_IMAGE_PIXELS * 4;

export interface ImageDimensions {
  width: number;
  height: number;
}

/** What a header declares each pixel holds: how many samples (channels), and bits per sample. */
export interface DeclaredImage extends ImageDimensions {
  channels: number;
  bitsPerSample: number;
}

/** Samples per pixel of each PNG colour type (a palette index is one sample). */
const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * The width and height a JPEG or PNG declares in its header (PNG IHDR, JPEG frame header), read
 * without decoding anything; undefined when the bytes hold no such header.
 */
export function declaredDimensions(bytes: Uint8Array): ImageDimensions | undefined {
  const declared = declaredImage(bytes);
  return declared && { width: declared.width, height: declared.height };
}

/** The size, channels and sample depth a JPEG or PNG header declares; undefined without one. */
export function declaredImage(bytes: Uint8Array): DeclaredImage | undefined {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = detectImageFormat(data);
  if (format === 'png') {
    // Signature (8), IHDR length (4) and type (4), then width, height, bit depth, colour type.
    if (data.length < 26 || data.toString('latin1', 12, 16) !== 'IHDR') return undefined;
    return {
      width: data.readUInt32BE(16),
      height: data.readUInt32BE(20),
      bitsPerSample: data[24]!,
      // An unknown colour type is counted as the widest (RGBA).
      channels: PNG_CHANNELS[data[25]!] ?? 4,
    };
  }
  if (format === 'jpeg') return jpegFrames(data)[0];
  return undefined;
}

/** Bytes the declared samples take decoded: sub-byte samples count as one byte, as decoders unpack them. */
export function declaredDecodedBytes(image: DeclaredImage): number {
  return image.width * image.height * image.channels * Math.max(1, Math.ceil(image.bitsPerSample / 8));
}

/** Why the declared size cannot be decoded safely, or undefined when it is within the limits. */
export function dimensionProblem(bytes: Uint8Array): string | undefined {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jpeg = detectImageFormat(data) === 'jpeg';
  if (jpeg) {
    // Decoders disagree on a second frame header (libjpeg refuses it, others take the last), so
    // the one that is checked must be the only one.
    const frames = jpegFrames(data).length;
    if (frames > 1) return `is a JPEG image with ${frames} frame headers; one is accepted`;
  }
  const declared = declaredImage(data);
  if (declared === undefined) return undefined;
  const { width, height } = declared;
  if (height === 0 && jpeg) {
    // The height would come after the image data, in a DNL marker: nothing here bounds it.
    return 'declares a height of 0 (to be given after the image data, in a DNL marker), which is not accepted';
  }
  if (width === 0 || height === 0) {
    return `declares ${width} × ${height} pixels; a width or height of 0 is not accepted`;
  }
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    return `declares ${width} × ${height} pixels, more than the limit of ${MAX_IMAGE_SIDE} pixels a side`;
  }
  if (width * height > MAX_IMAGE_PIXELS) {
    return `declares ${width} × ${height} pixels (${(width * height).toLocaleString('en')}), more than the limit of ${MAX_IMAGE_PIXELS.toLocaleString('en')} pixels`;
  }
  const decoded = declaredDecodedBytes(declared);
  if (decoded > MAX_DECODED_BYTES) {
    const { channels, bitsPerSample } = declared;
    return `declares ${width} × ${height} pixels of ${channels} × ${bitsPerSample}-bit samples (${decoded.toLocaleString('en')} bytes decoded), more than the limit of ${MAX_DECODED_BYTES.toLocaleString('en')} bytes decoded`;
  }
  return undefined;
}

/** SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC): the markers that start a frame. */
export function isJpegFrameMarker(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/**
 * The frame headers (length, precision, height, width, components) among the segments before the
 * first scan, found by walking the segments by their lengths: bytes that only look like a marker
 * inside another segment (an EXIF thumbnail's) are skipped with it. The walk stops where the
 * structure breaks (imageProblem names that).
 */
function jpegFrames(data: Buffer): DeclaredImage[] {
  const frames: DeclaredImage[] = [];
  let offset = 2;
  while (offset < data.length && data[offset] === 0xff) {
    let markerAt = offset + 1;
    while (data[markerAt] === 0xff) markerAt++;
    const marker = data[markerAt];
    if (marker === undefined || marker === 0x00 || marker === 0xd9 || marker === 0xda) break;
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      offset = markerAt + 1;
      continue;
    }
    if (markerAt + 3 > data.length) break;
    const length = data.readUInt16BE(markerAt + 1);
    if (length < 2) break;
    if (isJpegFrameMarker(marker)) {
      if (markerAt + 9 > data.length) break;
      frames.push({
        bitsPerSample: data[markerAt + 3]!,
        height: data.readUInt16BE(markerAt + 4),
        width: data.readUInt16BE(markerAt + 6),
        channels: data[markerAt + 8]!,
      });
    }
    offset = markerAt + 1 + length;
  }
  return frames;
}
