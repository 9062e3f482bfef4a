import type { DeliverWebhookInput } from '../../activities/webhook-activities';
import type { BlobStore } from '../../src/storage';
import type { WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';

/** A store for tests of callbackUrl deliveries, which never touch it. */
export const UNUSED_STORE = new Proxy({} as BlobStore, {
  get: (_target, name) => {
    throw new Error(`the store (${String(name)}) is not used by callback deliveries`);
  },
});

export const SAMPLE_EVENT: WebhookEnvelope = {
  id: 'evt_00000000-0000-4000-8000-000000000001',
  type: 'pipeline.cancelled',
  timestamp: new Date(0).toISOString(),
  sequence: 1,
  source: 'wf-1',
  data: { workflowId: 'wf-1' },
};

/** The first attempt of SAMPLE_EVENT to a callbackUrl. */
export function callbackAttempt(url: string, event: WebhookEnvelope = SAMPLE_EVENT): DeliverWebhookInput {
  return {
    tenant: 'default',
    target: { kind: 'callback', url },
    event,
    attempt: 1,
    at: Date.now(),
    firstAt: Date.now(),
    redelivery: false,
  };
}
