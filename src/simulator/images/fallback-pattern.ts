import { blankImage, type RgbaImage } from '../../images/rgba-image';

/**
 * Stands in for a selfie that cannot be decoded: a head-and-shoulders silhouette on a gradient
 * whose colours come from the seed, so different orders still get different pictures.
 */
export function fallbackPattern(size: number, seed: number): RgbaImage {
  const image = blankImage(size, size);
  const hue = (seed * 47) % 256;
  const head = { x: size / 2, y: size * 0.4, r: size * 0.2 };
  const shoulders = { x: size / 2, y: size * 1.05, r: size * 0.42 };
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      const inHead = (x - head.x) ** 2 + (y - head.y) ** 2 < head.r ** 2;
      const inShoulders = (x - shoulders.x) ** 2 + (y - shoulders.y) ** 2 < shoulders.r ** 2;
      const i = (y * size + x) * 4;
      if (inHead || inShoulders) {
        image.data[i] = 60;
        image.data[i + 1] = 50;
        image.data[i + 2] = 45;
      } else {
        image.data[i] = (hue + Math.floor((x * 128) / size)) % 256;
        image.data[i + 1] = (255 - hue + Math.floor((y * 128) / size)) % 256;
        image.data[i + 2] = (hue * 3 + 90) % 256;
      }
      image.data[i + 3] = 255;
    }
  }
  return image;
}
