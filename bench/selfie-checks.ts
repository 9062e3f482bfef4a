/**
 * Benchmark: what a selfie check costs a check worker, beside the check every run already makes
 * before its model is created (read the selfie, check it is a whole JPEG or PNG), in one run:
 * - per-selfie time (median and slowest of --rounds passes over real photographs) of each;
 * - the models' load time, and the process's RSS before, after loading and after every pass (a
 *   worker that checks for days must not grow without bound).
 *
 * Run it on one core, as one check worker's slot is sized (CHECK_WORKER_CONCURRENCY: one core each):
 *
 *   npm run build && taskset -c 0 node dist/bench/selfie-checks.js [--rounds 10]
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { imageProblem } from '@avatar-pipeline/client/images/image-structure';
import { decodeImage } from '../src/images/decode-image';
import { loadFaceModels } from '../src/quality/face-models';
import { differenceHash, regionMeasures } from '../src/quality/image-measures';
import { sampleSelfieFiles } from '../src/samples/sample-selfies';
import { markdownTable, type Row } from './report-table';

const ROOT = path.resolve(__dirname, '../..');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 10;
const mb = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const files = [
    ...sampleSelfieFiles(),
    path.join(ROOT, 'test/fixtures/faces/astronaut.png'),
    path.join(ROOT, 'test/fixtures/faces/grace_hopper.jpg'),
  ];
  const bytes = await Promise.all(files.map((file) => readFile(file)));
  const rssStart = mb();
  const loadStarted = performance.now();
  const models = await loadFaceModels();
  const loadMs = performance.now() - loadStarted;
  const rssLoaded = mb();

  const baseline: number[] = [];
  const checks: number[] = [];
  const rssAfterRound: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, file] of files.entries()) {
      let started = performance.now();
      const read = await readFile(file);
      if (imageProblem(read) !== undefined) throw new Error(`${file} is not an image`);
      baseline.push(performance.now() - started);

      started = performance.now();
      const image = decodeImage(bytes[i]!);
      if (image === null) throw new Error(`${file} does not decode`);
      const faces = await models.findFaces(image);
      if (faces.length === 1) regionMeasures(image, faces[0]!.box);
      differenceHash(image);
      checks.push(performance.now() - started);
    }
    rssAfterRound.push(mb());
  }

  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const rows: Row[] = [
    {
      figure: `per-selfie check, median (slowest) of ${checks.length}`,
      product: `${ms(median(checks))} (${ms(Math.max(...checks))})`,
      baseline: `${ms(median(baseline))} (${ms(Math.max(...baseline))}): read + format check only`,
      target: '-',
    },
    { figure: 'models load', product: ms(loadMs), baseline: '-', target: '-' },
    {
      figure: 'RSS: start / models loaded / after the first and last pass',
      product: `${rssStart} / ${rssLoaded} / ${rssAfterRound[0]} / ${rssAfterRound.at(-1)} MB`,
      baseline: '-',
      target: '-',
    },
  ];
  console.log(
    `Selfie checks: ${files.length} photographs (${files.map((f) => path.basename(f)).join(', ')}), ${rounds} passes, Node ${process.version}\n`,
  );
  console.log(markdownTable(rows));
  console.log(`\nRSS after each pass (MB): ${rssAfterRound.join(', ')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
