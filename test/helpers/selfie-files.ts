import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticSelfiePng } from '../../src/samples/synthetic-selfie';

/** Writes `count` synthetic selfies into a fresh directory; returns the directory and the absolute paths. */
export async function writeSelfies(
  count: number,
  prefix = 'selfies-',
): Promise<{ dir: string; files: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = join(dir, `selfie-${i + 1}.png`);
    await writeFile(file, syntheticSelfiePng(i + 1, 64));
    files.push(file);
  }
  return { dir, files };
}
