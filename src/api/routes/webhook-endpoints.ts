import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { endpointRequestSchema, type WebhookRegistry } from '../../webhooks/webhook-registry';
import { ApiError, errorBodySchema } from '../api-error';
import { BEARER_SCHEME } from '../openapi';
import { createdEndpointSchema, endpointIdSchema, endpointSchema } from '../webhook-schemas';

export const unknownEndpoint = (what = 'webhook endpoint'): ApiError =>
  new ApiError(404, `No ${what} with this id`, []);

/**
 * The caller's tenant's webhook endpoints: POST /v1/webhooks (register), GET /v1/webhooks (list),
 * GET and DELETE /v1/webhooks/{id}, POST /v1/webhooks/{id}/rotate-secret. Another tenant's ids
 * answer 404. Registered only on a server with WEBHOOK_SIGNING_KEY (webhooks.ts).
 */
export function registerWebhookEndpointRoutes(app: FastifyInstance, registry: WebhookRegistry): void {
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
        201: createdEndpointSchema,
        401: errorBodySchema,
        422: errorBodySchema.describe(
          'A field is refused (unknown event, private address, …); nothing is stored',
        ),
      },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await registry.add(request.caller.tenant, request.body)),
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
      if (!endpoint) throw unknownEndpoint();
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
      if (!(await registry.remove(request.caller.tenant, request.params.id))) throw unknownEndpoint();
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
      },
    },
    handler: async (request) => {
      const rotated = await registry.rotateSecret(request.caller.tenant, request.params.id);
      if (!rotated) throw unknownEndpoint();
      return rotated;
    },
  });
}
