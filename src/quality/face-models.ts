import path from 'node:path';
import { loadOnce } from './load-once';
import type * as FaceApiModule from '@vladmandic/face-api';
import type { RgbaImage } from '../images/rgba-image';
import { loadTensorFlow, rgbTensor } from './tensorflow';

/** A face the detector found: where, how sure, and its 128-d descriptor (Euclidean distances compare people). */
export interface FoundFace {
  box: { x: number; y: number; width: number; height: number };
  score: number;
  descriptor: number[];
}

export interface FaceModels {
  /** Every face in the image, most confident first. */
  findFaces(image: RgbaImage): Promise<FoundFace[]>;
}

/** Faces scored below this are not faces (SSD MobileNet's confidence). */
const MIN_DETECTION_SCORE = 0.5;
/** More faces than this in one image is a crowd: the selfie is refused either way. */
const MAX_FACES = 10;

/**
 * The face models, loaded once per process at the first check: @vladmandic/face-api's SSD MobileNet
 * detector, 68-point landmarks (to align the face) and its ResNet-34 recognition net, from the
 * weights its npm package ships, on TensorFlow.js's WASM backend (whose .wasm files ship in its own
 * package). Nothing is downloaded. Only check workers load them: starters and provider workers never
 * import this module.
 */
export const loadFaceModels: () => Promise<FaceModels> = loadOnce(load);

async function load(): Promise<FaceModels> {
  const tf = await loadTensorFlow();
  // face-api's build for TensorFlow.js on WASM: its package's main entry needs tfjs-node, whose
  // install downloads a native library. It uses the one `@tensorflow/tfjs` instance loaded above.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as typeof FaceApiModule;
  const weights = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(weights);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(weights);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(weights);
  const options = new faceapi.SsdMobilenetv1Options({
    minConfidence: MIN_DETECTION_SCORE,
    maxResults: MAX_FACES,
  });
  return {
    async findFaces(image) {
      const input = tf.tidy(() => rgbTensor(tf, image));
      try {
        const found = await faceapi.detectAllFaces(input, options).withFaceLandmarks().withFaceDescriptors();
        return found
          .map((f) => ({
            box: {
              x: f.detection.box.x,
              y: f.detection.box.y,
              width: f.detection.box.width,
              height: f.detection.box.height,
            },
            score: f.detection.score,
            descriptor: Array.from(f.descriptor),
          }))
          .sort((a, b) => b.score - a.score);
      } finally {
        input.dispose();
      }
    },
  };
}
