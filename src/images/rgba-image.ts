/** 8-bit RGBA pixels, row by row, 4 bytes per pixel. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

export function blankImage(width: number, height: number): RgbaImage {
  return { width, height, data: new Uint8Array(width * height * 4) };
}

/**
 * Centre-crops to a square and scales to size×size, averaging every source pixel that falls in
 * a target pixel so large selfies shrink without aliasing. Transparency is flattened onto white,
 * like a photo print.
 */
export function squareThumbnail(source: RgbaImage, size: number): RgbaImage {
  const side = Math.min(source.width, source.height);
  const left = Math.floor((source.width - side) / 2);
  const top = Math.floor((source.height - side) / 2);
  const scale = side / size;
  const target = blankImage(size, size);
  for (let y = 0; y < size; y += 1) {
    const y0 = top + Math.floor(y * scale);
    const y1 = Math.max(y0 + 1, top + Math.floor((y + 1) * scale));
    for (let x = 0; x < size; x += 1) {
      const x0 = left + Math.floor(x * scale);
      const x1 = Math.max(x0 + 1, left + Math.floor((x + 1) * scale));
      let r = 0;
      let g = 0;
      let b = 0;
      let n = 0;
      for (let sy = y0; sy < y1; sy += 1) {
        for (let sx = x0; sx < x1; sx += 1) {
          const i = (sy * source.width + sx) * 4;
          const alpha = (source.data[i + 3] ?? 255) / 255;
          r += (source.data[i] ?? 0) * alpha + 255 * (1 - alpha);
          g += (source.data[i + 1] ?? 0) * alpha + 255 * (1 - alpha);
          b += (source.data[i + 2] ?? 0) * alpha + 255 * (1 - alpha);
          n += 1;
        }
      }
      const t = (y * size + x) * 4;
      target.data[t] = Math.round(r / n);
      target.data[t + 1] = Math.round(g / n);
      target.data[t + 2] = Math.round(b / n);
      target.data[t + 3] = 255;
    }
  }
  return target;
}

/** Nearest-neighbour resize, for thumbnails of already-drawn avatars. */
export function resizeNearest(source: RgbaImage, size: number): RgbaImage {
  const target = blankImage(size, size);
  for (let y = 0; y < size; y += 1) {
    const sy = Math.min(source.height - 1, Math.floor((y * source.height) / size));
    for (let x = 0; x < size; x += 1) {
      const sx = Math.min(source.width - 1, Math.floor((x * source.width) / size));
      const s = (sy * source.width + sx) * 4;
      target.data.set(source.data.subarray(s, s + 4), (y * size + x) * 4);
    }
  }
  return target;
}

/** The rectangle at (x, y) of width × height, which must lie inside the image. */
export function cropImage(source: RgbaImage, x: number, y: number, width: number, height: number): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let row = 0; row < height; row += 1) {
    const from = ((y + row) * source.width + x) * 4;
    data.set(source.data.subarray(from, from + width * 4), row * width * 4);
  }
  return { width, height, data };
}

/** The mirror image (left and right swapped). */
export function mirrorImage(source: RgbaImage): RgbaImage {
  const data = new Uint8Array(source.data.length);
  for (let y = 0; y < source.height; y += 1) {
    for (let x = 0; x < source.width; x += 1) {
      const from = (y * source.width + x) * 4;
      data.set(source.data.subarray(from, from + 4), (y * source.width + (source.width - 1 - x)) * 4);
    }
  }
  return { width: source.width, height: source.height, data };
}
