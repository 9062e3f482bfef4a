/**
 * How workflows hand events to webhook delivery: the delivery workflow's input, its signal and
 * where a delivery goes. Plain types and definitions only (no zod): imported by workflow code.
 */
import { defineSignal } from './message-definitions';
import type { AnnouncedEvent, WebhookEnvelope, WebhookEventType } from './webhook-events';

/** What `callbackUrl` receives when the request names no `callbackEvents`: the run's end. */
export const DEFAULT_CALLBACK_EVENTS: readonly WebhookEventType[] = [
  'pipeline.completed',
  'pipeline.failed',
  'pipeline.cancelled',
];

/** The tenant of a run started without one (as src/api/caller.ts DEFAULT_TENANT). */
export const WEBHOOK_DEFAULT_TENANT = 'default';

/** A workflow input's tenant (runs and campaigns carry one once their starter sets it), else the default. */
export function tenantOf(input: object): string {
  return 'tenant' in input && typeof input.tenant === 'string' ? input.tenant : WEBHOOK_DEFAULT_TENANT;
}

/** A registered endpoint (by id: its URL and secret stay in the endpoint store) or the request's callbackUrl. */
export type WebhookTarget = { kind: 'endpoint'; endpointId: string } | { kind: 'callback'; url: string };

/** The per-request callback: its URL and the events it asked for. */
export interface CallbackSubscription {
  url: string;
  events: string[];
}

/** Whose events and where they may go besides the tenant's registered endpoints. */
export interface WebhookSource {
  tenant: string;
  callback?: CallbackSubscription;
}

export interface WebhookDeliveryInput extends WebhookSource {
  /** The run or campaign whose events these are. */
  source: string;
  /** State handed over at continue-as-new. */
  carried?: {
    received: number;
    inbox: WebhookEnvelope[];
    queues: Array<{ target: WebhookTarget; events: WebhookEnvelope[]; retry?: RetryState }>;
    closing: boolean;
  };
}

/** Where the retries of a queue's first event stand when the run hands over (continue-as-new). */
export interface RetryState {
  /** The number of the next attempt. */
  attempt: number;
  /** Workflow time (ms) of the event's first attempt: the retry window counts from it. */
  firstAt: number;
  /** Workflow time (ms) before which the next attempt is not made. */
  notBefore: number;
}

/** One event for the delivery workflow; `last` when nothing follows it (the run or campaign ended). */
export interface AnnouncedSignal {
  event: AnnouncedEvent;
  last?: boolean;
}

export const webhookEventSignal = defineSignal<[AnnouncedSignal]>('webhookEvent');

/** A delivery from the log sent again (same webhook-id). */
export interface RedeliveryInput {
  tenant: string;
  endpointId: string;
  deliveryId: string;
  /** State handed over at continue-as-new. */
  retry?: RetryState;
}

/** One redelivery workflow per logged delivery, so a second request finds the one running. */
export function redeliveryWorkflowId(
  delivery: Pick<RedeliveryInput, 'tenant' | 'endpointId' | 'deliveryId'>,
): string {
  return `webhook-redelivery/${delivery.tenant}/${delivery.endpointId}/${delivery.deliveryId}`;
}

export function deliveryWorkflowId(source: string): string {
  return `${source}/webhooks`;
}
