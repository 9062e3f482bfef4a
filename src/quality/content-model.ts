import { readdirSync } from 'node:fs';
import path from 'node:path';
import { loadOnce } from './load-once';
import type * as TensorFlowModule from '@tensorflow/tfjs';
import type * as NsfwModule from 'nsfwjs';
import type { RgbaImage } from '../images/rgba-image';
import { loadTensorFlow, rgbTensor, type TensorFlow } from './tensorflow';

/** The classes of the NSFW classifier, each with its probability (they sum to 1). */
export type ContentScores = Record<'Drawing' | 'Hentai' | 'Neutral' | 'Porn' | 'Sexy', number>;

export interface ContentModel {
  classify(image: RgbaImage): Promise<ContentScores>;
}

/**
 * nsfwjs's MobileNetV2 classifier (224×224 input), from the weights its npm package ships, on the
 * checks' TensorFlow.js. Loaded once per process at the first avatar check; nothing is downloaded.
 */
export const loadContentModel: () => Promise<ContentModel> = loadOnce(load);

/** The classifier itself, on `tf` (scripts/make-flagged-avatar.ts also takes its gradients). */
export async function loadNsfwClassifier(tf: TensorFlow): Promise<NsfwModule.NSFWJS> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const nsfwjs = require('nsfwjs') as typeof NsfwModule;
  const model = new nsfwjs.NSFWJS(shippedWeights(tf), { size: 224 });
  await model.load();
  return model;
}

async function load(): Promise<ContentModel> {
  const tf = await loadTensorFlow();
  const model = await loadNsfwClassifier(tf);
  return {
    async classify(image) {
      const input = tf.tidy(() => rgbTensor(tf, image));
      try {
        const predictions = await model.classify(input, 5);
        const scores: ContentScores = { Drawing: 0, Hentai: 0, Neutral: 0, Porn: 0, Sexy: 0 };
        for (const p of predictions) scores[p.className] = p.probability;
        return scores;
      } finally {
        input.dispose();
      }
    },
  };
}

/**
 * The package ships its model as JavaScript modules (the model JSON, and its weights in base64).
 * nsfwjs's own loader decodes the base64 a character at a time (seconds on one core); Buffer does
 * it at once, and TensorFlow.js takes the result from memory.
 */
function shippedWeights(tf: TensorFlow): TensorFlowModule.io.IOHandler {
  const dir = path.join(path.dirname(require.resolve('nsfwjs')), '..', 'models', 'mobilenet_v2');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const modelJson = require(path.join(dir, 'model.min.js')) as TensorFlowModule.io.ModelJSON;
  const shards = readdirSync(dir)
    .filter((file) => file.startsWith('group'))
    .sort()
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    .map((file) => Buffer.from(require(path.join(dir, file)) as string, 'base64'));
  const weights = Buffer.concat(shards);
  return tf.io.fromMemory({
    modelTopology: modelJson.modelTopology,
    weightSpecs: modelJson.weightsManifest.flatMap((group) => group.weights),
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
  });
}
