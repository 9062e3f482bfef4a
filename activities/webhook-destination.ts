import { ApplicationFailure } from '@temporalio/activity';
import { tenantCallbackSecret } from '../src/callbacks/tenant-secret';
import type { WebhookEndpoint, WebhookEndpointStore } from '@avatar-pipeline/client/webhooks/endpoint-store';
import { endpointKey } from '../src/webhooks/endpoint-secret';
import { keyOfSecret } from '../src/webhooks/standard-signature';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';
import type { DeliverWebhookInput, WebhookDependencies } from './webhook-dependencies';

/** Where and how one attempt goes. */
export interface Destination {
  url: string;
  keys: Buffer[];
  legacySecret?: string;
  endpoint?: WebhookEndpoint;
}

type SigningSettings = Pick<
  WebhookDependencies,
  'webhookKey' | 'signingSecret' | 'previousSigningSecret' | 'legacySignature'
>;

/** Where an attempt goes and the keys it is signed with: the tenant's callback, or a registered endpoint. */
export async function destinationOf(
  signing: SigningSettings,
  endpoints: WebhookEndpointStore,
  input: Pick<DeliverWebhookInput, 'tenant' | 'target' | 'at' | 'redelivery'>,
): Promise<Destination> {
  const { tenant, target } = input;
  if (target.kind === 'callback') return callbackDestination(signing, tenant, target.url);
  const endpoint = await endpoints.get(tenant, target.endpointId);
  if (!endpoint)
    throw ApplicationFailure.nonRetryable('the endpoint was removed', FAILURE_TYPES.webhookEndpointGone);
  if (endpoint.disabledAt && !input.redelivery) {
    throw ApplicationFailure.nonRetryable('the endpoint is disabled', FAILURE_TYPES.webhookEndpointDisabled);
  }
  if (!signing.webhookKey) {
    throw ApplicationFailure.nonRetryable(
      'WEBHOOK_SIGNING_KEY is not set on the worker, so the delivery cannot be signed',
      FAILURE_TYPES.webhookNotConfigured,
    );
  }
  const key = signing.webhookKey;
  const generations = [endpoint.generation];
  if (endpoint.previous && Date.parse(endpoint.previous.until) > input.at) {
    generations.push(endpoint.previous.generation);
  }
  return {
    url: endpoint.url,
    keys: generations.map((g) => endpointKey(key, tenant, endpoint.id, g)),
    endpoint,
  } satisfies Destination;
}

function callbackDestination(signing: SigningSettings, tenant: string, url: string): Destination {
  if (!signing.signingSecret) {
    throw ApplicationFailure.nonRetryable(
      'CALLBACK_SIGNING_SECRET is not set on the worker, so the callback cannot be signed',
      'CallbackNotConfigured',
    );
  }
  // Each tenant's own secret, so a callback signed for one tenant never verifies for another.
  const secrets = [signing.signingSecret, signing.previousSigningSecret]
    .filter((s): s is string => !!s)
    .map((s) => tenantCallbackSecret(s, tenant));
  return {
    url,
    keys: secrets.map(keyOfSecret),
    ...(signing.legacySignature ? { legacySecret: secrets[0] } : {}),
  } satisfies Destination;
}
