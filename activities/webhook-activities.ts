import { ApplicationFailure } from '@temporalio/activity';
import {
  CallbackTargetError,
  resolveCallbackTarget,
  type CheckedCallbackTarget,
} from '../src/callbacks/callback-target';
import type {
  CallbackSubscription,
  RedeliveryInput,
  WebhookSource,
  WebhookTarget,
} from '@avatar-pipeline/client/contracts/webhook-delivery';
import { filterMatches, type WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';
import { parseRetryAfter } from '@avatar-pipeline/client/provider/retry-after';
import { DeliveryLog } from '@avatar-pipeline/client/webhooks/delivery-log';
import { WebhookEndpointStore } from '@avatar-pipeline/client/webhooks/endpoint-store';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';
import { AttemptRecord, countAttempt, describeTarget, type AttemptSinks } from './webhook-attempt-record';
import type { DeliverWebhookInput, WebhookDependencies } from './webhook-dependencies';
import { destinationOf } from './webhook-destination';
import { postEvent, type WebhookAnswer } from './webhook-post';

export type { DeliverWebhookInput, WebhookDependencies } from './webhook-dependencies';
export { DISABLE_AFTER_MS } from './webhook-endpoint-health';

export function createWebhookActivities(deps: WebhookDependencies) {
  const endpoints = new WebhookEndpointStore(deps.store);
  const log = new DeliveryLog(deps.store, deps.logRetentionDays ?? 14);
  const sinks: AttemptSinks = { endpoints, log, metrics: deps.metrics };

  return {
    /** Whether a source's events have anywhere to go: an enabled endpoint of its tenant, or its callback. */
    async webhookSubscribed(source: WebhookSource): Promise<{ subscribed: boolean }> {
      if (source.callback && source.callback.events.length > 0) return { subscribed: true };
      const list = await endpoints.list(source.tenant);
      return { subscribed: list.some((e) => !e.disabledAt) };
    },

    /** The targets subscribed to an event type now: enabled endpoints whose filter matches, and the callback. */
    async webhookTargets(input: {
      tenant: string;
      type: string;
      callback?: CallbackSubscription;
    }): Promise<WebhookTarget[]> {
      const list = await endpoints.list(input.tenant);
      const targets: WebhookTarget[] = list
        .filter((e) => !e.disabledAt && e.events.some((f) => filterMatches(f, input.type)))
        .map((e) => ({ kind: 'endpoint', endpointId: e.id }));
      if (input.callback && input.callback.events.some((f) => filterMatches(f, input.type))) {
        targets.push({ kind: 'callback', url: input.callback.url });
      }
      return targets;
    },

    /**
     * One attempt: POSTs the event, signed (Standard Webhooks), to the target's checked address,
     * and logs the attempt. Any answer but 2xx (redirects are not followed) fails the attempt, and
     * the delivery workflow tries again later; the webhook-id stays the event's id.
     */
    async deliverWebhook(input: DeliverWebhookInput): Promise<{ status: number }> {
      const destination = await destinationOf(deps, endpoints, input);
      const record = new AttemptRecord(sinks, input, destination.endpoint);
      const target = await checkedTarget(deps, destination.url, record);
      const answer = await postEvent(deps, input.event, destination, target, record);
      if (answer.status >= 200 && answer.status < 300) {
        await record.delivered(answer);
        return { status: answer.status };
      }
      await record.failed('rejected', '', { statusCode: answer.status, response: answer.excerpt });
      throw rejection(input.target, answer);
    },

    /** After 3 days of failed attempts: the delivery is marked failed in the log. */
    async webhookGaveUp(input: Omit<DeliverWebhookInput, 'attempt' | 'redelivery'>): Promise<void> {
      countAttempt(deps.metrics, { ...input, attempt: 0, redelivery: false }, 'gave-up');
      if (input.target.kind === 'endpoint') {
        await log.markFailed(input.tenant, input.target.endpointId, input.event.id);
      }
    },

    /** The event of a logged delivery, for a redelivery. */
    async loadDelivery(input: RedeliveryInput): Promise<{ event: WebhookEnvelope }> {
      const record = await log.get(input.tenant, input.endpointId, input.deliveryId);
      if (!record)
        throw ApplicationFailure.nonRetryable('no such delivery in the log', FAILURE_TYPES.deliveryNotFound);
      return { event: record.event };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;

/**
 * The destination's address, checked against the address rules: one they refuse fails the attempt
 * for good, one that cannot be resolved now fails it for a retry; either is recorded.
 */
async function checkedTarget(
  deps: Pick<WebhookDependencies, 'privateHosts' | 'lookup'>,
  url: string,
  record: AttemptRecord,
): Promise<CheckedCallbackTarget> {
  try {
    return await resolveCallbackTarget(url, { privateHosts: deps.privateHosts }, deps.lookup);
  } catch (err) {
    if (err instanceof CallbackTargetError && !err.temporary) {
      await record.failed('refused', `url ${err.reason}`);
      throw ApplicationFailure.nonRetryable(`url ${err.reason}`, FAILURE_TYPES.webhookRefused);
    }
    await record.failed('unreachable', err instanceof Error ? err.message : String(err));
    throw err;
  }
}

/** The failure of an attempt answered other than 2xx: retried, no sooner than its Retry-After. */
function rejection(target: WebhookTarget, answer: WebhookAnswer): ApplicationFailure {
  const retryAfterMs = parseRetryAfter(answer.retryAfter);
  return ApplicationFailure.create({
    message: `${describeTarget(target)} answered HTTP ${answer.status}${answer.redirect ? ' (redirects are not followed)' : ''}`,
    type: FAILURE_TYPES.webhookRejected,
    details: [{ ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }],
  });
}
