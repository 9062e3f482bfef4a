import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PNG } from 'pngjs';

/**
 * Writes `count` valid PNG files of random noise, each about `approxBytes` long (noise does not
 * compress, so the file is about as large as its pixels): the largest selfies a caller may send.
 */
export async function writeNoisePngs(dir: string, count: number, approxBytes: number): Promise<string[]> {
  const side = Math.ceil(Math.sqrt(approxBytes / 4));
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const png = new PNG({ width: side, height: side });
    randomBytes(side * side * 4).copy(png.data);
    const file = path.join(dir, `noise-${i + 1}.png`);
    await writeFile(file, PNG.sync.write(png, { deflateLevel: 0, filterType: 0 }));
    files.push(file);
  }
  return files;
}
