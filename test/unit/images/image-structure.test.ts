import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { imageFileProblem } from '@avatar-pipeline/client/images/image-file-problem';
import { imageProblem } from '@avatar-pipeline/client/images/image-structure';
import { syntheticSelfiePng } from '../../../src/samples/synthetic-selfie';
import { tinyJpeg, tinyPng } from '../../fixtures/images';
import { temporaryDirectory } from '../../helpers/temp-dir';

describe('imageProblem: whole JPEG and PNG images only', () => {
  const png = syntheticSelfiePng(1, 32);
  const jpeg = tinyJpeg(16, 16);

  it('accepts whole PNG and JPEG images', () => {
    expect(imageProblem(png)).toBeUndefined();
    expect(imageProblem(tinyPng())).toBeUndefined();
    expect(imageProblem(jpeg)).toBeUndefined();
    // Bytes after the end of a JPEG (camera trailers) do not make it damaged.
    expect(imageProblem(Buffer.concat([jpeg, Buffer.from('trailer')]))).toBeUndefined();
  });

  it.each([
    ['empty', Buffer.alloc(0), /is empty/],
    ['text', Buffer.from('hello, not an image'), /not a JPEG or PNG/],
    [
      'a PNG signature and garbage',
      Buffer.concat([png.subarray(0, 8), Buffer.from('garbage garbage!')]),
      /PNG/,
    ],
    ['a PNG cut in half', png.subarray(0, Math.floor(png.length / 2)), /truncated PNG/],
    ['a PNG without its IEND chunk', png.subarray(0, png.length - 12), /truncated PNG/],
    ['a JPEG signature and garbage', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x02, 0x41, 0x42]), /JPEG/],
    ['a JPEG cut in half', jpeg.subarray(0, Math.floor(jpeg.length / 2)), /truncated JPEG/],
    ['a JPEG without its end marker', jpeg.subarray(0, jpeg.length - 2), /truncated JPEG/],
    ['only a JPEG signature', Buffer.from([0xff, 0xd8, 0xff]), /truncated JPEG/],
  ])('refuses %s', (_name, bytes, reason) => {
    expect(imageProblem(bytes)).toMatch(reason);
  });

  it('refuses a PNG with a flipped bit (chunk checksum)', () => {
    const damaged = Buffer.from(png);
    damaged[png.length - 20] = damaged[png.length - 20]! ^ 0x01; // inside the last IDAT
    expect(imageProblem(damaged)).toMatch(/checksum/);
  });

  it('imageFileProblem adds missing, directory and size problems', async () => {
    const dir = temporaryDirectory('image-structure-');
    const file = join(dir, 'a.png');
    await writeFile(file, png);
    expect(await imageFileProblem(file)).toBeUndefined();
    expect(await imageFileProblem(join(dir, 'missing.png'))).toBe('does not exist');
    expect(await imageFileProblem(dir)).toBe('is not a regular file');
    expect(await imageFileProblem(file, 10)).toBe(`is ${png.length} bytes, more than the limit of 10 bytes`);
  });
});
