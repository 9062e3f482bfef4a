/**
 * Makes samples/avatars/flagged-unsafe.png: the picture the simulator serves for a wrong avatar that
 * "shows unsafe content" (its `wrongAvatars` option), so the avatar checks' NSFW classifier meets a
 * real positive without the repository holding explicit images. It is an adversarial example: the
 * simulator's sepia avatar of samples/selfies/selfie-1.png at 224 px (the classifier's input size),
 * nudged by the sign of the gradient of the classifier's "Porn" score (each pixel at most 12 levels
 * of 255 from the avatar) until the classifier gives it 0.97 or more. To a person it is the avatar
 * with faint noise; to the classifier it is unsafe.
 *
 *   npm run build && node dist/scripts/make-flagged-avatar.js   (about 2 minutes a step on one core)
 *
 * TensorFlow.js's WASM backend has no gradients of convolutions, so the steps run on its CPU backend;
 * the result is checked on WASM, as the check workers see it, after a PNG round trip.
 */
import type { LayersModel, Tensor } from '@tensorflow/tfjs';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findPackageRoot } from '../src/config/package-root';
import { decodeImage } from '../src/images/decode-image';
import { encodePng } from '../src/images/png-encoding';
import { loadNsfwClassifier } from '../src/quality/content-model';
import { loadTensorFlow, rgbTensor } from '../src/quality/tensorflow';
import { AvatarRenderer } from '../src/simulator/images/avatar-renderer';
import { sampleSelfieFiles } from '../src/samples/sample-selfies';

const SIZE = 224;
const TARGET = 'Porn';
const CLASSES = ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy'];
const STEP = 1 / 255;
const BOUND = 12 / 255;
const WANTED = 0.97;
const MAX_STEPS = 10;

async function main(): Promise<void> {
  const tf = await loadTensorFlow();
  const out = path.join(findPackageRoot(), 'samples', 'avatars', 'flagged-unsafe.png');
  const avatar = decodeImage(
    new AvatarRenderer().render({
      picture: { key: 'selfie-1', bytes: readFileSync(sampleSelfieFiles()[0]!), format: 'png' },
      patternSeed: 1,
      treatment: 'sepia',
      variation: 0,
      size: SIZE,
      thumbnail: false,
    }),
  );
  if (avatar === null) throw new Error('the rendered avatar does not decode');

  await tf.setBackend('cpu');
  const classifier = await loadNsfwClassifier(tf);
  const net = classifier.model as LayersModel;
  const start = tf.tidy(() => rgbTensor(tf, avatar).toFloat().div(255).expandDims(0));
  const target = tf.oneHot([CLASSES.indexOf(TARGET)], CLASSES.length).toFloat();
  const score = (input: Tensor) => tf.log((net.predict(input) as Tensor).mul(target).sum().add(1e-9));
  const gradient = tf.grad(score);
  let image = start.clone();
  for (let step = 1; step <= MAX_STEPS; step += 1) {
    const next = tf.tidy(() =>
      image
        .add(gradient(image).sign().mul(STEP))
        .minimum(start.add(BOUND))
        .maximum(start.sub(BOUND))
        .clipByValue(0, 1),
    );
    image.dispose();
    image = next;
    const scores = tf.tidy(() => (net.predict(image) as Tensor).dataSync());
    const reached = scores[CLASSES.indexOf(TARGET)] ?? 0;
    console.log(`step ${step}: ${TARGET} ${reached.toFixed(3)}`);
    if (reached >= WANTED) break;
  }
  const pixels = tf.tidy(() => image.mul(255).round().dataSync());
  const rgba = new Uint8Array(SIZE * SIZE * 4);
  for (let i = 0, j = 0; j < pixels.length; i += 4, j += 3) {
    rgba.set([pixels[j] ?? 0, pixels[j + 1] ?? 0, pixels[j + 2] ?? 0, 255], i);
  }
  writeFileSync(out, encodePng({ width: SIZE, height: SIZE, data: rgba }));

  await tf.setBackend('wasm');
  const written = decodeImage(readFileSync(out));
  if (written === null) throw new Error(`${out} does not decode`);
  const checked = await (
    await loadNsfwClassifier(tf)
  ).classify(
    tf.tidy(() => rgbTensor(tf, written)),
    5,
  );
  console.log(
    `${out} on WASM: ${checked.map((p) => `${p.className} ${p.probability.toFixed(3)}`).join(', ')}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
