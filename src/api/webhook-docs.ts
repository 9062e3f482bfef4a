import { z } from 'zod';
import {
  WEBHOOK_EVENT_TYPES,
  webhookEnvelopeSchema,
  type WebhookEventType,
} from '@avatar-pipeline/client/contracts/webhook-events';

const WHEN: Record<WebhookEventType, string> = {
  'pipeline.started': 'A run has started.',
  'training.completed': 'The run\u2019s model is trained.',
  'training.failed': 'Training failed (the run fails too: pipeline.failed follows).',
  'style.completed':
    'One style\u2019s avatars are collected (and archived): sent as each style ends, before the run ends.',
  'style.failed': 'One style failed; the others go on.',
  'pipeline.completed': 'The run ended with avatars (DONE, or PARTIAL when some style failed).',
  'pipeline.failed': 'The run failed.',
  'pipeline.cancelled': 'The run was cancelled.',
  'review.requested': 'A run that asked for review has its styles generated: decisions are awaited.',
  'review.reminder':
    'A review still waits (every reminderEveryMs; once with escalation true at escalateAfterMs).',
  'review.decided': 'Decisions were taken on a run under review, by a reviewer or by its deadline.',
  'campaign.progress': 'A campaign\u2019s counts changed (at most one event every 30 seconds).',
  'campaign.completed': 'A campaign ended (completed or cancelled).',
  'budget.threshold':
    'A tenant\u2019s spending reached one of its budget\u2019s alert percentages (once each a period).',
  'budget.exhausted':
    'Nothing is left of a tenant\u2019s budget (spent and reserved reach it; once a period): starts past it are refused.',
};

/**
 * The events POSTed to webhook endpoints and callback URLs, as OpenAPI webhooks: one entry per
 * event type, its body's JSON schema from the contract. The document is OpenAPI 3.0, whose
 * extension form of 3.1's `webhooks` is `x-webhooks` (same shape; Redoc renders it).
 */
export function webhookDocs(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary: type,
          description: `${WHEN[type]} Signed with Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature); any 2xx answer acknowledges it, anything else is retried for up to 3 days.`,
          tags: ['webhooks'],
          parameters: [
            { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'webhook-signature', in: 'header', required: true, schema: { type: 'string' } },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: z.toJSONSchema(webhookEnvelopeSchema(type), { target: 'openapi-3.0', io: 'output' }),
              },
            },
          },
          responses: { '200': { description: 'Received (any 2xx)' } },
        },
      },
    ]),
  );
}
