import type { ResourceLinks } from '../resource-links';
import type { OrderRecord, OrderStatus } from '../state-schema';
import { publicStyleFields, type Presenter } from './presenter';

/*
 * The real service's own examples use lower-case words and synonyms. Both synonyms of a status
 * appear, chosen by the order id's parity, so a client must tolerate all of them.
 */
const STATUS_WORDS: Readonly<Record<OrderStatus, readonly [string, string]>> = {
  CREATED: ['pending', 'created'],
  STARTED: ['running', 'running'],
  IN_PROGRESS: ['processing', 'in_progress'],
  DONE: ['completed', 'completed'],
  ERROR: ['failed', 'error'],
};

function statusWord(record: OrderRecord): string {
  const [evenWord, oddWord] = STATUS_WORDS[record.status];
  return record.id % 2 === 0 ? evenWord : oddWord;
}

/** Ids arrive as numeric strings on the real service. */
const idText = (id: number) => String(id);

function order(record: OrderRecord) {
  return {
    id: idText(record.id),
    parent: idText(record.parent),
    gender: record.gender,
    styles: [...record.styles],
    status: statusWord(record),
    created_at: new Date(record.createdAt).toISOString(),
  };
}

/** The variant shapes of docs/provider-api.md: wrapped lists, renamed id fields, string ids, messages. */
export function createVariantPresenter(links: ResourceLinks): Presenter {
  const trainingImage: Presenter['trainingImage'] = (image, selected) => ({
    selfie_id: idText(image.id),
    order_id: idText(image.orderId),
    image_url: links.selfieUrl(image),
    selected,
  });
  return {
    createdOrder: (record) => ({
      ...order(record),
      message: record.kind === 'model' ? 'Model created successfully' : 'Order created successfully',
    }),
    orderList: (orders, list) =>
      list === 'models' ? { models: orders.map(order) } : { orders: orders.map(order) },
    trainingImage,
    trainingImageList: (images, selectedImageId) => ({
      data: images.map((image) => trainingImage(image, image.id === selectedImageId)),
    }),
    selection: (_order, imageId) => ({
      status: 'ok',
      selected_image_id: idText(imageId),
      message: 'Main image selected',
    }),
    run: (record) => ({
      id: idText(record.id),
      status: statusWord(record),
      message: record.kind === 'model' ? 'Training started' : 'Generation started',
    }),
    status: ({ order: record, progress, message }) => ({
      id: idText(record.id),
      status: statusWord(record),
      ...(progress === null ? {} : { progress }),
      message,
    }),
    avatarPage: (avatars) => ({
      avatars: avatars.map((avatar) => ({
        avatar_id: idText(avatar.avatarId),
        filename: links.avatarUrl(avatar.orderId, avatar.avatarId, 'full'),
        filename_small: links.avatarUrl(avatar.orderId, avatar.avatarId, 'small'),
      })),
    }),
    styleList: (styles) => ({
      data: styles.map((style) => ({
        style_id: idText(style.id),
        ...publicStyleFields(style),
        preview: links.stylePreviewUrl(style.id),
      })),
    }),
    error: (message) => ({ error: message }),
  };
}
