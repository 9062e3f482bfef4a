import { declaredDimensions, dimensionProblem } from '@avatar-pipeline/client/images/image-dimensions';
import { imageProblem } from '@avatar-pipeline/client/images/image-structure';
import { jpegDeclaring, tinyJpeg } from '../../fixtures/images';

/** One JPEG segment: marker, then a length counting itself and the payload. */
function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** A frame header's payload: 8-bit samples, `height` × `width`, three components. */
function frame(width: number, height: number): Buffer {
  const payload = Buffer.from([8, 0, 0, 0, 0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  payload.writeUInt16BE(height, 1);
  payload.writeUInt16BE(width, 3);
  return payload;
}

/** The byte offset just after the baseline frame header of a JPEG whose segments are walked. */
function endOfFrameHeader(jpeg: Buffer): number {
  let offset = 2;
  for (;;) {
    const marker = jpeg[offset + 1]!;
    const end = offset + 2 + jpeg.readUInt16BE(offset + 2);
    if (marker === 0xc0) return end;
    offset = end;
  }
}

/** `jpeg` with `extra` inserted at byte `at`. */
function inserted(jpeg: Buffer, at: number, ...extra: Buffer[]): Buffer {
  return Buffer.concat([jpeg.subarray(0, at), ...extra, jpeg.subarray(at)]);
}

describe('the JPEG frame header a size check reads', () => {
  it('is the real one, past segments holding bytes that look like a frame header', () => {
    const jpeg = tinyJpeg(8, 8);
    // An EXIF-like APP1 holding a "frame header" of a huge thumbnail, then a DHT (FF C4, not a frame).
    const fake = Buffer.concat([Buffer.from([0xff, 0xc0, 0, 17]), frame(60_000, 60_000)]);
    const crafted = inserted(jpeg, 2, segment(0xe1, fake), segment(0xc4, Buffer.alloc(17)));
    expect(declaredDimensions(crafted)).toEqual({ width: 8, height: 8 });
    expect(dimensionProblem(crafted)).toBeUndefined();
    expect(imageProblem(crafted)).toBeUndefined();
  });

  it('refuses a second frame header before the scan, which some decoders take instead of the first', () => {
    const jpeg = tinyJpeg(8, 8);
    const crafted = inserted(jpeg, endOfFrameHeader(jpeg), segment(0xc2, frame(65_535, 65_535)));
    expect(declaredDimensions(crafted)).toEqual({ width: 8, height: 8 });
    expect(dimensionProblem(crafted)).toBe('is a JPEG image with 2 frame headers; one is accepted');
    expect(imageProblem(crafted)).toBe('is a JPEG image with 2 frame headers; one is accepted');
  });

  it('refuses a height of 0, whose real height a DNL marker after the image data would give', () => {
    const problem = dimensionProblem(jpegDeclaring(8, 0));
    expect(problem).toMatch(/declares a height of 0 .*DNL marker.*not accepted/);
    expect(imageProblem(jpegDeclaring(8, 0))).toBe(problem);
  });

  it('refuses a width of 0', () => {
    expect(dimensionProblem(jpegDeclaring(0, 8))).toBe(
      'declares 0 × 8 pixels; a width or height of 0 is not accepted',
    );
  });
});
