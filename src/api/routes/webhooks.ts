import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '@avatar-pipeline/client/contracts/webhook-events';
import {
  endpointRequestSchema,
  WebhookRegistry,
  WebhooksNotConfiguredError,
} from '../../webhooks/webhook-registry';
import { tenantCallbackSecret } from '../../callbacks/tenant-secret';
import { ApiError, errorBodySchema } from '../api-error';
import type { ApiContext } from '../api-context';
import { BEARER_SCHEME } from '../openapi';

const endpointIdSchema = z
  .string()
  .regex(/^ep_[0-9a-f]{24}$/, 'must be an endpoint id (ep_ and 24 hex digits)')
  .describe('The id answered by POST /v1/webhooks');
const deliveryIdSchema = z
  .string()
  .regex(/^evt_[0-9a-f-]{36}$/, 'must be a delivery id (evt_ and a UUID)')
  .describe('A deliveryId from the delivery log (the event\u2019s webhook-id)');

const endpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()).describe('The event filter: names, <group>.* or *'),
    description: z.string().optional(),
    createdAt: z.string(),
    state: z.enum(['enabled', 'disabled']),
    disabledAt: z
      .string()
      .optional()
      .describe('When every delivery had failed for 3 days; nothing is sent to it since'),
  })
  .meta({ id: 'WebhookEndpoint' });

const createdSchema = endpointSchema
  .extend({
    secret: z
      .string()
      .describe('The signing secret (whsec_…), shown only in this answer: verify deliveries with it'),
  })
  .meta({ id: 'WebhookEndpointCreated' });

