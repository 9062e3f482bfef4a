import { loadProviderSettings, type ProviderSettings } from '../config/provider-settings';
import { ProviderClient } from '../provider/client';
import { ProviderBadRequestError } from '../provider/errors';
import { orderIdSchema } from '../provider/request-schemas';
import type { Order } from '../provider/schemas';
import type { OrderStatus } from '../provider/status';
import { InputError } from '../errors';

/**
 * What the provider holds for this account, read straight from it: its models (orders with
 * parent 0) and the generation orders under them. Nothing here goes through Temporal.
 */

/** What the provider reports of any order, model or generation. */
interface OrderFacts {
  /** CREATED, STARTED, IN_PROGRESS, DONE, ERROR (or a status the provider invented, kept as sent). */
  status: OrderStatus;
  gender?: 1 | 2;
  styles?: number[];
  createdAt?: string;
  message?: string;
}

/** A trained (or training) model as the provider reports it. */
export interface ModelSummary extends OrderFacts {
  modelId: number;
}

/** A generation order: parent is the model it generates under. */
export interface OrderSummary extends OrderFacts {
  orderId: number;
  /** The model this order generates under (the provider's `parent`); 0 when the order is itself a model. */
  modelId: number;
}

export interface ModelDetail extends ModelSummary {
  /** The generation orders under this model, as the provider lists them. */
  orders: OrderSummary[];
}

/** What an id names at the provider: a model, a generation order, or nothing. */
export type ProviderOrderLookup =
  | { kind: 'model'; model: ModelSummary }
  | { kind: 'generation-order'; order: OrderSummary }
  | { kind: 'unknown' };

/** A model id that names no model at the provider; `issues` name the field as the caller spelled it. */
export class ModelNotFoundError extends InputError {
  constructor(
    readonly modelId: number,
    readonly reason: string,
    field = 'modelId',
  ) {
    super([{ path: field, message: reason }]);
  }
}

/** The provider's models and orders, typed and in this package's names. */
export class ProviderCatalog {
  constructor(
    private readonly provider: Pick<ProviderClient, 'listModels' | 'listOrders' | 'listModelOrders'>,
  ) {}

  /** Every model of the account, newest first. */
  async listModels(): Promise<ModelSummary[]> {
    return newestFirst((await this.provider.listModels()).map(modelOf), (m) => m.modelId);
  }

  /** Every order (models and generation orders), or with `modelId` only the orders under that model; newest first. */
  async listOrders(options: { modelId?: number } = {}): Promise<OrderSummary[]> {
    if (options.modelId === undefined) {
      return newestFirst((await this.provider.listOrders()).map(orderOf), (o) => o.orderId);
    }
    return (await this.getModel(options.modelId)).orders;
  }

  /**
   * One model and its generation orders. Throws ModelNotFoundError when the id is unknown or names
   * a generation order (the message says which).
   */
  async getModel(modelId: number, field = 'modelId'): Promise<ModelDetail> {
    const found = await this.lookup(modelId, field);
    if (found.kind !== 'model') throw notAModel(modelId, found, field);
    const orders = await this.provider.listModelOrders(modelId).catch((err: unknown) => {
      // A model deleted between the two calls reads as unknown, not as a provider failure.
      if (err instanceof ProviderBadRequestError && err.httpStatus === 404) {
        throw notAModel(modelId, { kind: 'unknown' }, field);
      }
      throw err;
    });
    return { ...found.model, orders: newestFirst(orders.map(orderOf), (o) => o.orderId) };
  }

  /** What `id` is at the provider. The model list answers most ids; only others need the order list. */
  async lookup(id: number, field = 'modelId'): Promise<ProviderOrderLookup> {
    return this.lookupIn(
      id,
      field,
      () => this.provider.listModels(),
      () => this.provider.listOrders(),
    );
  }

  /**
   * Looks up many ids (a campaign manifest's) on one read of the provider's lists: the model list
   * once, the order list once if some id is not a model.
   */
  lookups(): (id: number, field?: string) => Promise<ProviderOrderLookup> {
    const models = once(() => this.provider.listModels());
    const orders = once(() => this.provider.listOrders());
    return (id, field = 'modelId') => this.lookupIn(id, field, models, orders);
  }

  private async lookupIn(
    id: number,
    field: string,
    models: () => Promise<Order[]>,
    orders: () => Promise<Order[]>,
  ): Promise<ProviderOrderLookup> {
    if (!orderIdSchema.safeParse(id).success) {
      throw new InputError([{ path: field, message: 'must be a positive integer' }]);
    }
    const model = (await models()).find((m) => m.id === id);
    if (model) return { kind: 'model', model: modelOf(model) };
    const order = (await orders()).find((o) => o.id === id);
    if (order && (order.parent ?? 0) !== 0) return { kind: 'generation-order', order: orderOf(order) };
    return { kind: 'unknown' };
  }
}

function once<T>(read: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => (answer ??= read());
}

/** A catalog on the provider configured in the environment (PROVIDER_BASE_URL, PROVIDER_API_KEY, PROVIDER_TIMEOUT_MS). */
export function createProviderCatalog(
  provider: ProviderSettings | ProviderClient = loadProviderSettings(),
): ProviderCatalog {
  return new ProviderCatalog(provider instanceof ProviderClient ? provider : new ProviderClient(provider));
}

function notAModel(modelId: number, found: ProviderOrderLookup, field: string): ModelNotFoundError {
  if (found.kind === 'generation-order') {
    return new ModelNotFoundError(
      modelId,
      `order ${modelId} is a generation order under model ${found.order.modelId}, not a model`,
      field,
    );
  }
  return new ModelNotFoundError(modelId, `the provider has no model ${modelId}`, field);
}

function modelOf(order: Order): ModelSummary {
  return {
    modelId: order.id,
    status: order.status,
    ...common(order),
  };
}

function orderOf(order: Order): OrderSummary {
  return {
    orderId: order.id,
    modelId: order.parent ?? 0,
    status: order.status,
    ...common(order),
  };
}

function common(order: Order): Pick<ModelSummary, 'gender' | 'styles' | 'createdAt' | 'message'> {
  return {
    ...(order.gender === 1 || order.gender === 2 ? { gender: order.gender } : {}),
    ...(order.styles ? { styles: order.styles } : {}),
    ...(order.created_at ? { createdAt: order.created_at } : {}),
    ...(order.message ? { message: order.message } : {}),
  };
}

/** Provider ids grow with time, so the highest id is the newest. */
function newestFirst<T>(items: T[], id: (item: T) => number): T[] {
  return [...items].sort((a, b) => id(b) - id(a));
}
