/**
 * Benchmark: what an avatar check costs a check worker, beside what every archived avatar already
 * costs (read its copy, check it is a whole PNG), in one run:
 * - per-avatar time (median and slowest of --rounds passes) of the check (decode, face detection and
 *   descriptor, NSFW classifier, verdict) and of the baseline;
 * - the two models' load time, and the process's RSS before, with both loaded and after every pass;
 * - how the same-person decision fares at FACE_MATCH_MAX_DISTANCE (0.55) on the two portraits in
 *   test/fixtures/faces and on transformed copies of them (crops, mirror, rescaled by 0.5 and 1.5,
 *   JPEG quality 60), and on the simulator's avatars of the sample selfies in its eight styles:
 *   every pair of one person should fall within it, every pair of two people beyond it.
 *
 * The avatars are the simulator's (256 px, every style; another person; no face; the flagged picture
 * of samples/avatars), so the figures are those of the e2e tests' avatars. Run it on one core, as one
 * check worker's slot is sized (CHECK_WORKER_CONCURRENCY: one core each):
 *
 *   npm run build && taskset -c 0 node dist/bench/avatar-checks.js [--rounds 5]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { encode as encodeJpeg } from 'jpeg-js';
import { imageProblem } from '@avatar-pipeline/client/images/image-structure';
import { decodeImage } from '../src/images/decode-image';
import { cropImage, mirrorImage, type RgbaImage } from '../src/images/rgba-image';
import { avatarVerdict } from '../src/quality/avatar-verdicts';
import { loadContentModel } from '../src/quality/content-model';
import { loadFaceModels, type FaceModels } from '../src/quality/face-models';
import { faceDistance, personDescriptor } from '../src/quality/selfie-verdicts';
import { sampleSelfieFiles } from '../src/samples/sample-selfies';
import { AvatarRenderer, type SourcePicture } from '../src/simulator/images/avatar-renderer';
import { styleTreatmentSchema } from '../src/simulator/style-catalog';
import { markdownTable, type Row } from './report-table';

const ROOT = path.resolve(__dirname, '../..');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const MATCH = 0.55;
const mb = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

function picture(key: string, file: string): SourcePicture {
  return { key, bytes: readFileSync(file), format: file.endsWith('.png') ? 'png' : 'jpeg' };
}

/** The simulator's avatars: the sample person in every style (4 variations), another person, no face, the flagged picture. */
function avatars(): { name: string; png: Buffer }[] {
  const renderer = new AvatarRenderer();
  const person = picture('selfie-1', sampleSelfieFiles()[0]!);
  const other = picture('another', path.join(ROOT, 'samples/avatars/another-person.jpg'));
  const draw = (
    p: SourcePicture | undefined,
    treatment: (typeof styleTreatmentSchema.options)[number],
    v: number,
  ) => renderer.render({ picture: p, patternSeed: 3, treatment, variation: v, size: 256, thumbnail: false });
  return [
    ...styleTreatmentSchema.options.flatMap((t) =>
      [0, 1, 2, 3].map((v) => ({ name: `person ${t} ${v}`, png: draw(person, t, v) })),
    ),
    { name: 'another person (sepia)', png: draw(other, 'sepia', 0) },
    { name: 'no face (pattern)', png: draw(undefined, 'pastel', 0) },
    { name: 'flagged picture', png: readFileSync(path.join(ROOT, 'samples/avatars/flagged-unsafe.png')) },
  ];
}

/** Copies of a portrait as selfies of it would differ: crops, mirrored, rescaled, recompressed. */
function transformed(image: RgbaImage): { name: string; image: RgbaImage }[] {
  const { width: w, height: h } = image;
  const rescale = (factor: number): RgbaImage => {
    const width = Math.round(w * factor);
    const height = Math.round(h * factor);
    const data = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const from =
          (Math.min(h - 1, Math.floor(y / factor)) * w + Math.min(w - 1, Math.floor(x / factor))) * 4;
        data.set(image.data.subarray(from, from + 4), (y * width + x) * 4);
      }
    }
    return { width, height, data };
  };
  const jpeg = decodeImage(Buffer.from(encodeJpeg({ ...image, data: Buffer.from(image.data) }, 60).data))!;
  return [
    { name: 'original', image },
    { name: 'mirror', image: mirrorImage(image) },
    {
      name: 'crop centre 70%',
      image: cropImage(image, Math.round(w * 0.15), 0, Math.round(w * 0.7), Math.round(h * 0.8)),
    },
    { name: 'rescaled 0.5', image: rescale(0.5) },
    { name: 'rescaled 1.5', image: rescale(1.5) },
    { name: 'JPEG q60', image: jpeg },
  ];
}

async function descriptorsOf(models: FaceModels, images: { name: string; image: RgbaImage }[]) {
  const out: { name: string; descriptor: number[] | undefined }[] = [];
  for (const { name, image } of images) {
    const faces = await models.findFaces(image);
    out.push({ name, descriptor: faces.length === 1 ? faces[0]!.descriptor : undefined });
  }
  return out;
}

