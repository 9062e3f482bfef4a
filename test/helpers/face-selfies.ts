import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encode as encodeJpeg } from 'jpeg-js';
import { decodeImage } from '../../src/images/decode-image';
import { encodePng } from '../../src/images/png-encoding';
import { cropImage, mirrorImage, type RgbaImage } from '../../src/images/rgba-image';
import { temporaryDirectory } from './temp-dir';

/** The real portraits in test/fixtures/faces (see its README for who and whence). */
export const PORTRAITS = {
  /** Eileen Collins: her face is near (181, 73), about 85×100 px. */
  collins: join(__dirname, '..', 'fixtures', 'faces', 'astronaut.png'),
  /** Grace Hopper. */
  hopper: join(__dirname, '..', 'fixtures', 'faces', 'grace_hopper.jpg'),
} as const;

export function portrait(name: keyof typeof PORTRAITS): RgbaImage {
  const image = decodeImage(readFileSync(PORTRAITS[name]));
  if (image === null) throw new Error(`cannot decode ${PORTRAITS[name]}`);
  return image;
}

/** Nearest-neighbour rescale by `factor`. */
export function rescale(image: RgbaImage, factor: number): RgbaImage {
  const width = Math.round(image.width * factor);
  const height = Math.round(image.height * factor);
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    const sy = Math.min(image.height - 1, Math.floor(y / factor));
    for (let x = 0; x < width; x += 1) {
      const sx = Math.min(image.width - 1, Math.floor(x / factor));
      const from = (sy * image.width + sx) * 4;
      out.set(image.data.subarray(from, from + 4), (y * width + x) * 4);
    }
  }
  return { width, height, data: out };
}

/** A box blur of the given radius, horizontal then vertical, applied `passes` times (close to a Gaussian). */
export function blur(image: RgbaImage, radius: number, passes = 3): RgbaImage {
  let data: Uint8Array = Uint8Array.from(image.data);
  const { width, height } = image;
  const along = (source: Uint8Array, horizontal: boolean): Uint8Array => {
    const out = new Uint8Array(source.length);
    const lines = horizontal ? height : width;
    const length = horizontal ? width : height;
    const at = (line: number, k: number) => (horizontal ? (line * width + k) * 4 : (k * width + line) * 4);
    for (let line = 0; line < lines; line += 1) {
      for (let k = 0; k < length; k += 1) {
        for (let c = 0; c < 3; c += 1) {
          let sum = 0;
          for (let d = -radius; d <= radius; d += 1)
            sum += source[at(line, Math.min(length - 1, Math.max(0, k + d))) + c]!;
          out[at(line, k) + c] = sum / (2 * radius + 1);
        }
        out[at(line, k) + 3] = 255;
      }
    }
    return out;
  };
  for (let pass = 0; pass < passes; pass += 1) data = along(along(data, true), false);
  return { width, height, data };
}

/** Two images side by side on one canvas (a group photo). */
export function sideBySide(left: RgbaImage, right: RgbaImage): RgbaImage {
  const width = left.width + right.width;
  const height = Math.max(left.height, right.height);
  const out = new Uint8Array(width * height * 4).fill(255);
  for (const [image, offset] of [
    [left, 0],
    [right, left.width],
  ] as const) {
    for (let y = 0; y < image.height; y += 1) {
      out.set(image.data.subarray(y * image.width * 4, (y + 1) * image.width * 4), (y * width + offset) * 4);
    }
  }
  return { width, height, data: out };
}

export function jpegBytes(image: RgbaImage, quality = 90): Buffer {
  return encodeJpeg({ width: image.width, height: image.height, data: Buffer.from(image.data) }, quality)
    .data;
}

/**
 * Selfie files made from the portraits, in `into` or a fresh directory removed after the calling test file:
 * three of Eileen Collins (the portrait, its mirror image, a crop around her head), one of Grace
 * Hopper (another person), one part of Collins's portrait that holds no face, and a group photo.
 */
export async function writeFaceSelfies(into?: string): Promise<{
  dir: string;
  collins: string[];
  hopper: string;
  noFace: string;
  group: string;
}> {
  const dir = into ?? temporaryDirectory('face-selfies-');
  await mkdir(dir, { recursive: true });
  const collins = portrait('collins');
  const hopper = portrait('hopper');
  const write = async (name: string, bytes: Buffer) => {
    const file = join(dir, name);
    await writeFile(file, bytes);
    return file;
  };
  return {
    dir,
    collins: [
      await write('collins-1.png', encodePng(collins)),
      await write('collins-2.jpg', jpegBytes(mirrorImage(collins))),
      await write('collins-3.jpg', jpegBytes(cropImage(collins, 100, 0, 260, 300))),
    ],
    hopper: await write('hopper.jpg', jpegBytes(hopper)),
    noFace: await write('no-face.jpg', jpegBytes(cropImage(collins, 0, 260, 250, 252))),
    group: await write('group.jpg', jpegBytes(sideBySide(collins, hopper))),
  };
}
