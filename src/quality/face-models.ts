import path from 'node:path';
import type * as TensorFlowModule from '@tensorflow/tfjs';
import type * as WasmBackendModule from '@tensorflow/tfjs-backend-wasm';
import type * as FaceApiModule from '@vladmandic/face-api';
import type { RgbaImage } from '../images/rgba-image';

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

let loading: Promise<FaceModels> | undefined;

/**
 * The face models, loaded once per process at the first check: @vladmandic/face-api's SSD MobileNet
 * detector, 68-point landmarks (to align the face) and its ResNet-34 recognition net, from the
 * weights its npm package ships, on TensorFlow.js's WASM backend (whose .wasm files ship in its own
 * package). Nothing is downloaded. Only check workers load them: starters and provider workers never
 * import this module.
 */
export function loadFaceModels(): Promise<FaceModels> {
  loading ??= load().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

async function load(): Promise<FaceModels> {
  const { tf, faceapi } = await loadTensorFlow();
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

type TensorFlow = typeof TensorFlowModule;
type FaceApi = typeof FaceApiModule;

/**
 * TensorFlow.js on WASM, and face-api's build for it (its package's main entry needs tfjs-node,
 * whose install downloads a native library). Both share the one `@tensorflow/tfjs` instance.
 */
async function loadTensorFlow(): Promise<{ tf: TensorFlow; faceapi: FaceApi }> {
  // Loaded here, not imported: only a check worker's first check pays for TensorFlow.js.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tf = quietly(() => require('@tensorflow/tfjs') as TensorFlow);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const wasm = require('@tensorflow/tfjs-backend-wasm') as typeof WasmBackendModule;
  wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}${path.sep}`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
  if (!(await tf.setBackend('wasm'))) throw new Error('TensorFlow.js could not start its WASM backend');
  await tf.ready();
  return { tf, faceapi };
}

/** The image as the [height, width, 3] integer tensor the detector takes (alpha dropped). */
function rgbTensor(tf: TensorFlow, image: RgbaImage): TensorFlowModule.Tensor3D {
  const rgb = new Int32Array(image.width * image.height * 3);
  for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
    rgb[j] = image.data[i] ?? 0;
    rgb[j + 1] = image.data[i + 1] ?? 0;
    rgb[j + 2] = image.data[i + 2] ?? 0;
  }
  return tf.tensor3d(rgb, [image.height, image.width, 3], 'int32');
}

/** TensorFlow.js prints advice to install tfjs-node when it loads in Node; that is not for operators. */
function quietly<T>(load: () => T): T {
  const info = console.info;
  const warn = console.warn;
  const log = console.log;
  console.info = console.warn = console.log = () => undefined;
  try {
    return load();
  } finally {
    console.info = info;
    console.warn = warn;
    console.log = log;
  }
}
