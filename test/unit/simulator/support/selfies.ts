import { encode as encodeJpeg } from 'jpeg-js';
import { PNG } from 'pngjs';

/** A small synthetic "selfie": a warm face-coloured disc on a blue background. */
function facePixels(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      const inFace = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (Math.min(width, height) / 3) ** 2;
      data[i] = inFace ? 230 : 40;
      data[i + 1] = inFace ? 180 : 90;
      data[i + 2] = inFace ? 150 : 200;
      data[i + 3] = 255;
    }
  }
  return data;
}

export function pngSelfie(width = 40, height = 30): Buffer {
  const png = new PNG({ width, height });
  png.data = facePixels(width, height);
  return PNG.sync.write(png);
}

export function jpegSelfie(width = 40, height = 30): Buffer {
  return encodeJpeg({ width, height, data: facePixels(width, height) }, 80).data;
}

export const asDataUri = (bytes: Buffer, mime = 'image/jpeg') =>
  `data:${mime};base64,${bytes.toString('base64')}`;
