import type { z } from 'zod';
import { InvalidInputError } from './errors';
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
import {
  avatarPageSchema,
  orderListSchema,
  orderSchema,
  orderStatusSchema,
  selectResultSchema,
  styleListSchema,
  trainingImageListSchema,
  trainingImageSchema,
  type Avatar,
  type Order,
  type OrderStatusResponse,
  type SelectResult,
  type Style,
  type TrainingImage,
} from './schemas';

export type ProviderClientOptions = TransportOptions;

/** One typed method per endpoint of the provider's REST interface. */
export class ProviderClient {
  private readonly http: HttpTransport;

  constructor(options: ProviderClientOptions) {
    this.http = new HttpTransport(options);
  }

  async createModel(request: CreateModelRequest, call?: CallOptions): Promise<Order> {
    const body = validate(createModelRequestSchema, request, 'request');
    return this.http.send(
      {
        method: 'POST',
        path: '/order/create/model',
        endpoint: '/order/create/model',
        body,
        schema: orderSchema,
      },
      call,
    );
  }

  async createOrder(request: CreateOrderRequest, call?: CallOptions): Promise<Order> {
    const body = validate(createOrderRequestSchema, request, 'request');
    return this.http.send(
      { method: 'POST', path: '/order/create', endpoint: '/order/create', body, schema: orderSchema },
      call,
    );
  }

  async listOrders(call?: CallOptions): Promise<Order[]> {
    return this.http.send(
      { method: 'GET', path: '/order/list', endpoint: '/order/list', schema: orderListSchema },
      call,
    );
  }

  async listModels(call?: CallOptions): Promise<Order[]> {
    return this.http.send(
      { method: 'GET', path: '/model/list', endpoint: '/model/list', schema: orderListSchema },
      call,
    );
  }

  async listModelOrders(modelId: number, call?: CallOptions): Promise<Order[]> {
    const id = validate(orderIdSchema, modelId, 'modelId');
    return this.http.send(
      {
        method: 'GET',
        path: `/model/${id}/order/list`,
        endpoint: '/model/{id}/order/list',
        schema: orderListSchema,
      },
      call,
    );
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
      throw new InvalidInputError('image', 'must be a non-empty Base64 string');
    }
    return this.http.send(
      {
        method: 'POST',
        path: `/order/${id}/training-images/upload`,
        endpoint: '/order/{id}/training-images/upload',
        // The upload body carries gender as a string, unlike order bodies.
        body: { gender: String(gender), image: upload.image },
        schema: trainingImageSchema,
      },
      call,
    );
  }

  async listTrainingImages(orderId: number, call?: CallOptions): Promise<TrainingImage[]> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    return this.http.send(
      {
        method: 'GET',
        path: `/order/${id}/training-images/list`,
        endpoint: '/order/{id}/training-images/list',
        schema: trainingImageListSchema,
      },
      call,
    );
  }

  async selectTrainingImage(orderId: number, selfieId: number, call?: CallOptions): Promise<SelectResult> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    const selfie = validate(orderIdSchema, selfieId, 'selfieId');
    return this.http.send(
      {
        method: 'GET',
        path: `/order/${id}/training-images/${selfie}/select`,
        endpoint: '/order/{id}/training-images/{selfie_id}/select',
        schema: selectResultSchema,
      },
      call,
    );
  }

  async getOrderStatus(orderId: number, call?: CallOptions): Promise<OrderStatusResponse> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    return this.http.send(
      {
        method: 'GET',
        path: `/order/${id}/status`,
        endpoint: '/order/{id}/status',
        schema: orderStatusSchema,
      },
      call,
    );
  }

  async runOrder(orderId: number, call?: CallOptions): Promise<OrderStatusResponse> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    return this.http.send(
      { method: 'GET', path: `/order/${id}/run`, endpoint: '/order/{id}/run', schema: orderStatusSchema },
      call,
    );
  }

  async listAvatarPage(orderId: number, page: number, call?: CallOptions): Promise<Avatar[]> {
    const id = validate(orderIdSchema, orderId, 'orderId');
    const pageIndex = validate(pageIndexSchema, page, 'page');
    return this.http.send(
      {
        method: 'GET',
        path: `/model/${id}/avatars/${pageIndex}`,
        endpoint: '/model/{id}/avatars/{page}',
        schema: avatarPageSchema,
      },
      call,
    );
  }

  async listStyles(call?: CallOptions): Promise<Style[]> {
    return this.http.send(
      { method: 'GET', path: '/styles/list', endpoint: '/styles/list', schema: styleListSchema },
      call,
    );
  }
}

function validate<T extends z.ZodType>(schema: T, value: unknown, field: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = [field, ...(issue?.path ?? []).map(String)].join('.');
  throw new InvalidInputError(path, issue?.message ?? 'is invalid');
}
