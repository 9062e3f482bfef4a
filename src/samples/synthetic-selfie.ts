import { PNG } from 'pngjs';

/**
 * A made-up "selfie": a cartoon face drawn from a seed, so demos and tests have real PNG files
 * without anyone's photo. Different seeds give different skin, hair and background colours.
 */
export function syntheticSelfiePng(seed: number, size = 256): Buffer {
  const png = new PNG({ width: size, height: size });
  const random = mulberry32(seed);
  const background = hsl(random() * 360, 0.45, 0.75);
  const skin = hsl(20 + random() * 25, 0.5, 0.45 + random() * 0.3);
  const hair = hsl(random() * 40, 0.6, 0.1 + random() * 0.35);
  const c = size / 2;
  const headR = size * (0.3 + random() * 0.05);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const dx = x - c;
      const dy = y - c * 1.05;
      const inHead = dx * dx + (dy * dy) / 1.3 < headR * headR;
      const inHair = !inHead && dx * dx + (dy + headR * 0.25) ** 2 < (headR * 1.12) ** 2 && dy < 0;
      const eye = [-1, 1].some(
        (side) => (x - (c + side * headR * 0.38)) ** 2 + (y - (c - headR * 0.1)) ** 2 < (size * 0.025) ** 2,
      );
      const mouth = inHead && Math.abs(dy - headR * 0.45) < size * 0.012 && Math.abs(dx) < headR * 0.35;
      const [r, g, b] = eye || mouth ? [30, 20, 20] : inHead ? skin : inHair ? hair : background;
      const i = (y * size + x) * 4;
      png.data[i] = r;
      png.data[i + 1] = g;
      png.data[i + 2] = b;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}
