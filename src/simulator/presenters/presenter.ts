import type { OrderRecord, TrainingImageRecord } from '../state-schema';
import type { StyleEntry } from '../style-catalog';

export interface AvatarView {
  orderId: number;
  avatarId: number;
  styleId: number;
}

export interface StatusView {
  order: OrderRecord;
  /** null when progress reporting is switched off. */
  progress: number | null;
  message: string;
}

/**
 * Turns simulator records into response bodies. One implementation per dialect: the contract's
 * exact shapes, or the shapes the real service is known to send (docs/provider-api.md).
 */
export interface Presenter {
  createdOrder(order: OrderRecord): unknown;
  orderList(orders: OrderRecord[], list: 'orders' | 'models'): unknown;
  trainingImage(image: TrainingImageRecord, selected: boolean): unknown;
  trainingImageList(images: TrainingImageRecord[], selectedImageId: number | null): unknown;
  selection(order: OrderRecord, imageId: number): unknown;
  run(order: OrderRecord): unknown;
  status(view: StatusView): unknown;
  avatarPage(avatars: AvatarView[]): unknown;
  styleList(styles: StyleEntry[]): unknown;
  error(message: string): unknown;
}

/** Style fields a client sees: everything configured except the simulator's drawing hint. */
export function publicStyleFields(style: StyleEntry): Record<string, unknown> {
  const { treatment: _treatment, id: _id, ...rest } = style;
  return rest;
}
