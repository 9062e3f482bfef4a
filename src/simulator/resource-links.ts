import type { TrainingImageMeta } from './state-schema';

export type ImageSize = 'full' | 'small';

/** Absolute URLs of the simulator's own unauthenticated image resources, as written into answers. */
export interface ResourceLinks {
  selfieUrl(image: TrainingImageMeta): string;
  avatarUrl(orderId: number, avatarId: number, size: ImageSize): string;
  stylePreviewUrl(styleId: number): string;
}

export const SIM_PREFIX = '/__sim';

export function createResourceLinks(origin: string, basePath: string): ResourceLinks {
  const root = `${origin}${basePath}${SIM_PREFIX}`;
  return {
    selfieUrl: (image) => `${root}/selfies/${image.id}.${image.format === 'png' ? 'png' : 'jpg'}`,
    avatarUrl: (orderId, avatarId, size) =>
      `${root}/images/${orderId}/${avatarId}${size === 'small' ? '-small' : ''}.png`,
    stylePreviewUrl: (styleId) => `${root}/styles/${styleId}/preview.png`,
  };
}
