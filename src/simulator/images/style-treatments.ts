import type { StyleTreatment } from '../style-catalog';
import { blankImage, type RgbaImage } from '../../images/rgba-image';

type Rgb = [number, number, number];
type PixelFilter = (rgb: Rgb, variation: number) => Rgb;

const clamp = (value: number) => Math.max(0, Math.min(255, Math.round(value)));
const luminance = ([r, g, b]: Rgb) => 0.299 * r + 0.587 * g + 0.114 * b;
const mix = (a: Rgb, b: Rgb, t: number): Rgb => [
  a[0] + (b[0] - a[0]) * t,
  a[1] + (b[1] - a[1]) * t,
  a[2] + (b[2] - a[2]) * t,
];
const posterizeChannel = (value: number, levels: number) =>
  Math.round(Math.round((value / 255) * (levels - 1)) * (255 / (levels - 1)));

const PASTELS: readonly Rgb[] = [
  [255, 214, 224],
  [214, 236, 255],
  [222, 255, 214],
  [255, 240, 200],
];
const INKS: readonly [Rgb, Rgb][] = [
  [
    [20, 24, 82],
    [255, 214, 0],
  ],
  [
    [90, 0, 40],
    [120, 255, 220],
  ],
  [
    [0, 60, 30],
    [255, 140, 200],
  ],
];

function saturate(rgb: Rgb, amount: number): Rgb {
  const gray = luminance(rgb);
  return [gray + (rgb[0] - gray) * amount, gray + (rgb[1] - gray) * amount, gray + (rgb[2] - gray) * amount];
}

/** Rotates hue around the grey axis (the usual luminance-preserving matrix). */
function rotateHue([r, g, b]: Rgb, degrees: number): Rgb {
  const c = Math.cos((degrees * Math.PI) / 180);
  const s = Math.sin((degrees * Math.PI) / 180);
  return [
    r * (0.299 + 0.701 * c + 0.168 * s) +
      g * (0.587 - 0.587 * c + 0.33 * s) +
      b * (0.114 - 0.114 * c - 0.497 * s),
    r * (0.299 - 0.299 * c - 0.328 * s) +
      g * (0.587 + 0.413 * c + 0.035 * s) +
      b * (0.114 - 0.114 * c + 0.292 * s),
    r * (0.299 - 0.3 * c + 1.25 * s) +
      g * (0.587 - 0.588 * c - 1.05 * s) +
      b * (0.114 + 0.886 * c - 0.203 * s),
  ];
}

const FILTERS: Readonly<Record<Exclude<StyleTreatment, 'pixelate'>, PixelFilter>> = {
  pastel: (rgb, variation) =>
    mix(mix(rgb, [255, 255, 255], 0.45), PASTELS[variation % PASTELS.length] ?? rgb, 0.3),
  posterize: (rgb) => saturate(rgb, 1.6).map((v) => posterizeChannel(clamp(v), 6)) as Rgb,
  noir: (rgb) => {
    const gray = (luminance(rgb) - 128) * 1.7 + 128;
    return [gray, gray, gray];
  },
  invert: ([r, g, b], variation) => {
    const neon: Rgb = variation % 2 === 0 ? [255, 60, 220] : [40, 230, 255];
    // Partly negative: a fully inverted face is not a face to a detector (or to a person).
    return mix(mix([r, g, b], [255 - r, 255 - g, 255 - b], 0.2), neon, 0.2);
  },
  sepia: ([r, g, b]) => [
    r * 0.393 + g * 0.769 + b * 0.189,
    r * 0.349 + g * 0.686 + b * 0.168,
    r * 0.272 + g * 0.534 + b * 0.131,
  ],
  duotone: (rgb, variation) => {
    const [dark, light] = INKS[variation % INKS.length] ?? INKS[0] ?? [rgb, rgb];
    return mix(dark, light, luminance(rgb) / 255);
  },
  'hue-shift': (rgb, variation) => rotateHue(saturate(rgb, 1.3), 90 + variation * 25),
};

function mapPixels(image: RgbaImage, filter: PixelFilter, variation: number): RgbaImage {
  const out = blankImage(image.width, image.height);
  for (let i = 0; i < image.data.length; i += 4) {
    const rgb: Rgb = [image.data[i] ?? 0, image.data[i + 1] ?? 0, image.data[i + 2] ?? 0];
    const [r, g, b] = filter(rgb, variation);
    out.data[i] = clamp(r);
    out.data[i + 1] = clamp(g);
    out.data[i + 2] = clamp(b);
    out.data[i + 3] = image.data[i + 3] ?? 255;
  }
  return out;
}

function pixelate(image: RgbaImage, variation: number): RgbaImage {
  // Blocks small enough to leave the face recognisable (the avatar checks look for it).
  const block = Math.max(2, Math.floor(image.width / (100 + (variation % 3) * 14)));
  const out = blankImage(image.width, image.height);
  for (let by = 0; by < image.height; by += block) {
    for (let bx = 0; bx < image.width; bx += block) {
      const sum: Rgb = [0, 0, 0];
      let n = 0;
      for (let y = by; y < Math.min(by + block, image.height); y += 1) {
        for (let x = bx; x < Math.min(bx + block, image.width); x += 1) {
          const i = (y * image.width + x) * 4;
          sum[0] += image.data[i] ?? 0;
          sum[1] += image.data[i + 1] ?? 0;
          sum[2] += image.data[i + 2] ?? 0;
          n += 1;
        }
      }
      const color = sum.map((v) => clamp(v / n));
      for (let y = by; y < Math.min(by + block, image.height); y += 1) {
        for (let x = bx; x < Math.min(bx + block, image.width); x += 1) {
          out.data.set([color[0] ?? 0, color[1] ?? 0, color[2] ?? 0, 255], (y * image.width + x) * 4);
        }
      }
    }
  }
  return out;
}

/** Odd avatars are mirrored and each gets its own brightness, so one style's avatars are not identical. */
function vary(image: RgbaImage, variation: number): RgbaImage {
  const out = blankImage(image.width, image.height);
  const mirror = variation % 2 === 1;
  const brightness = ((variation * 37) % 41) - 20;
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x < image.width; x += 1) {
      const sx = mirror ? image.width - 1 - x : x;
      const s = (y * image.width + sx) * 4;
      const t = (y * image.width + x) * 4;
      out.data[t] = clamp((image.data[s] ?? 0) + brightness);
      out.data[t + 1] = clamp((image.data[s + 1] ?? 0) + brightness);
      out.data[t + 2] = clamp((image.data[s + 2] ?? 0) + brightness);
      out.data[t + 3] = image.data[s + 3] ?? 255;
    }
  }
  return out;
}

/** Draws one avatar: the style's treatment of the base picture, varied by the avatar's position. */
export function applyTreatment(base: RgbaImage, treatment: StyleTreatment, variation: number): RgbaImage {
  const styled =
    treatment === 'pixelate' ? pixelate(base, variation) : mapPixels(base, FILTERS[treatment], variation);
  return vary(styled, variation);
}
