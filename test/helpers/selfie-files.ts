import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { syntheticSelfiePng } from '../../src/samples/synthetic-selfie';
import { temporaryDirectory } from './temp-dir';

/**
 * Writes `count` synthetic selfies into a fresh directory, removed after the calling test file;
 * returns the directory and the absolute paths.
 */
export async function writeSelfies(
  count: number,
  prefix = 'selfies-',
): Promise<{ dir: string; files: string[] }> {
  const dir = temporaryDirectory(prefix);
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = join(dir, `selfie-${i + 1}.png`);
    await writeFile(file, syntheticSelfiePng(i + 1, 64));
    files.push(file);
  }
  return { dir, files };
}
