import type { z } from 'zod';
import { HttpTransport, type CallOptions, type TransportOptions } from './http-transport';
import {
  createModelRequestSchema,
  createOrderRequestSchema,
  genderSchema,
  orderIdSchema,
  pageIndexSchema,
  type CreateModelRequest,
  type CreateOrderRequest,
  type Gender,
} from './request-schemas';
import type { Avatar, Order, OrderStatusResponse, SelectResult, Style, TrainingImage } from './schemas';
import { InputError } from '../errors';

export type ProviderClientOptions = TransportOptions;

/** One typed method per endpoint of the provider's REST interface (the table in endpoints.ts). */
export class ProviderClient {
  private readonly http: HttpTransport;

  constructor(options: ProviderClientOptions) {
    this.http = new HttpTransport(options);
  }

  async createModel(request: CreateModelRequest, call?: CallOptions): Promise<Order> {
    const body = validate(createModelRequestSchema, request, 'request');
    return this.http.send({ endpoint: 'createModel', params: {}, body }, call);
  }

  async createOrder(request: CreateOrderRequest, call?: CallOptions): Promise<Order> {
    const body = validate(createOrderRequestSchema, request, 'request');
    return this.http.send({ endpoint: 'createOrder', params: {}, body }, call);
  }

  async listOrders(call?: CallOptions): Promise<Order[]> {
    return this.http.send({ endpoint: 'listOrders', params: {}, body: undefined }, call);
  }

  async listModels(call?: CallOptions): Promise<Order[]> {
    return this.http.send({ endpoint: 'listModels', params: {}, body: undefined }, call);
  }

  async listModelOrders(modelId: number, call?: CallOptions): Promise<Order[]> {
    const id = validate(orderIdSchema, modelId, 'modelId');
    return this.http.send({ endpoint: 'listModelOrders', params: { id }, body: undefined }, call);
  }

  /** `image` is the Base64 body field; build it with toUploadImage / uploadImageFromFile. */
  async uploadTrainingImage(
    orderId: number,
    upload: { gender: Gender; image: string },
    call?: CallOptions,
  ): Promise<TrainingImage> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    const gender = validate(genderSchema, upload.gender, 'gender');
    if (typeof upload.image !== 'string' || upload.image.length === 0) {
      throw InputError.field('image', 'must be a non-empty Base64 string');
    }
    // The upload body carries gender as a string, unlike order bodies.
    const body = { gender: `${gender}` as const, image: upload.image };
    return this.http.send({ endpoint: 'uploadTrainingImage', params: { id }, body }, call);
  }

  async listTrainingImages(orderId: number, call?: CallOptions): Promise<TrainingImage[]> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    return this.http.send({ endpoint: 'listTrainingImages', params: { id }, body: undefined }, call);
  }

  async selectTrainingImage(orderId: number, selfieId: number, call?: CallOptions): Promise<SelectResult> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    const selfie = validate(orderIdSchema, selfieId, 'selfieId');
    return this.http.send(
      { endpoint: 'selectTrainingImage', params: { id, selfie_id: selfie }, body: undefined },
      call,
    );
  }

  async getOrderStatus(orderId: number, call?: CallOptions): Promise<OrderStatusResponse> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    return this.http.send({ endpoint: 'getOrderStatus', params: { id }, body: undefined }, call);
  }

  async runOrder(orderId: number, call?: CallOptions): Promise<OrderStatusResponse> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    return this.http.send({ endpoint: 'runOrder', params: { id }, body: undefined }, call);
  }

  async listAvatarPage(orderId: number, page: number, call?: CallOptions): Promise<Avatar[]> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    const pageIndex = validate(pageIndexSchema, page, 'page');
    return this.http.send(
      { endpoint: 'listAvatarPage', params: { id, page: pageIndex }, body: undefined },
      call,
    );
  }

  async listStyles(call?: CallOptions): Promise<Style[]> {
    return this.http.send({ endpoint: 'listStyles', params: {}, body: undefined }, call);
  }
}

function validate<T extends z.ZodType>(schema: T, value: unknown, field: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = [field, ...(issue?.path ?? []).map(String)].join('.');
  throw InputError.field(path, issue?.message ?? 'is invalid');
}
