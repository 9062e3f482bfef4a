import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CheckedCallbackTarget } from '../src/callbacks/callback-target';
import { SIGNATURE_HEADER, signCallback } from '../src/callbacks/signature';
import type { WebhookEnvelope } from '@avatar-pipeline/client/contracts/webhook-events';
import { fetchChecked, isRedirect } from '../src/outbound/checked-fetch';
import { RESPONSE_EXCERPT_BYTES } from '@avatar-pipeline/client/webhooks/delivery-log';
import { standardWebhookHeaders } from '../src/webhooks/standard-signature';
import { FAILURE_TYPES } from '@avatar-pipeline/client/contracts/failure-types';
import type { AttemptRecord } from './webhook-attempt-record';
import type { Destination } from './webhook-destination';
import type { WebhookDependencies } from './webhook-dependencies';

/** What the target answered one POST: its status, the start of its body, its Retry-After. */
export interface WebhookAnswer {
  status: number;
  excerpt: string;
  retryAfter: string | null;
  redirect: boolean;
}

/**
 * POSTs the event (with fresh archive links), signed with the destination's keys, to the checked
 * address, redirects not followed. An attempt that gets no answer is recorded as unreachable and
 * fails (retryably); any answer is returned, whatever its status.
 */
export async function postEvent(
  deps: Pick<WebhookDependencies, 'linkArchived' | 'timeoutMs'>,
  event: WebhookEnvelope,
  destination: Destination,
  target: CheckedCallbackTarget,
  record: AttemptRecord,
): Promise<WebhookAnswer> {
  const body = JSON.stringify(await withArchiveLinks(event, deps.linkArchived));
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    return await fetchChecked(
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
          ...standardWebhookHeaders({ id: event.id, timestamp, body }, destination.keys),
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
    await record.failed('unreachable', message);
    throw ApplicationFailure.create({
      message: `not delivered: ${message}`,
      type: FAILURE_TYPES.webhookUnreachable,
    });
  }
}

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
