import { z } from 'zod';
import type { BlobStore } from '../storage/blob-store';
import type { WebhookEnvelope } from '../contracts/webhook-events';
import { endpointPrefix, isEndpointId, readJson, writeJson } from './endpoint-store';

/** How much of a receiver's answer the log keeps. */
export const RESPONSE_EXCERPT_BYTES = 1024;

const attemptSchema = z.object({
  attempt: z.number().int().positive(),
  /** When it was sent (workflow time). */
  at: z.string(),
  statusCode: z.number().int().optional(),
  latencyMs: z.number().int().nonnegative(),
  /** The first RESPONSE_EXCERPT_BYTES of the answer's body. */
  response: z.string().optional(),
  /** Why it failed without an answer (refused, unreachable, timed out). */
  error: z.string().optional(),
  ok: z.boolean(),
  redelivery: z.boolean().optional(),
});
export type DeliveryAttempt = z.output<typeof attemptSchema>;

const deliverySchema = z.object({
  deliveryId: z.string(),
  endpointId: z.string(),
  /** The event as delivered (its `id` is the webhook-id), so it can be sent again. */
  event: z.custom<WebhookEnvelope>((value) => typeof value === 'object' && value !== null),
  createdAt: z.string(),
  state: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.array(attemptSchema),
});
export type DeliveryRecord = z.output<typeof deliverySchema>;

/** One attempt as `GET /v1/webhooks/{id}/deliveries` lists it. */
export interface ListedAttempt extends DeliveryAttempt {
  deliveryId: string;
  webhookId: string;
  event: string;
  run: string;
  sequence: number;
  state: DeliveryRecord['state'];
}

export interface AttemptFilter {
  run?: string;
  event?: string;
  /** true: failed attempts only; false: successful ones only. */
  failed?: boolean;
  limit?: number;
}

/**
 * The delivery log of registered endpoints: one object per delivery (an event to an endpoint,
 * named by its webhook-id) holding the event and every attempt. Attempts of one delivery are made
 * one at a time (the delivery workflow's queue), so appending is a read and a write. Entries
 * older than the retention are left out of listings and deleted when the log is read.
 */
export class DeliveryLog {
  constructor(
    private readonly store: BlobStore,
    private readonly retentionDays: number,
  ) {}

  private key(tenant: string, endpointId: string, deliveryId: string): string {
    if (!/^evt_[0-9a-f-]{36}$/.test(deliveryId)) throw new Error('not a delivery id');
    return `${endpointPrefix(tenant, endpointId)}deliveries/${deliveryId}.json`;
  }

  async get(tenant: string, endpointId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    if (!isEndpointId(endpointId) || !/^evt_[0-9a-f-]{36}$/.test(deliveryId)) return undefined;
    return readJson(this.store, this.key(tenant, endpointId, deliveryId), deliverySchema);
  }

  async record(
    tenant: string,
    endpointId: string,
    event: WebhookEnvelope,
    attempt: DeliveryAttempt,
  ): Promise<void> {
    const key = this.key(tenant, endpointId, event.id);
    const current = await readJson(this.store, key, deliverySchema);
    const record: DeliveryRecord = current ?? {
      deliveryId: event.id,
      endpointId,
      event,
      createdAt: attempt.at,
      state: 'pending',
      attempts: [],
    };
    // The same attempt recorded twice (an activity retried after its write) is kept once.
    const attempts = record.attempts.filter(
      (a) => !(a.attempt === attempt.attempt && a.redelivery === attempt.redelivery),
    );
    attempts.push(attempt);
    const state = attempt.ok ? 'delivered' : record.state === 'delivered' ? 'delivered' : 'pending';
    await writeJson(this.store, key, { ...record, attempts, state });
  }

  async markFailed(tenant: string, endpointId: string, deliveryId: string): Promise<void> {
    const key = this.key(tenant, endpointId, deliveryId);
    const current = await readJson(this.store, key, deliverySchema);
    if (current && current.state === 'pending')
      await writeJson(this.store, key, { ...current, state: 'failed' });
  }

  /**
   * Deletes the tenant's deliveries (of every endpoint) whose event `matches`, and answers which
   * were deleted, so their redeliveries can be ended too.
   */
  async erase(
    tenant: string,
    matches: (event: WebhookEnvelope) => boolean,
  ): Promise<Array<{ endpointId: string; deliveryId: string }>> {
    const erased: Array<{ endpointId: string; deliveryId: string }> = [];
    for (const key of await this.store.listKeys(endpointPrefix(tenant))) {
      if (!/\/deliveries\/evt_[0-9a-f-]{36}\.json$/.test(key)) continue;
      const record = await readJson(this.store, key, deliverySchema).catch(() => undefined);
      if (!record || !matches(record.event)) continue;
      await this.store.delete(key);
      erased.push({ endpointId: record.endpointId, deliveryId: record.deliveryId });
    }
    return erased;
  }

  /** Every attempt of the endpoint's deliveries, newest first, filtered. */
  async attempts(
    tenant: string,
    endpointId: string,
    filter: AttemptFilter,
    nowMs = Date.now(),
  ): Promise<ListedAttempt[]> {
    const prefix = `${endpointPrefix(tenant, endpointId)}deliveries/`;
    const oldest = nowMs - this.retentionDays * 24 * 60 * 60 * 1000;
    const listed: ListedAttempt[] = [];
    for (const object of await this.store.list(prefix)) {
      const record = await readJson(this.store, object.key, deliverySchema).catch(() => undefined);
      if (!record) continue;
      if (Date.parse(record.createdAt) < oldest) {
        await this.store.delete(object.key);
        continue;
      }
      if (filter.run !== undefined && record.event.source !== filter.run) continue;
      if (filter.event !== undefined && record.event.type !== filter.event) continue;
      for (const attempt of record.attempts) {
        if (filter.failed !== undefined && attempt.ok === filter.failed) continue;
        listed.push({
          ...attempt,
          deliveryId: record.deliveryId,
          webhookId: record.event.id,
          event: record.event.type,
          run: record.event.source,
          sequence: record.event.sequence,
          state: record.state,
        });
      }
    }
    listed.sort((a, b) => b.at.localeCompare(a.at) || b.attempt - a.attempt);
    return listed.slice(0, filter.limit ?? 100);
  }
}
