import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findPackageRoot } from '../config/package-root';
import { syntheticSelfiePng } from './synthetic-selfie';

/**
 * The selfies shipped in `samples/selfies/`: cartoon faces drawn by syntheticSelfiePng, not
 * photos of anyone. `npm run demo` (dev/demo) uses them; a unit test checks the files still match.
 */
export const SAMPLE_SELFIES: readonly { file: string; seed: number }[] = [
  { file: 'selfie-1.png', seed: 11 },
  { file: 'selfie-2.png', seed: 12 },
  { file: 'selfie-3.png', seed: 13 },
  { file: 'selfie-4.png', seed: 14 },
];
export const SAMPLE_SELFIE_SIZE = 256;

export function sampleSelfiesDir(): string {
  return path.join(findPackageRoot(), 'samples', 'selfies');
}

export function sampleSelfiePng(seed: number): Buffer {
  return syntheticSelfiePng(seed, SAMPLE_SELFIE_SIZE);
}

/** (Re)draws the sample selfies into `dir`; returns their absolute paths. */
export async function writeSampleSelfies(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const { file, seed } of SAMPLE_SELFIES) {
    const target = path.resolve(dir, file);
    await writeFile(target, sampleSelfiePng(seed));
    files.push(target);
  }
  return files;
}

/** The shipped sample selfies, drawn afresh into `fallbackDir` when the files are not there. */
export async function sampleSelfieFiles(fallbackDir: string): Promise<string[]> {
  const dir = sampleSelfiesDir();
  const shipped = SAMPLE_SELFIES.map(({ file }) => path.join(dir, file));
  if (shipped.every((file) => existsSync(file))) return shipped;
  return writeSampleSelfies(fallbackDir);
}
