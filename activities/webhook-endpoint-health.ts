import { Context } from '@temporalio/activity';
import type { WebhookEndpoint, WebhookEndpointStore } from '@avatar-pipeline/client/webhooks/endpoint-store';
import type { WebhookMetrics } from '../src/webhooks/webhook-metrics';
import type { DeliverWebhookInput } from './webhook-dependencies';

/** An endpoint whose deliveries all failed this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;

/** Success clears the endpoint's failing streak; a failure starts it or, 3 days on, disables the endpoint. */
export async function keepHealth(
  endpoints: WebhookEndpointStore,
  metrics: WebhookMetrics | undefined,
  input: Pick<DeliverWebhookInput, 'tenant' | 'at'>,
  endpoint: WebhookEndpoint,
  ok: boolean,
): Promise<void> {
  const health = await endpoints.health(input.tenant, endpoint.id);
  if (ok) {
    if (health.failingSince) await endpoints.setHealth(input.tenant, endpoint.id, {});
    return;
  }
  if (!health.failingSince) {
    await endpoints.setHealth(input.tenant, endpoint.id, {
      failingSince: new Date(input.at).toISOString(),
    });
    return;
  }
  if (input.at - Date.parse(health.failingSince) < DISABLE_AFTER_MS || endpoint.disabledAt) return;
  await endpoints.put({ ...endpoint, disabledAt: new Date(input.at).toISOString() });
  metrics?.endpointDisabled();
  Context.current().log.warn('webhook endpoint disabled: every delivery failed for 3 days', {
    tenant: input.tenant,
    endpointId: endpoint.id,
    failingSince: health.failingSince,
  });
}
