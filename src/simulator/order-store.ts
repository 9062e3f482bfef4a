import type { Gender, ImageFormat, OrderRecord, PersistedState, TrainingImageRecord } from './state-schema';

/*
 * Distinct id ranges for orders, training images and avatars, so a client that mixes up
 * which id goes where gets a 404 instead of silently hitting another resource.
 */
const FIRST_ORDER_ID = 1001;
const FIRST_IMAGE_ID = 50001;
const FIRST_AVATAR_ID = 700001;

export interface NewOrder {
  parent: number;
  kind: OrderRecord['kind'];
  gender: Gender;
  styles: number[];
}

/**
 * All provider state. Callers may change the records it hands out, but must then call
 * recordMutation() so the state file is rewritten.
 */
export class OrderStore {
  // Ids only grow, so insertion order is id order and lists need no sorting.
  private orders = new Map<number, OrderRecord>();
  private images = new Map<number, TrainingImageRecord>();
  /** Indexes that keep per-order lookups flat when a benchmark has created thousands of orders. */
  private imagesByOrder = new Map<number, TrainingImageRecord[]>();
  private childrenByParent = new Map<number, OrderRecord[]>();
  private nextOrderId = FIRST_ORDER_ID;
  private nextImageId = FIRST_IMAGE_ID;
  private nextAvatarId = FIRST_AVATAR_ID;
  private mutations = 0;

  /** Grows on every change; the server compares it before and after a request to know whether to save. */
  get mutationCount(): number {
    return this.mutations;
  }

  recordMutation(): void {
    this.mutations += 1;
  }

  createOrder(input: NewOrder, now: number): OrderRecord {
    const order: OrderRecord = {
      id: this.nextOrderId++,
      parent: input.parent,
      kind: input.kind,
      gender: input.gender,
      styles: [...input.styles],
      status: 'CREATED',
      createdAt: now,
      run: null,
      avatars: [],
      selectedImageId: null,
      counters: { uploads: 0, runs: 0, runAttempts: 0, selects: 0, statusCalls: 0 },
    };
    this.indexOrder(order);
    this.recordMutation();
    return order;
  }

  getOrder(id: number): OrderRecord | undefined {
    return this.orders.get(id);
  }

  /** Oldest first, like the provider's lists. */
  allOrders(): OrderRecord[] {
    return [...this.orders.values()];
  }

  /** Generation orders of a model, oldest first. */
  childrenOf(parentId: number): OrderRecord[] {
    return [...(this.childrenByParent.get(parentId) ?? [])];
  }

  addTrainingImage(orderId: number, format: ImageFormat, bytes: Buffer, now: number): TrainingImageRecord {
    const image: TrainingImageRecord = {
      id: this.nextImageId++,
      orderId,
      format,
      byteLength: bytes.length,
      uploadedAt: now,
      bytes,
    };
    this.indexImage(image);
    this.recordMutation();
    return image;
  }

  getTrainingImage(id: number): TrainingImageRecord | undefined {
    return this.images.get(id);
  }

  trainingImagesOf(orderId: number): TrainingImageRecord[] {
    return [...(this.imagesByOrder.get(orderId) ?? [])];
  }

  allTrainingImages(): TrainingImageRecord[] {
    return [...this.images.values()];
  }

  allocateAvatarIds(count: number): number[] {
    const ids = Array.from({ length: count }, (_, i) => this.nextAvatarId + i);
    this.nextAvatarId += count;
    this.recordMutation();
    return ids;
  }

  snapshot(): PersistedState {
    return {
      version: 1,
      nextOrderId: this.nextOrderId,
      nextImageId: this.nextImageId,
      nextAvatarId: this.nextAvatarId,
      orders: this.allOrders(),
      trainingImages: this.allTrainingImages().map(({ bytes: _bytes, ...meta }) => meta),
    };
  }

  restore(state: PersistedState, images: TrainingImageRecord[]): void {
    this.clearRecords();
    [...state.orders].sort((a, b) => a.id - b.id).forEach((order) => this.indexOrder(order));
    [...images].sort((a, b) => a.id - b.id).forEach((image) => this.indexImage(image));
    this.nextOrderId = state.nextOrderId;
    this.nextImageId = state.nextImageId;
    this.nextAvatarId = state.nextAvatarId;
  }

  clear(): void {
    this.clearRecords();
    this.nextOrderId = FIRST_ORDER_ID;
    this.nextImageId = FIRST_IMAGE_ID;
    this.nextAvatarId = FIRST_AVATAR_ID;
    this.recordMutation();
  }

  private indexOrder(order: OrderRecord): void {
    this.orders.set(order.id, order);
    if (order.kind === 'generation') {
      this.childrenByParent.set(order.parent, [...(this.childrenByParent.get(order.parent) ?? []), order]);
    }
  }

  private indexImage(image: TrainingImageRecord): void {
    this.images.set(image.id, image);
    this.imagesByOrder.set(image.orderId, [...(this.imagesByOrder.get(image.orderId) ?? []), image]);
  }

  private clearRecords(): void {
    this.orders.clear();
    this.images.clear();
    this.imagesByOrder.clear();
    this.childrenByParent.clear();
  }
}
