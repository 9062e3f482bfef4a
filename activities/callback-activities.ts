import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  resolveCallbackTarget,
  CallbackTargetError,
  type AddressLookup,
  type CheckedCallbackTarget,
} from '../src/callbacks/callback-target';
import { fetchChecked, isRedirect } from '../src/outbound/checked-fetch';
import { SIGNATURE_HEADER, signCallback } from '../src/callbacks/signature';
import { keyOfSecret, standardWebhookHeaders } from '../src/webhooks/standard-signature';
import type { CallbackDelivery } from '../src/contracts/pipeline-event';
import { parseRetryAfter } from '../src/provider/retry-after';

export interface CallbackDependencies {
  /** CALLBACK_SIGNING_SECRET: only the worker holds it; workflow input never does. */
  signingSecret?: string;
  /** CALLBACK_SIGNING_SECRET_PREVIOUS: signed with too, while receivers rotate. */
  previousSigningSecret?: string;
  /** CALLBACK_LEGACY_SIGNATURE: also send X-Avatar-Signature. */
  legacySignature?: boolean;
  /** CALLBACK_PRIVATE_HOSTS. */
  privateHosts: string[];
  timeoutMs?: number;
  lookup?: AddressLookup;
}

export function createCallbackActivities(deps: CallbackDependencies) {
  return {
    /**
     * POSTs the event, signed, to the callback URL. Any answer but 2xx (redirects included: they
     * are not followed) fails the attempt, and Temporal retries it with backoff; a receiver must
     * therefore accept the same event more than once (its `eventId` and `X-Avatar-Event-Id` say which).
     */
    async notifyCallback(delivery: CallbackDelivery): Promise<{ status: number; attempt: number }> {
      const { attempt } = Context.current().info;
      const secret = deps.signingSecret;
      if (!secret) {
        throw ApplicationFailure.nonRetryable(
          'CALLBACK_SIGNING_SECRET is not set on the worker, so the callback cannot be signed',
          'CallbackNotConfigured',
        );
      }
      let target: CheckedCallbackTarget;
      try {
        target = await resolveCallbackTarget(delivery.url, { privateHosts: deps.privateHosts }, deps.lookup);
      } catch (err) {
        if (err instanceof CallbackTargetError && !err.temporary) {
          throw ApplicationFailure.nonRetryable(err.message, 'CallbackRefused');
        }
        throw err;
      }
      const body = JSON.stringify(delivery.event);
      const timeout = AbortSignal.timeout(deps.timeoutMs ?? 15_000);
      const { url } = target;
      // Connects to the addresses just checked, not to whatever the name resolves to next.
      const response = await fetchChecked(
        target,
        {
          method: 'POST',
          signal: AbortSignal.any([Context.current().cancellationSignal, timeout]),
          headers: {
            'content-type': 'application/json',
            'user-agent': 'avatar-pipeline-callback/1',
            ...signatureHeaders(deps, delivery.event.eventId, body),
            'x-avatar-event': delivery.event.type,
            'x-avatar-event-id': delivery.event.eventId,
            'x-avatar-delivery-attempt': String(attempt),
          },
          body,
        },
        async (answer) => {
          await answer.body?.cancel().catch(() => undefined);
          return answer;
        },
      );
      if (response.status >= 200 && response.status < 300) return { status: response.status, attempt };
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      throw ApplicationFailure.create({
        message: `callback to ${url.host} answered HTTP ${response.status}${isRedirect(response) ? ' (redirects are not followed)' : ''}`,
        type: 'CallbackRejected',
        ...(retryAfterMs !== undefined && (response.status === 429 || response.status === 503)
          ? { nextRetryDelay: Math.min(retryAfterMs, 60 * 60 * 1000) }
          : {}),
      });
    },
  };
}

/**
 * Standard Webhooks headers (webhook-id is the event id, the same for every attempt), signed with
 * the current secret and, during a rotation, the previous one; plus the old header when asked for.
 */
function signatureHeaders(deps: CallbackDependencies, id: string, body: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const secrets = [deps.signingSecret, deps.previousSigningSecret].filter(
    (secret): secret is string => secret !== undefined,
  );
  return {
    ...standardWebhookHeaders({ id, timestamp, body }, secrets.map(keyOfSecret)),
    ...(deps.legacySignature ? { [SIGNATURE_HEADER]: signCallback(body, secrets[0]!, timestamp) } : {}),
  };
}

export type CallbackActivities = ReturnType<typeof createCallbackActivities>;
