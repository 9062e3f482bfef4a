import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  CallbackTargetError,
  resolveCallbackTarget,
  type AddressLookup,
  type CheckedCallbackTarget,
} from '../src/callbacks/callback-target';
import { SIGNATURE_HEADER, signCallback } from '../src/callbacks/signature';
import { tenantCallbackSecret } from '../src/callbacks/tenant-secret';
import type {
  CallbackSubscription,
  RedeliveryInput,
  WebhookSource,
  WebhookTarget,
} from '@avatar-pipeline/client/contracts/webhook-delivery';
import { filterMatches, type WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';
import { fetchChecked, isRedirect } from '../src/outbound/checked-fetch';
import { parseRetryAfter } from '@avatar-pipeline/client/provider/retry-after';
import type { BlobStore } from '../src/storage';
import { DeliveryLog, RESPONSE_EXCERPT_BYTES } from '@avatar-pipeline/client/webhooks/delivery-log';
import { endpointKey } from '../src/webhooks/endpoint-secret';
import { WebhookEndpointStore, type WebhookEndpoint } from '@avatar-pipeline/client/webhooks/endpoint-store';
import { keyOfSecret, standardWebhookHeaders } from '../src/webhooks/standard-signature';
import type { DeliveryOutcome, WebhookMetrics } from '../src/webhooks/webhook-metrics';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';

/** An endpoint whose deliveries all failed this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;

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

/** Where and how one attempt goes. */
interface Destination {
  url: string;
  keys: Buffer[];
  legacySecret?: string;
  endpoint?: WebhookEndpoint;
}

export function createWebhookActivities(deps: WebhookDependencies) {
  const endpoints = new WebhookEndpointStore(deps.store);
  const log = new DeliveryLog(deps.store, deps.logRetentionDays ?? 14);

  const destinationOf = async (
    tenant: string,
    target: WebhookTarget,
    input: DeliverWebhookInput,
  ): Promise<Destination> => {
    if (target.kind === 'callback') {
      if (!deps.signingSecret) {
        throw ApplicationFailure.nonRetryable(
          'CALLBACK_SIGNING_SECRET is not set on the worker, so the callback cannot be signed',
          'CallbackNotConfigured',
        );
      }
      // Each tenant's own secret, so a callback signed for one tenant never verifies for another.
      const secrets = [deps.signingSecret, deps.previousSigningSecret]
        .filter((s): s is string => !!s)
        .map((s) => tenantCallbackSecret(s, tenant));
      return {
        url: target.url,
        keys: secrets.map(keyOfSecret),
        ...(deps.legacySignature ? { legacySecret: secrets[0] } : {}),
      } satisfies Destination;
    }
    const endpoint = await endpoints.get(tenant, target.endpointId);
    if (!endpoint)
      throw ApplicationFailure.nonRetryable('the endpoint was removed', FAILURE_TYPES.webhookEndpointGone);
    if (endpoint.disabledAt && !input.redelivery) {
      throw ApplicationFailure.nonRetryable(
        'the endpoint is disabled',
        FAILURE_TYPES.webhookEndpointDisabled,
      );
    }
    if (!deps.webhookKey) {
      throw ApplicationFailure.nonRetryable(
        'WEBHOOK_SIGNING_KEY is not set on the worker, so the delivery cannot be signed',
        FAILURE_TYPES.webhookNotConfigured,
      );
    }
    const key = deps.webhookKey;
    const generations = [endpoint.generation];
    if (endpoint.previous && Date.parse(endpoint.previous.until) > input.at) {
      generations.push(endpoint.previous.generation);
    }
    return {
      url: endpoint.url,
      keys: generations.map((g) => endpointKey(key, tenant, endpoint.id, g)),
      endpoint,
    } satisfies Destination;
  };

  /** Success clears the endpoint's failing streak; a failure starts it or, 3 days on, disables the endpoint. */
  const keepHealth = async (input: DeliverWebhookInput, endpoint: WebhookEndpoint, ok: boolean) => {
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
    deps.metrics?.endpointDisabled();
    Context.current().log.warn('webhook endpoint disabled: every delivery failed for 3 days', {
      tenant: input.tenant,
      endpointId: endpoint.id,
      failingSince: health.failingSince,
    });
  };

  const count = (input: DeliverWebhookInput, outcome: DeliveryOutcome) =>
    deps.metrics?.attempt(outcome, `${describe(input.target)}:${input.event.id}`, input.firstAt, input.at);

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
      const destination = await destinationOf(input.tenant, input.target, input);
      const { endpoint } = destination;
      const attemptBase = {
        attempt: input.attempt,
        at: new Date(input.at).toISOString(),
        ...(input.redelivery ? { redelivery: true } : {}),
      };
      const started = performance.now();
      const fail = async (
        outcome: DeliveryOutcome,
        error: string,
        extra: { statusCode?: number; response?: string } = {},
      ) => {
        count(input, outcome);
        if (endpoint) {
          await log.record(input.tenant, endpoint.id, input.event, {
            ...attemptBase,
            latencyMs: Math.round(performance.now() - started),
            ok: false,
            ...extra,
            ...(extra.statusCode === undefined ? { error } : {}),
          });
          await keepHealth(input, endpoint, false);
        }
      };

      let target: CheckedCallbackTarget;
      try {
        target = await resolveCallbackTarget(
          destination.url,
          { privateHosts: deps.privateHosts },
          deps.lookup,
        );
      } catch (err) {
        if (err instanceof CallbackTargetError && !err.temporary) {
          await fail('refused', `url ${err.reason}`);
          throw ApplicationFailure.nonRetryable(`url ${err.reason}`, FAILURE_TYPES.webhookRefused);
        }
        await fail('unreachable', err instanceof Error ? err.message : String(err));
        throw err;
      }
      const body = JSON.stringify(await withArchiveLinks(input.event, deps.linkArchived));
      const timestamp = Math.floor(Date.now() / 1000);
      let answer: { status: number; excerpt: string; retryAfter: string | null; redirect: boolean };
      try {
        answer = await fetchChecked(
          target,
          {
            method: 'POST',
            signal: AbortSignal.any([
              Context.current().cancellationSignal,
              AbortSignal.timeout(deps.timeoutMs ?? 15_000),
            ]),
            headers: {
              'content-type': 'application/json',
              'user-agent': 'avatar-pipeline-webhooks/1',
              ...standardWebhookHeaders({ id: input.event.id, timestamp, body }, destination.keys),
              ...(destination.legacySecret
                ? { [SIGNATURE_HEADER]: signCallback(body, destination.legacySecret, timestamp) }
                : {}),
            },
            body,
          },
          async (response) => ({
            status: response.status,
            excerpt: await excerptOf(response.body),
            retryAfter: response.headers.get('retry-after'),
            redirect: isRedirect(response),
          }),
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        await fail('unreachable', message);
        throw ApplicationFailure.create({
          message: `not delivered: ${message}`,
          type: FAILURE_TYPES.webhookUnreachable,
        });
      }
      if (answer.status >= 200 && answer.status < 300) {
        count(input, 'delivered');
        if (endpoint) {
          await log.record(input.tenant, endpoint.id, input.event, {
            ...attemptBase,
            statusCode: answer.status,
            latencyMs: Math.round(performance.now() - started),
            response: answer.excerpt,
            ok: true,
          });
          await keepHealth(input, endpoint, true);
        }
        return { status: answer.status };
      }
      await fail('rejected', '', { statusCode: answer.status, response: answer.excerpt });
      const retryAfterMs = parseRetryAfter(answer.retryAfter);
      throw ApplicationFailure.create({
        message: `${describe(input.target)} answered HTTP ${answer.status}${answer.redirect ? ' (redirects are not followed)' : ''}`,
        type: FAILURE_TYPES.webhookRejected,
        details: [{ ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }],
      });
    },

    /** After 3 days of failed attempts: the delivery is marked failed in the log. */
    async webhookGaveUp(input: Omit<DeliverWebhookInput, 'attempt' | 'redelivery'>): Promise<void> {
      count({ ...input, attempt: 0, redelivery: false }, 'gave-up');
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

/** The first RESPONSE_EXCERPT_BYTES of a body; the rest is not read. */
async function excerptOf(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < RESPONSE_EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
}

/** style.completed and pipeline.completed carry fresh links to archived avatars, when the store can sign them. */
async function withArchiveLinks(
  event: WebhookEnvelope,
  link: WebhookDependencies['linkArchived'],
): Promise<WebhookEnvelope> {
  if (!link) return event;
  const linked = async <A extends { archiveKey?: string }>(avatars: A[]) =>
    Promise.all(
      avatars.map(async (a) => {
        const url = a.archiveKey ? await link(a.archiveKey) : undefined;
        return url ? { ...a, archivedUrl: url } : a;
      }),
    );
  if (event.type === 'style.completed') {
    return { ...event, data: { ...event.data, avatars: await linked(event.data.avatars) } };
  }
  if (event.type === 'pipeline.completed') {
    const generations = await Promise.all(
      event.data.result.generations.map(async (g) => ({ ...g, avatars: await linked(g.avatars) })),
    );
    return { ...event, data: { ...event.data, result: { ...event.data.result, generations } } };
  }
  return event;
}

function describe(target: WebhookTarget): string {
  return target.kind === 'endpoint' ? `endpoint ${target.endpointId}` : `callback ${hostOf(target.url)}`;
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : 'callback';
}
