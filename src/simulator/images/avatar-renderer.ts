import { LruCache } from '../lru-cache';
import type { ImageFormat } from '../state-schema';
import type { StyleTreatment } from '../style-catalog';
import { fallbackPattern } from './fallback-pattern';
import { encodePng } from '../../images/png-encoding';
import { resizeNearest, squareThumbnail, type RgbaImage } from '../../images/rgba-image';
import { decodeSelfie } from '../../images/decode-image';
import { applyTreatment } from './style-treatments';

/** A photograph avatars are drawn from; `key` names it in the renderer's caches. */
export interface SourcePicture {
  key: string;
  bytes: Buffer;
  format: ImageFormat;
}

export interface AvatarDrawing {
  /** The model's main selfie (or a stand-in); undefined (or undecodable) draws on a generated pattern. */
  picture: SourcePicture | undefined;
  /** Seeds the fallback pattern. */
  patternSeed: number;
  treatment: StyleTreatment;
  variation: number;
  size: number;
  /** Thumbnails are drawn at full size and then halved, so they match the full image. */
  thumbnail: boolean;
}

/*
 * Drawing is lazy (on the first request for an image) and cached, because benchmarks create far
 * more avatars than anyone looks at. Bounds keep memory flat over long runs.
 */
const MAX_CACHED_PNGS = 512;
const MAX_CACHED_BASES = 64;

export class AvatarRenderer {
  private readonly pngs = new LruCache<string, Buffer>(MAX_CACHED_PNGS);
  private readonly bases = new LruCache<string, RgbaImage>(MAX_CACHED_BASES);

  render(drawing: AvatarDrawing): Buffer {
    const key = [
      drawing.picture?.key ?? `pattern${drawing.patternSeed}`,
      drawing.treatment,
      drawing.variation,
      drawing.size,
      drawing.thumbnail ? 'small' : 'full',
    ].join(':');
    const cached = this.pngs.get(key);
    if (cached !== undefined) return cached;
    const styled = applyTreatment(this.base(drawing), drawing.treatment, drawing.variation);
    const png = encodePng(
      drawing.thumbnail ? resizeNearest(styled, Math.max(8, Math.floor(drawing.size / 2))) : styled,
    );
    this.pngs.set(key, png);
    return png;
  }

  private base(drawing: AvatarDrawing): RgbaImage {
    const key = `${drawing.picture?.key ?? `pattern${drawing.patternSeed}`}:${drawing.size}`;
    const cached = this.bases.get(key);
    if (cached !== undefined) return cached;
    const decoded =
      drawing.picture === undefined ? null : decodeSelfie(drawing.picture.bytes, drawing.picture.format);
    const base =
      decoded === null || decoded.width === 0 || decoded.height === 0
        ? fallbackPattern(drawing.size, drawing.patternSeed)
        : squareThumbnail(decoded, drawing.size);
    this.bases.set(key, base);
    return base;
  }

  clear(): void {
    this.pngs.clear();
    this.bases.clear();
  }
}
