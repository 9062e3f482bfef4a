import type { FastifyInstance, HTTPMethods } from 'fastify';
import { WebhookRegistry } from '../../webhooks/webhook-registry';
import { ApiError } from '../api-error';
import type { ApiContext } from '../api-context';
import { ROUTE_ACCESS } from '../route-access';
import { registerCallbackSecretRoute } from './callback-secret';
import { registerWebhookDeliveryRoutes } from './webhook-deliveries';
import { registerWebhookEndpointRoutes } from './webhook-endpoints';

/**
 * Registered webhook endpoints (POST/GET/DELETE /v1/webhooks, webhook-endpoints.ts), their
 * delivery log and redelivery (webhook-deliveries.ts), and the callback secret
 * (callback-secret.ts). Every endpoint belongs to the caller's tenant: another tenant's ids answer 404.
 *
 * Registered endpoints are a feature of a server with WEBHOOK_SIGNING_KEY (their secrets are
 * derived from it, and the workers sign with it). Without it the /v1/webhooks routes are not in
 * the OpenAPI document, and each answers 404 naming the setting: nothing there can work, and the
 * document describes what this server serves.
 */
export function registerWebhookRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { callbacks } = ctx.config;
  if (callbacks.webhookKey) {
    const registry = new WebhookRegistry({
      store: ctx.store,
      webhookKey: callbacks.webhookKey,
      privateHosts: callbacks.privateHosts,
      ...(callbacks.logRetentionDays !== undefined ? { logRetentionDays: callbacks.logRetentionDays } : {}),
    });
    registerWebhookEndpointRoutes(app, registry);
    registerWebhookDeliveryRoutes(app, ctx, registry);
  } else {
    registerWebhooksNotConfigured(app);
  }
  registerCallbackSecretRoute(app, ctx);
}

/**
 * Every /v1/webhooks route of ROUTE_ACCESS, undocumented, answering 404 naming WEBHOOK_SIGNING_KEY
 * (after the token and scope checks, as on any route). The same methods on the same paths, so a
 * method none of them serves is still answered 405 with Allow.
 */
function registerWebhooksNotConfigured(app: FastifyInstance): void {
  for (const route of Object.keys(ROUTE_ACCESS)) {
    const [method, url] = route.split(' ') as [HTTPMethods, string];
    if (url !== '/v1/webhooks' && !url.startsWith('/v1/webhooks/')) continue;
    app.route({
      method,
      url: url.slice('/v1'.length),
      schema: { hide: true },
      handler: () => {
        throw new ApiError(
          404,
          'Webhooks are not configured on this server (WEBHOOK_SIGNING_KEY is not set)',
          [],
        );
      },
    });
  }
}
