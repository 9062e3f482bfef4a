import type { AddressLookup } from '../src/callbacks/callback-target';
import type { WebhookTarget } from '@avatar-pipeline/client/contracts/webhook-delivery';
import type { WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';
import type { BlobStore } from '../src/storage';
import type { WebhookMetrics } from '../src/webhooks/webhook-metrics';

export interface WebhookDependencies {
  store: BlobStore;
  /** WEBHOOK_SIGNING_KEY: registered endpoints' secrets derive from it. */
  webhookKey?: string;
  /** CALLBACK_SIGNING_SECRET (and _PREVIOUS during a rotation): each tenant's callback secret derives from it. */
  signingSecret?: string;
  previousSigningSecret?: string;
  /** CALLBACK_LEGACY_SIGNATURE: callbackUrl deliveries also carry X-Avatar-Signature. */
  legacySignature?: boolean;
  /** CALLBACK_PRIVATE_HOSTS: the same address rules for endpoints and callbacks. */
  privateHosts: string[];
  logRetentionDays?: number;
  metrics?: WebhookMetrics;
  /** A link to an archived avatar's copy, made fresh at each attempt (presigned); absent: none. */
  linkArchived?: (key: string) => Promise<string | undefined>;
  timeoutMs?: number;
  lookup?: AddressLookup;
}

export interface DeliverWebhookInput {
  tenant: string;
  target: WebhookTarget;
  event: WebhookEnvelope;
  attempt: number;
  /** Workflow time of this attempt and of the event's first attempt (ms). */
  at: number;
  firstAt: number;
  redelivery: boolean;
}
