import { crc32 } from 'node:zlib';
import { detectImageFormat } from '../provider/image-format';
import { dimensionProblem, isJpegFrameMarker } from './image-dimensions';

/**
 * Why `bytes` are not a whole JPEG or PNG image, or undefined when they are. Looks at the file's
 * structure, not just its first bytes: a PNG's chunks (lengths and checksums, IHDR first, image
 * data, IEND last) and a JPEG's segments (a frame header, a scan, the end-of-image marker), so a
 * truncated upload or garbage behind a JPEG or PNG signature is refused before a pipeline starts
 * rather than failing at the provider. It does not decode pixels, and it refuses an image whose
 * declared width and height are too large to decode (an image bomb).
 */
export function imageProblem(bytes: Uint8Array): string | undefined {
  if (bytes.length === 0) return 'is empty';
  const format = detectImageFormat(bytes);
  if (format === undefined) return 'is not a JPEG or PNG image';
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return (format === 'png' ? pngProblem(data) : jpegProblem(data)) ?? dimensionProblem(data);
}

const PNG_SIGNATURE_BYTES = 8;

function pngProblem(data: Buffer): string | undefined {
  let offset = PNG_SIGNATURE_BYTES;
  let sawImageData = false;
  for (let index = 0; ; index++) {
    if (offset + 12 > data.length) return 'is a truncated PNG image (it ends before its IEND chunk)';
    const length = data.readUInt32BE(offset);
    const type = data.toString('latin1', offset + 4, offset + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) return `is a damaged PNG image (no valid chunk at byte ${offset})`;
    const end = offset + 12 + length;
    if (end > data.length) return `is a truncated PNG image (its ${type} chunk is cut short)`;
    if (crc32(data.subarray(offset + 4, end - 4)) !== data.readUInt32BE(end - 4)) {
      return `is a damaged PNG image (the checksum of its ${type} chunk is wrong)`;
    }
    if (index === 0) {
      if (type !== 'IHDR' || length !== 13) return 'is a damaged PNG image (it does not start with IHDR)';
      if (data.readUInt32BE(offset + 8) === 0 || data.readUInt32BE(offset + 12) === 0) {
        return 'is a damaged PNG image (its width or height is 0)';
      }
    }
    if (type === 'IDAT') sawImageData = true;
    if (type === 'IEND') return sawImageData ? undefined : 'is a damaged PNG image (it has no image data)';
    offset = end;
  }
}

const EOI = 0xd9;
const SOS = 0xda;

/** RST0-RST7 and TEM carry no length. */
function isStandalone(marker: number): boolean {
  return (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01;
}

function jpegProblem(data: Buffer): string | undefined {
  let offset = 2; // after SOI
  let sawFrame = false;
  while (offset < data.length) {
    if (data[offset] !== 0xff) return `is a damaged JPEG image (no segment marker at byte ${offset})`;
    let markerAt = offset + 1;
    while (data[markerAt] === 0xff) markerAt++; // fill bytes
    const marker = data[markerAt];
    if (marker === undefined) break;
    if (marker === EOI) return 'is a damaged JPEG image (it ends before any image data)';
    if (isStandalone(marker)) {
      offset = markerAt + 1;
      continue;
    }
    if (markerAt + 3 > data.length) break;
    const length = data.readUInt16BE(markerAt + 1);
    if (length < 2) return `is a damaged JPEG image (a segment at byte ${offset} has length ${length})`;
    const end = markerAt + 1 + length;
    if (end > data.length) break;
    if (isJpegFrameMarker(marker)) sawFrame = true;
    if (marker === SOS) {
      if (!sawFrame) return 'is a damaged JPEG image (its scan comes before any frame header)';
      // Entropy-coded data escapes 0xFF as FF 00, so FF D9 only appears as the end-of-image marker.
      return data.indexOf(Buffer.from([0xff, EOI]), end) >= 0
        ? undefined
        : 'is a truncated JPEG image (it has no end-of-image marker)';
    }
    offset = end;
  }
  return 'is a truncated JPEG image (it ends before its image data)';
}
