import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { detectImageFormat } from '@avatar-pipeline/client/provider/image-format';
import {
  SAMPLE_SELFIES,
  sampleSelfieFiles,
  sampleSelfiePng,
  sampleSelfiesDir,
  writeSampleSelfies,
} from '../../../src/samples/sample-selfies';
import { temporaryDirectory } from '../../helpers/temp-dir';

describe('the sample selfies shipped in samples/selfies', () => {
  it('are exactly the synthetic cartoon faces the project draws (no one’s photo)', async () => {
    const shipped = (await readdir(sampleSelfiesDir())).filter((f) => f.endsWith('.png')).sort();
    expect(shipped).toEqual(SAMPLE_SELFIES.map((s) => s.file).sort());
    for (const { file, seed } of SAMPLE_SELFIES) {
      const bytes = readFileSync(path.join(sampleSelfiesDir(), file));
      expect(detectImageFormat(bytes)).toBe('png');
      expect(bytes.equals(sampleSelfiePng(seed))).toBe(true);
    }
  });

  it('are found in the package, and can be drawn again elsewhere', async () => {
    const dir = temporaryDirectory('samples-');
    const found = await sampleSelfieFiles(dir);
    expect(found.every((f) => f.startsWith(sampleSelfiesDir()))).toBe(true);
    const drawn = await writeSampleSelfies(dir);
    expect(drawn).toHaveLength(SAMPLE_SELFIES.length);
    expect(readFileSync(drawn[0]!).equals(readFileSync(found[0]!))).toBe(true);
    // Drawing every sample is CPU work: seconds on a busy 2-core machine.
  }, 30_000);
});
