import { existsSync } from 'node:fs';
import path from 'node:path';
import { findPackageRoot } from '../config/package-root';
import { encodePng } from '../images/png-encoding';
import { cropImage, mirrorImage, type RgbaImage } from '../images/rgba-image';

/**
 * The selfies shipped in `samples/selfies/`: four framings of one public-domain photograph of Eileen
 * Collins (NASA), so the demo and the docs run on a real face that the selfie checks accept. Each is
 * the crop of the portrait below, mirrored or not; a unit test derives them again from the portrait
 * (test/fixtures/faces/astronaut.png) and checks the shipped files still match.
 */
export const SAMPLE_SELFIES: readonly {
  file: string;
  crop: { x: number; y: number; width: number; height: number };
  mirrored: boolean;
}[] = [
  { file: 'selfie-1.png', crop: { x: 100, y: 0, width: 260, height: 300 }, mirrored: false },
  { file: 'selfie-2.png', crop: { x: 60, y: 10, width: 340, height: 360 }, mirrored: true },
  { file: 'selfie-3.png', crop: { x: 120, y: 30, width: 200, height: 220 }, mirrored: false },
  { file: 'selfie-4.png', crop: { x: 100, y: 0, width: 260, height: 300 }, mirrored: true },
];

export function sampleSelfiesDir(): string {
  return path.join(findPackageRoot(), 'samples', 'selfies');
}

/** One sample selfie, from the portrait it is cut from. */
export function sampleSelfiePng(portrait: RgbaImage, sample: (typeof SAMPLE_SELFIES)[number]): Buffer {
  const { x, y, width, height } = sample.crop;
  const cut = cropImage(portrait, x, y, width, height);
  return encodePng(sample.mirrored ? mirrorImage(cut) : cut);
}

/** The shipped sample selfies' absolute paths. */
export function sampleSelfieFiles(): string[] {
  const files = SAMPLE_SELFIES.map(({ file }) => path.join(sampleSelfiesDir(), file));
  const missing = files.filter((file) => !existsSync(file));
  if (missing.length > 0) throw new Error(`the sample selfies are missing: ${missing.join(', ')}`);
  return files;
}
