import path from 'node:path';
import { loadOnce } from './load-once';
import type * as TensorFlowModule from '@tensorflow/tfjs';
import type * as WasmBackendModule from '@tensorflow/tfjs-backend-wasm';
import type { RgbaImage } from '../images/rgba-image';

export type TensorFlow = typeof TensorFlowModule;

/**
 * TensorFlow.js on its WASM backend (whose .wasm files ship in its own package), once per process,
 * for every model of the checks. Loaded here, not imported: only a check worker's first check pays
 * for it, and starters and provider workers never load it.
 */
export const loadTensorFlow: () => Promise<TensorFlow> = loadOnce(start);

async function start(): Promise<TensorFlow> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tf = quietly(() => require('@tensorflow/tfjs') as TensorFlow);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const wasm = require('@tensorflow/tfjs-backend-wasm') as typeof WasmBackendModule;
  wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}${path.sep}`);
  if (!(await tf.setBackend('wasm'))) throw new Error('TensorFlow.js could not start its WASM backend');
  await tf.ready();
  return tf;
}

/** The image as the [height, width, 3] integer tensor the models take (alpha dropped). */
export function rgbTensor(tf: TensorFlow, image: RgbaImage): TensorFlowModule.Tensor3D {
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
