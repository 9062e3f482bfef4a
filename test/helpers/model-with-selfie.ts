import type { ProviderClient } from '@avatar-pipeline/client/provider/client';
import { toUploadImage } from '@avatar-pipeline/client/provider/upload-image';
import { tinyPng } from '../fixtures/images';

/** A model with one selfie uploaded, ready to run: its id, which is also its training order's. */
export async function modelWithSelfie(provider: ProviderClient): Promise<number> {
  const model = await provider.createModel({ styles: [3], gender: 1 });
  await provider.uploadTrainingImage(model.id, { gender: 1, image: toUploadImage(tinyPng(8, 8)) });
  return model.id;
}
