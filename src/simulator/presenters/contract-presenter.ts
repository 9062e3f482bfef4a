import type { ResourceLinks } from '../resource-links';
import type { OrderRecord } from '../state-schema';
import { publicStyleFields, type Presenter } from './presenter';

function order(record: OrderRecord) {
  return {
    id: record.id,
    parent: record.parent,
    gender: record.gender,
    styles: [...record.styles],
    status: record.status,
  };
}

/** The contract's shapes (docs/provider-api.md): bare arrays, integer ids, upper-case statuses. */
export function createContractPresenter(links: ResourceLinks): Presenter {
  const trainingImage: Presenter['trainingImage'] = (image, selected) => ({
    id: image.id,
    order_id: image.orderId,
    image_url: links.selfieUrl(image),
    selected,
  });
  return {
    createdOrder: order,
    orderList: (orders) => orders.map(order),
    trainingImage,
    trainingImageList: (images, selectedImageId) =>
      images.map((image) => trainingImage(image, image.id === selectedImageId)),
    selection: (_order, imageId) => ({ status: 'ok', selected_image_id: imageId }),
    run: (record) => ({ id: record.id, status: record.status }),
    status: ({ order: record, progress, message }) => ({
      id: record.id,
      status: record.status,
      ...(progress === null ? {} : { progress }),
      message,
    }),
    avatarPage: (avatars) =>
      avatars.map((avatar) => ({
        avatar_id: avatar.avatarId,
        image_url: links.avatarUrl(avatar.orderId, avatar.avatarId, 'full'),
      })),
    styleList: (styles) =>
      styles.map((style) => ({
        id: style.id,
        ...publicStyleFields(style),
        preview: links.stylePreviewUrl(style.id),
      })),
    error: (message) => ({ status: 'error', message }),
  };
}
