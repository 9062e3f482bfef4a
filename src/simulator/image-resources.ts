import { json, missing, png, type AdminContext, type AdminResult, type AdminRoute } from './admin-context';
import { settleOrder } from './order-lifecycle';
import type { OrderRecord } from './state-schema';
import { treatmentOf } from './style-catalog';
import type { SourcePicture } from './images/avatar-renderer';
import { anotherPersonPicture, unsafePng, wrongAvatarOf } from './images/wrong-avatars';

/** The picture avatars are drawn from: the model's selected selfie, else its first. */
function mainSelfie(context: AdminContext, model: OrderRecord | undefined): SourcePicture | undefined {
  if (model === undefined) return undefined;
  const images = context.runtime.store.trainingImagesOf(model.id);
  const image = images.find((candidate) => candidate.id === model.selectedImageId) ?? images[0];
  return image && { key: `selfie-${image.id}`, bytes: image.bytes, format: image.format };
}

function avatarImage(context: AdminContext): AdminResult {
  const { runtime, params } = context;
  const file = /^(\d+)(-small)?\.png$/.exec(params.file ?? '');
  const order = runtime.store.getOrder(Number(params.orderId));
  if (file === null || order === undefined) return missing('no such avatar image');
  const { forgottenImageOrders, forgottenImageStatus } = runtime.options;
  if (forgottenImageOrders.includes(order.id) || forgottenImageOrders.includes(order.parent)) {
    return json({ error: 'this image has expired' }, forgottenImageStatus);
  }
  settleOrder(runtime.lifecycle(), order);
  const avatar = order.avatars.find((candidate) => candidate.avatarId === Number(file[1]));
  if (avatar === undefined) return missing('no such avatar image');
  const style = runtime.options.styles.find((candidate) => candidate.id === avatar.styleId);
  const wrong = wrongAvatarOf(runtime.store, runtime.options.wrongAvatars, order, avatar.styleId);
  if (wrong === 'unsafe') return { kind: 'bytes', status: 200, contentType: 'image/png', body: unsafePng() };
  const picture =
    wrong === 'another-person'
      ? anotherPersonPicture()
      : wrong === 'no-face'
        ? undefined
        : mainSelfie(context, runtime.store.getOrder(order.parent));
  return png(
    runtime.renderer.render({
      picture,
      patternSeed: order.parent,
      treatment: treatmentOf(style, avatar.styleId),
      variation: avatar.index,
      size: runtime.options.avatarSize,
      thumbnail: file[2] !== undefined,
    }),
  );
}

function selfieImage({ runtime, params }: AdminContext): AdminResult {
  const file = /^(\d+)\.(jpg|png)$/.exec(params.file ?? '');
  const image = file === null ? undefined : runtime.store.getTrainingImage(Number(file[1]));
  if (image === undefined) return missing('no such training image');
  return { kind: 'bytes', status: 200, contentType: `image/${image.format}`, body: image.bytes };
}

function stylePreview({ runtime, params }: AdminContext): AdminResult {
  const styleId = Number(params.styleId);
  const style = runtime.options.styles.find((candidate) => candidate.id === styleId);
  if (style === undefined) return json({ error: `no style ${params.styleId ?? ''}` }, 404);
  return png(
    runtime.renderer.render({
      picture: undefined,
      patternSeed: styleId,
      treatment: treatmentOf(style, styleId),
      variation: 0,
      size: runtime.options.avatarSize,
      thumbnail: false,
    }),
  );
}

/** Unauthenticated, like the CDN URLs a real service hands out; never subject to faults. */
export const IMAGE_ROUTES: readonly AdminRoute[] = [
  { method: 'GET', template: '/images/{orderId}/{file}', handler: avatarImage },
  { method: 'GET', template: '/selfies/{file}', handler: selfieImage },
  { method: 'GET', template: '/styles/{styleId}/preview.png', handler: stylePreview },
];
