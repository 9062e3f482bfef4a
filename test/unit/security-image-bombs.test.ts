import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expandSelfies } from '../../src/campaign/manifest/selfie-files';
import { resolveImagePaths } from '../../src/cli/image-paths';
import {
  declaredDimensions,
  declaredImage,
  MAX_DECODED_BYTES,
  MAX_IMAGE_PIXELS,
} from '@avatar-pipeline/client/images/image-dimensions';
import { imageFileProblem } from '@avatar-pipeline/client/images/image-file-problem';
import { imageProblem } from '@avatar-pipeline/client/images/image-structure';
import { readImage } from '../../src/images/read-image';
import { decodeSelfie } from '../../src/images/decode-image';
import { jpegDeclaring, pngDeclaring, tinyJpeg, tinyPng } from '../fixtures/images';
import { InputError } from '@avatar-pipeline/client/errors';
import { temporaryDirectory } from '../helpers/temp-dir';

/** Declared dimensions are checked before anything decodes. */
const MAX = 2 ** 31 - 1;
const bomb = pngDeclaring(MAX, MAX);

describe('image bombs', () => {
  it('the fixture is the reported one: a tiny, structurally whole PNG declaring 2^31-1 × 2^31-1', () => {
    expect(bomb.length).toBeLessThan(80);
    expect(declaredDimensions(bomb)).toEqual({ width: MAX, height: MAX });
  });

  it('reads the declared size of ordinary images', () => {
    expect(declaredDimensions(tinyPng(7, 5))).toEqual({ width: 7, height: 5 });
    expect(declaredDimensions(tinyJpeg(12, 9))).toEqual({ width: 12, height: 9 });
  });

  it.each([
    [
      'the 2^31-1 square PNG',
      bomb,
      /declares 2147483647 × 2147483647 pixels, more than the limit of 16384 pixels a side/,
    ],
    [
      'a 10,000 × 10,000 PNG (100 megapixels)',
      pngDeclaring(10_000, 10_000),
      /declares 10000 × 10000 pixels .*more than the limit of 50,000,000 pixels/,
    ],
    [
      'a 65,535 × 65,535 JPEG',
      jpegDeclaring(65_535, 65_535),
      /declares 65535 × 65535 pixels, more than the limit/,
    ],
    ['an 8,000 × 8,000 JPEG', jpegDeclaring(8_000, 8_000), /more than the limit of 50,000,000 pixels/],
    // Under the pixel limit, but 392 MB once decoded: refused by the decoded size.
    [
      'a 7,000 × 7,000 PNG of 16-bit RGBA samples',
      pngDeclaring(7_000, 7_000, { bitDepth: 16, colorType: 6 }),
      /declares 7000 × 7000 pixels of 4 × 16-bit samples \(392,000,000 bytes decoded\), more than the limit of 200,000,000 bytes decoded/,
    ],
    [
      'a 7,000 × 7,000 PNG of 16-bit RGB samples',
      pngDeclaring(7_000, 7_000, { bitDepth: 16, colorType: 2 }),
      /294,000,000 bytes decoded/,
    ],
  ])('imageProblem refuses %s', (_name, bytes, reason) => {
    expect(imageProblem(bytes)).toMatch(reason);
  });

  it('accepts an image at the pixel limit', () => {
    const side = Math.floor(Math.sqrt(MAX_IMAGE_PIXELS));
    expect(imageProblem(pngDeclaring(side, side))).toBeUndefined();
  });

  it('accepts deep samples while the decoded bytes stay within the limit', () => {
    const side = Math.floor(Math.sqrt(MAX_DECODED_BYTES / 8));
    expect(imageProblem(pngDeclaring(side, side, { bitDepth: 16, colorType: 6 }))).toBeUndefined();
    expect(imageProblem(pngDeclaring(7_000, 7_000, { bitDepth: 16, colorType: 0 }))).toBeUndefined();
    expect(declaredImage(tinyJpeg(12, 9))).toEqual({ width: 12, height: 9, channels: 3, bitsPerSample: 8 });
  });

  describe('on every surface that reads a file', () => {
    let dir: string;
    let file: string;
    beforeAll(async () => {
      dir = temporaryDirectory('bomb-');
      file = join(dir, 'bomb.png');
      await writeFile(file, bomb);
    });

    it('imageFileProblem (API image references)', async () => {
      expect(await imageFileProblem(file)).toMatch(/declares 2147483647 × 2147483647 pixels/);
    });

    it('the CLI refuses it naming the flag', async () => {
      const err: unknown = await resolveImagePaths([file]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).message).toMatch(/--images\[0\].*declares 2147483647 × 2147483647/);
    });

    it('manifest checks refuse it', async () => {
      const { images, problems } = await expandSelfies([file], {});
      expect(images).toEqual([]);
      expect(problems).toEqual([
        { entry: 0, message: expect.stringMatching(/bomb\.png declares 2147483647/) },
      ]);
    });

    it('the worker refuses to read it for upload', async () => {
      const err: unknown = await readImage(
        file,
        { roots: [dir], urlHosts: [] },
        { field: 'images[0]' },
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).issues[0]?.message).toMatch(/declares 2147483647 × 2147483647/);
    });
  });

  it('the simulator does not decode it (it draws its pattern instead) and keeps running', () => {
    expect(decodeSelfie(bomb, 'png')).toBeNull();
    expect(decodeSelfie(pngDeclaring(7_000, 7_000, { bitDepth: 16, colorType: 6 }), 'png')).toBeNull();
    expect(decodeSelfie(jpegDeclaring(65_535, 65_535), 'jpeg')).toBeNull();
    expect(decodeSelfie(tinyPng(4, 4), 'png')).toMatchObject({ width: 4, height: 4 });
  });
});
