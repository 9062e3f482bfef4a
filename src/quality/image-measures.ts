import type { RgbaImage } from '../images/rgba-image';

/** A rectangle in pixels. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The side the face region is brought to before it is measured, so sharpness compares across sizes. */
const MEASURE_SIDE = 128;

/** Grey levels (Rec. 601 luma) of a region, resampled to columns×rows by averaging the pixels of each cell. */
function greyGrid(image: RgbaImage, region: Region, columns: number, rows: number): Float64Array {
  const x0 = Math.max(0, Math.floor(region.x));
  const y0 = Math.max(0, Math.floor(region.y));
  const w = Math.max(1, Math.min(image.width, Math.ceil(region.x + region.width)) - x0);
  const h = Math.max(1, Math.min(image.height, Math.ceil(region.y + region.height)) - y0);
  const grey = new Float64Array(columns * rows);
  for (let ty = 0; ty < rows; ty += 1) {
    const sy0 = y0 + Math.floor((ty * h) / rows);
    const sy1 = Math.max(sy0 + 1, y0 + Math.floor(((ty + 1) * h) / rows));
    for (let tx = 0; tx < columns; tx += 1) {
      const sx0 = x0 + Math.floor((tx * w) / columns);
      const sx1 = Math.max(sx0 + 1, x0 + Math.floor(((tx + 1) * w) / columns));
      let sum = 0;
      let n = 0;
      for (let sy = sy0; sy < sy1; sy += 1) {
        for (let sx = sx0; sx < sx1; sx += 1) {
          const i = (sy * image.width + sx) * 4;
          sum +=
            0.299 * (image.data[i] ?? 0) +
            0.587 * (image.data[i + 1] ?? 0) +
            0.114 * (image.data[i + 2] ?? 0);
          n += 1;
        }
      }
      grey[ty * columns + tx] = sum / n;
    }
  }
  return grey;
}

/**
 * How a face region looks, from its grey levels at 128×128 (one resampling for both):
 * - sharpness: the variance of the Laplacian. A blurred photo has weak edges and scores low; the
 *   same photo at another size scores alike.
 * - brightness: the mean grey level (0-255), how well the face is lit.
 */
export function regionMeasures(image: RgbaImage, region: Region): { sharpness: number; brightness: number } {
  const side = MEASURE_SIDE;
  const grey = greyGrid(image, region, side, side);
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < side - 1; y += 1) {
    for (let x = 1; x < side - 1; x += 1) {
      const i = y * side + x;
      const lap = grey[i - side]! + grey[i + side]! + grey[i - 1]! + grey[i + 1]! - 4 * grey[i]!;
      sum += lap;
      sumSq += lap * lap;
      n += 1;
    }
  }
  const mean = sum / n;
  return { sharpness: sumSq / n - mean * mean, brightness: grey.reduce((a, b) => a + b, 0) / grey.length };
}

/**
 * A 64-bit difference hash of the whole image (9×8 grey levels, one bit per horizontal step): the
 * same photo rescaled or recompressed hashes nearly alike; another photo does not.
 */
export function differenceHash(image: RgbaImage): bigint {
  const grey = greyGrid(image, { x: 0, y: 0, width: image.width, height: image.height }, 9, 8);
  let hash = 0n;
  for (let y = 0; y < 8; y += 1) {
    for (let x = 0; x < 8; x += 1) {
      hash = (hash << 1n) | (grey[y * 9 + x]! > grey[y * 9 + x + 1]! ? 1n : 0n);
    }
  }
  return hash;
}

/** How many bits two hashes differ in. */
export function hammingDistance(a: bigint, b: bigint): number {
  let x = a ^ b;
  let bits = 0;
  while (x > 0n) {
    bits += Number(x & 1n);
    x >>= 1n;
  }
  return bits;
}
