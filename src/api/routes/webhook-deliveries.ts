import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WebhookRegistry } from '../../webhooks/webhook-registry';
import { errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { BEARER_SCHEME } from '../openapi';
import {
  deliveriesQuerySchema,
  deliveryAttemptSchema,
  deliveryIdSchema,
  endpointIdSchema,
} from '../webhook-schemas';
import { unknownEndpoint } from './webhook-endpoints';

/** An endpoint's delivery log (GET /v1/webhooks/{id}/deliveries) and redelivery of one of its deliveries. */
export function registerWebhookDeliveryRoutes(
  app: FastifyInstance,
  ctx: ApiContext,
  registry: WebhookRegistry,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['webhooks'], security: [{ [BEARER_SCHEME]: [] }] };

  api.route({
    method: 'GET',
    url: '/webhooks/:id/deliveries',
    schema: {
      ...common,
      summary: 'The endpoint\u2019s delivery log',
      description:
        'Every attempt, newest first: event, status code, latency and the first 1 KB of the answer. Kept for WEBHOOK_LOG_RETENTION_DAYS.',
      params: z.object({ id: endpointIdSchema }),
      querystring: deliveriesQuerySchema,
      response: {
        200: z.object({ attempts: z.array(deliveryAttemptSchema) }),
        401: errorBodySchema,
        404: errorBodySchema,
      },
    },
    handler: async (request) => {
      const { run, event, failed, limit } = request.query;
      const attempts = await registry.deliveries(request.caller.tenant, request.params.id, {
        ...(run !== undefined ? { run } : {}),
        ...(event !== undefined ? { event } : {}),
        ...(failed !== undefined ? { failed: failed === 'true' } : {}),
        limit,
      });
      if (!attempts) throw unknownEndpoint();
      return { attempts };
    },
  });

  api.route({
    method: 'POST',
    url: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    schema: {
      ...common,
      summary: 'Send a delivery again',
      description:
        'Sends the logged event again with the same webhook-id, retried like the first time. One redelivery of a delivery runs at a time: a call while one is under way starts nothing and answers 202 for the one running; after it has ended, a call starts a new one.',
      params: z.object({ id: endpointIdSchema, deliveryId: deliveryIdSchema }),
      response: {
        202: z
          .object({ deliveryId: z.string(), webhookId: z.string() })
          .describe('Redelivery started, or already under way'),
        401: errorBodySchema,
        404: errorBodySchema,
      },
    },
    handler: async (request, reply) => {
      const started = await registry.redeliver(
        ctx.client,
        ctx.config.placement.taskQueue,
        request.caller.tenant,
        request.params.id,
        request.params.deliveryId,
      );
      if (!started) throw unknownEndpoint('webhook endpoint or delivery');
      return reply.code(202).send({ deliveryId: started.deliveryId, webhookId: started.webhookId });
    },
  });
}
