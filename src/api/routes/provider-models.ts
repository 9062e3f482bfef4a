import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ProviderCatalog } from '@avatar-pipeline/client/client/provider-catalog';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import {
  modelDetailSchema,
  modelIdParamsSchema,
  modelListSchema,
  orderListSchema,
  ordersQuerySchema,
} from '../model-schemas';
import { BEARER_SCHEME } from '../openapi';
import { providerOfTenant, readFromProvider } from '../provider-read';

/** GET /models, GET /models/:modelId and GET /orders: the provider's own records, read through its client. */
export function registerProviderModelRoutes(app: FastifyInstance, ctx: ApiContext): void {
  // Per request: the tenant's view of the shared provider account.
  const catalogOf = (request: FastifyRequest) =>
    new ProviderCatalog(providerOfTenant(ctx, request.caller.tenant));
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const failures = {
    401: errorBodySchema.describe('Missing or wrong bearer token'),
    502: errorBodySchema.describe('The provider did not answer usefully'),
  };

  typed.route({
    method: 'GET',
    url: '/models',
    schema: {
      summary: "The provider's models",
      description:
        'The caller\u2019s models (orders with parent 0 that its own runs trained; the provider account is shared between tenants) with their status, newest first. A DONE model can generate more styles without training again.',
      tags: ['models'],
      security: [{ [BEARER_SCHEME]: [] }],
      response: { 200: modelListSchema.describe('The models'), ...failures },
    },
    handler: async (request) => ({
      models: await readFromProvider(() => catalogOf(request).listModels(), 'modelId'),
    }),
  });

  typed.route({
    method: 'GET',
    url: '/models/:modelId',
    schema: {
      summary: 'One model and its generation orders',
      description: 'The model with its status, and every generation order under it, newest first.',
      tags: ['models'],
      security: [{ [BEARER_SCHEME]: [] }],
      params: modelIdParamsSchema,
      response: {
        200: modelDetailSchema.describe('The model'),
        404: errorBodySchema.describe('No model with this id (or the id names a generation order)'),
        422: errorBodySchema.describe('The id is not a positive integer'),
        ...failures,
      },
    },
    handler: (request) =>
      readFromProvider(() => catalogOf(request).getModel(request.params.modelId), 'params.modelId'),
  });

  typed.route({
    method: 'GET',
    url: '/orders',
    schema: {
      summary: "The provider's orders",
      description:
        'The caller\u2019s orders (its models, modelId 0, and the generation orders under them), newest first; with `modelId`, only the generation orders under that model.',
      tags: ['models'],
      security: [{ [BEARER_SCHEME]: [] }],
      querystring: ordersQuerySchema,
      response: {
        200: orderListSchema.describe('The orders'),
        404: errorBodySchema.describe('`modelId` names no model'),
        422: errorBodySchema.describe('`modelId` is not a positive integer'),
        ...failures,
      },
    },
    handler: async (request) => {
      const { modelId } = request.query;
      const orders = await readFromProvider(
        () => catalogOf(request).listOrders(modelId === undefined ? {} : { modelId }),
        'querystring.modelId',
      );
      return { orders };
    },
  });
}
