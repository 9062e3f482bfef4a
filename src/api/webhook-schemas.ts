import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '@avatar-pipeline/client/contracts/webhook-events';

/** The webhook routes' parameters and answers (routes/webhook-endpoints.ts, routes/webhook-deliveries.ts). */

export const endpointIdSchema = z
  .string()
  .regex(/^ep_[0-9a-f]{24}$/, 'must be an endpoint id (ep_ and 24 hex digits)')
  .describe('The id answered by POST /v1/webhooks');

export const deliveryIdSchema = z
  .string()
  .regex(/^evt_[0-9a-f-]{36}$/, 'must be a delivery id (evt_ and a UUID)')
  .describe('A deliveryId from the delivery log (the event\u2019s webhook-id)');

export const endpointSchema = z
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

export const createdEndpointSchema = endpointSchema
  .extend({
    secret: z
      .string()
      .describe('The signing secret (whsec_…), shown only in this answer: verify deliveries with it'),
  })
  .meta({ id: 'WebhookEndpointCreated' });

export const deliveryAttemptSchema = z
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

export const deliveriesQuerySchema = z.object({
  run: z
    .string()
    .max(300)
    .optional()
    .describe('Only attempts of this run\u2019s (or campaign\u2019s) events'),
  event: z.enum(WEBHOOK_EVENT_TYPES).optional().describe('Only attempts of this event type'),
  failed: z.enum(['true', 'false']).optional().describe('true: failed attempts only; false: successful ones'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