const attemptSchema = z
  .object({
    deliveryId: z.string().describe('The delivery (this event to this endpoint); redeliver by it'),
    webhookId: z.string().describe('The webhook-id header: the same for every attempt'),
    event: z.string(),
    run: z.string().describe('The run or campaign the event belongs to'),
    sequence: z.number(),
    state: z.enum(['pending', 'delivered', 'failed']).describe('Of the delivery as a whole'),
    attempt: z.number(),
    at: z.string(),
    statusCode: z.number().optional().describe('The receiver\u2019s HTTP status; absent without an answer'),
    latencyMs: z.number(),
    response: z.string().optional().describe('The first 1 KB of the answer'),
    error: z.string().optional().describe('Why there was no answer (refused, unreachable, timed out)'),
    ok: z.boolean(),
    redelivery: z.boolean().optional(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

const deliveriesQuerySchema = z.object({
  run: z
    .string()
    .max(300)
    .optional()
    .describe('Only attempts of this run\u2019s (or campaign\u2019s) events'),
  event: z.enum(WEBHOOK_EVENT_TYPES).optional().describe('Only attempts of this event type'),
  failed: z.enum(['true', 'false']).optional().describe('true: failed attempts only; false: successful ones'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const notFound = (what: string) => new ApiError(404, `No ${what} with this id`, []);

/** A server without WEBHOOK_SIGNING_KEY answers 503: the request may be fine, the server cannot sign. */
async function configured<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof WebhooksNotConfiguredError) {
      throw new ApiError(503, 'Webhooks are not configured on this server (WEBHOOK_SIGNING_KEY is not set)');
    }
    throw err;
  }
}

const notConfigured = errorBodySchema.describe('WEBHOOK_SIGNING_KEY is not set on the server');

/**
 * Registered webhook endpoints (POST/GET/DELETE /v1/webhooks), their delivery log and
 * redelivery. Every endpoint belongs to the caller's tenant: another tenant's ids answer 404.
 */
export function registerWebhookRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { callbacks } = ctx.config;
  const registry = new WebhookRegistry({
    store: ctx.store,
    webhookKey: callbacks.webhookKey,
    privateHosts: callbacks.privateHosts,
    ...(callbacks.logRetentionDays !== undefined ? { logRetentionDays: callbacks.logRetentionDays } : {}),
  });
  const api = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['webhooks'], security: [{ [BEARER_SCHEME]: [] }] };

  api.route({
    method: 'POST',
    url: '/webhooks',
    schema: {
      ...common,
      summary: 'Register a webhook endpoint',
      description:
        'Events of the tenant\u2019s runs and campaigns that match `events` are POSTed to `url`, signed (Standard Webhooks). The answer holds the endpoint\u2019s `whsec_` secret, shown this once.',
      body: endpointRequestSchema,
      response: {
        201: createdSchema,
        401: errorBodySchema,
        422: errorBodySchema.describe(
          'A field is refused (unknown event, private address, …); nothing is stored',
        ),
        503: notConfigured,
      },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await configured(() => registry.add(request.caller.tenant, request.body))),
  });

  api.route({
    method: 'GET',
    url: '/webhooks',
    schema: {
      ...common,
      summary: 'List the webhook endpoints',
      response: { 200: z.object({ endpoints: z.array(endpointSchema) }), 401: errorBodySchema },
    },
    handler: async (request) => ({ endpoints: await registry.list(request.caller.tenant) }),
  });

  api.route({
    method: 'GET',
    url: '/webhooks/:id',
    schema: {
      ...common,
      summary: 'One webhook endpoint',
      params: z.object({ id: endpointIdSchema }),
      response: { 200: endpointSchema, 401: errorBodySchema, 404: errorBodySchema },
    },
    handler: async (request) => {
      const endpoint = await registry.get(request.caller.tenant, request.params.id);
      if (!endpoint) throw notFound('webhook endpoint');
      return endpoint;
    },
  });

  api.route({
    method: 'DELETE',
    url: '/webhooks/:id',
    schema: {
      ...common,
      summary: 'Remove a webhook endpoint',
      description: 'Nothing more is sent to it; its delivery log is deleted with it.',
      params: z.object({ id: endpointIdSchema }),
      response: {
        200: z.object({ id: z.string(), removed: z.literal(true) }).describe('Removed'),
        401: errorBodySchema,
        404: errorBodySchema,
      },
    },
    handler: async (request, reply) => {
      if (!(await registry.remove(request.caller.tenant, request.params.id)))
        throw notFound('webhook endpoint');
      return reply.code(200).send({ id: request.params.id, removed: true as const });
    },
  });

  api.route({
    method: 'POST',
    url: '/webhooks/:id/rotate-secret',
    schema: {
      ...common,
      summary: 'Give the endpoint a new secret',
      description:
        'Answers the new whsec_ secret, shown this once. For 24 hours deliveries carry a signature with the old secret as well, so the receiver can switch without missing one.',
      params: z.object({ id: endpointIdSchema }),
      response: {
        200: z.object({ id: z.string(), secret: z.string(), previousSecretValidUntil: z.string() }),
        401: errorBodySchema,
        404: errorBodySchema,
        503: notConfigured,
      },
    },
    handler: async (request) => {
      const rotated = await configured(() => registry.rotateSecret(request.caller.tenant, request.params.id));
      if (!rotated) throw notFound('webhook endpoint');
      return rotated;
    },
  });

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
        200: z.object({ attempts: z.array(attemptSchema) }),
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
      if (!attempts) throw notFound('webhook endpoint');
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
      if (!started) throw notFound('webhook endpoint or delivery');
      return reply.code(202).send({ deliveryId: started.deliveryId, webhookId: started.webhookId });
    },
  });

  api.route({
    method: 'GET',
    url: '/callbacks/secret',
    schema: {
      tags: ['webhooks'],
      security: [{ [BEARER_SCHEME]: [] }],
      summary: 'The caller\u2019s callback signing secret',
      description:
        'The `whsec_` secret that signs the Standard Webhooks headers of this tenant\u2019s `callbackUrl` deliveries. Each tenant has its own (derived from the server\u2019s CALLBACK_SIGNING_SECRET), so no tenant can sign what another tenant\u2019s receiver accepts. During a rotation, `previous` also signs.',
      response: {
        200: z
          .object({ secret: z.string(), previous: z.string().optional() })
          .describe(
            'The tenant\u2019s secret, and the previous one while CALLBACK_SIGNING_SECRET_PREVIOUS is set',
          ),
        401: errorBodySchema,
        404: errorBodySchema.describe(
          'No secret exists: CALLBACK_SIGNING_SECRET is not set, so callbacks are disabled on this server',
        ),
      },
    },
    handler: (request) => {
      const { signingSecret, previousSigningSecret } = callbacks;
      if (!signingSecret) {
        // No secret exists to hand out; a 5xx would say the server failed, which it did not.
        throw new ApiError(404, 'Callbacks are disabled on this server (CALLBACK_SIGNING_SECRET is not set)');
      }
      const tenant = request.caller.tenant;
      return Promise.resolve({
        secret: tenantCallbackSecret(signingSecret, tenant),
        ...(previousSigningSecret ? { previous: tenantCallbackSecret(previousSigningSecret, tenant) } : {}),
      });
    },
  });
}