async function main(): Promise<void> {
  const drawn = avatars();
  const rssStart = mb();
  const loadStarted = performance.now();
  const [faces, content] = await Promise.all([loadFaceModels(), loadContentModel()]);
  const loadMs = performance.now() - loadStarted;
  const rssLoaded = mb();
  const selfies = sampleSelfieFiles().map((file) => decodeImage(readFileSync(file))!);
  const readings = await Promise.all(selfies.map(async (image) => ({ faces: await faces.findFaces(image) })));
  const person = personDescriptor(readings, MATCH)!;

  const baseline: number[] = [];
  const checks: number[] = [];
  const rssAfterRound: number[] = [];
  const verdicts = new Map<string, string>();
  for (let round = 0; round < rounds; round += 1) {
    for (const avatar of drawn) {
      let started = performance.now();
      if (imageProblem(avatar.png) !== undefined) throw new Error(`${avatar.name} is not an image`);
      baseline.push(performance.now() - started);
      started = performance.now();
      const image = decodeImage(avatar.png)!;
      const reading = { faces: await faces.findFaces(image), content: await content.classify(image) };
      const verdict = avatarVerdict(reading, person, { faceMatchMaxDistance: MATCH, unsafeMinScore: 0.6 });
      checks.push(performance.now() - started);
      if (round === 0) verdicts.set(avatar.name, verdict.passed ? 'passed' : verdict.reasons.join('; '));
    }
    rssAfterRound.push(mb());
  }

  // Same-person accuracy on the fixtures and their copies, and on the avatars of the person.
  const portraits = {
    collins: decodeImage(readFileSync(path.join(ROOT, 'test/fixtures/faces/astronaut.png')))!,
    hopper: decodeImage(readFileSync(path.join(ROOT, 'test/fixtures/faces/grace_hopper.jpg')))!,
  };
  const copies = {
    collins: await descriptorsOf(faces, transformed(portraits.collins)),
    hopper: await descriptorsOf(faces, transformed(portraits.hopper)),
  };
  const found = [...copies.collins, ...copies.hopper].filter((c) => c.descriptor !== undefined).length;
  const pairs = (a: typeof copies.collins, b: typeof copies.collins, same: boolean) => {
    const distances: number[] = [];
    a.forEach((x, i) =>
      b.forEach((y, j) => {
        if ((same && j <= i) || !x.descriptor || !y.descriptor) return;
        distances.push(faceDistance(x.descriptor, y.descriptor));
      }),
    );
    const right = distances.filter((d) => (same ? d <= MATCH : d > MATCH)).length;
    return { distances, right };
  };
  const sameCollins = pairs(copies.collins, copies.collins, true);
  const sameHopper = pairs(copies.hopper, copies.hopper, true);
  const across = pairs(copies.collins, copies.hopper, false);
  const avatarsOfPerson = drawn.filter((a) => a.name.startsWith('person'));
  const personMatches = avatarsOfPerson.filter((a) => verdicts.get(a.name) === 'passed').length;
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;

  const rows: Row[] = [
    {
      figure: `per-avatar check, median (slowest) of ${checks.length}`,
      product: `${ms(median(checks))} (${ms(Math.max(...checks))})`,
      baseline: `${ms(median(baseline))} (${ms(Math.max(...baseline))}): whole-image check only`,
      target: '-',
    },
    { figure: 'face models + NSFW classifier load', product: ms(loadMs), baseline: '-', target: '-' },
    {
      figure: 'RSS: start / models loaded / after the first and last pass',
      product: `${rssStart} / ${rssLoaded} / ${rssAfterRound[0]} / ${rssAfterRound.at(-1)} MB`,
      baseline: '-',
      target: '-',
    },
  ];
  const accuracy: Row[] = [
    {
      figure: `faces found in the copies (${copies.collins.length + copies.hopper.length})`,
      product: String(found),
      baseline: '-',
      target: 'all',
    },
    {
      figure: 'one person, Collins: pairs within 0.55',
      product: `${sameCollins.right}/${sameCollins.distances.length} (distances ${range(sameCollins.distances)})`,
      baseline: '-',
      target: 'all',
    },
    {
      figure: 'one person, Hopper: pairs within 0.55',
      product: `${sameHopper.right}/${sameHopper.distances.length} (distances ${range(sameHopper.distances)})`,
      baseline: '-',
      target: 'all',
    },
    {
      figure: 'two people: pairs beyond 0.55',
      product: `${across.right}/${across.distances.length} (distances ${range(across.distances)})`,
      baseline: '-',
      target: 'all',
    },
    {
      figure: 'simulator avatars of the person (8 styles × 4) passing',
      product: `${personMatches}/${avatarsOfPerson.length}`,
      baseline: '-',
      target: 'all',
    },
  ];
  console.log(`Avatar checks: ${drawn.length} avatars, ${rounds} passes, Node ${process.version}\n`);
  console.log(markdownTable(rows));
  console.log(`\nRSS after each pass (MB): ${rssAfterRound.join(', ')}\n`);
  console.log(markdownTable(accuracy));
  console.log('\nVerdicts of the stand-ins:');
  for (const name of ['another person (sepia)', 'no face (pattern)', 'flagged picture']) {
    console.log(`- ${name}: ${verdicts.get(name)}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
