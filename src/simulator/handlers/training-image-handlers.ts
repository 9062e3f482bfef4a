import { conflict, notFound, unprocessable } from '../simulator-refusal';
import { decodeUploadedImage } from '../uploaded-image';
import type { ProviderHandler } from './handler-context';
import { ok } from './handler-context';
import { orderFromPath } from './order-lookup';
import { integerParam } from './path-params';
import { parseBody } from './parse-body';

export const uploadTrainingImage: ProviderHandler = (context) => {
  const order = orderFromPath(context);
  const body = parseBody('uploadTrainingImage', context.body);
  if (order.kind !== 'model') {
    throw conflict(`order ${order.id} is a generation order; training images belong to models`);
  }
  if (order.status !== 'CREATED') {
    throw conflict(
      `model ${order.id} has already been run (status ${order.status}); upload before running it`,
    );
  }
  if (Number(body.gender) !== order.gender) {
    throw unprocessable(`gender: "${body.gender}" differs from model ${order.id}'s gender ${order.gender}`);
  }
  const image = decodeUploadedImage(body.image, context.options.maxImageBytes);
  const existing = context.store.trainingImagesOf(order.id).length;
  if (existing >= context.options.maxTrainingImages) {
    throw conflict(`model ${order.id} already has ${existing} training images, the maximum`);
  }
  const record = context.store.addTrainingImage(order.id, image.format, image.bytes, context.now);
  order.counters.uploads += 1;
  return ok(context.presenter.trainingImage(record, false));
};

export const listTrainingImages: ProviderHandler = (context) => {
  const order = orderFromPath(context);
  return ok(
    context.presenter.trainingImageList(context.store.trainingImagesOf(order.id), order.selectedImageId),
  );
};

export const selectTrainingImage: ProviderHandler = (context) => {
  const order = orderFromPath(context);
  const imageId = integerParam(context.params, 'selfie_id');
  const image = context.store.getTrainingImage(imageId);
  if (image === undefined || image.orderId !== order.id) {
    throw notFound(`training image ${imageId} not found in order ${order.id}`);
  }
  order.selectedImageId = image.id;
  order.counters.selects += 1;
  context.store.recordMutation();
  return ok(context.presenter.selection(order, image.id));
};
