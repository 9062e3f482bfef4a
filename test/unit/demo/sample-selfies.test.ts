import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import {
  SAMPLE_SELFIES,
  sampleSelfieFiles,
  sampleSelfiePng,
  sampleSelfiesDir,
} from '../../../src/samples/sample-selfies';
import { portrait } from '../../helpers/face-selfies';

describe('the sample selfies shipped in samples/selfies', () => {
  it('are exactly the framings of the public-domain portrait they are said to be', async () => {
    const shipped = (await readdir(sampleSelfiesDir())).filter((f) => f.endsWith('.png')).sort();
    expect(shipped).toEqual(SAMPLE_SELFIES.map((s) => s.file).sort());
    const collins = portrait('collins');
    for (const sample of SAMPLE_SELFIES) {
      const bytes = readFileSync(path.join(sampleSelfiesDir(), sample.file));
      expect(bytes.equals(sampleSelfiePng(collins, sample))).toBe(true);
    }
  });

  it('are found in the package', () => {
    expect(sampleSelfieFiles()).toEqual(SAMPLE_SELFIES.map((s) => path.join(sampleSelfiesDir(), s.file)));
  });
});
