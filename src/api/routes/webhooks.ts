import type { FastifyInstance } from 'fastify';
import { WebhookRegistry } from '../../webhooks/webhook-registry';
import type { ApiContext } from '../api-context';
import { registerCallbackSecretRoute } from './callback-secret';
import { registerWebhookDeliveryRoutes } from './webhook-deliveries';
import { registerWebhookEndpointRoutes } from './webhook-endpoints';

/**
 * Registered webhook endpoints (POST/GET/DELETE /v1/webhooks, webhook-endpoints.ts), their
 * delivery log and redelivery (webhook-deliveries.ts), and the callback secret
 * (callback-secret.ts). Every endpoint belongs to the caller's tenant: another tenant's ids answer 404.
 */
export function registerWebhookRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { callbacks } = ctx.config;
  const registry = new WebhookRegistry({
    store: ctx.store,
    webhookKey: callbacks.webhookKey,
    privateHosts: callbacks.privateHosts,
    ...(callbacks.logRetentionDays !== undefined ? { logRetentionDays: callbacks.logRetentionDays } : {}),
  });
  registerWebhookEndpointRoutes(app, registry);
  registerWebhookDeliveryRoutes(app, ctx, registry);
  registerCallbackSecretRoute(app, ctx);
}
