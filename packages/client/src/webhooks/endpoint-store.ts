import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { BlobStore } from '../storage/blob-store';
import { readBlob } from '../storage/read-blob';

/** A registered webhook endpoint as stored: no secret (see endpoint-secret.ts). */
export const webhookEndpointSchema = z.object({
  id: z.string(),
  tenant: z.string(),
  url: z.string(),
  /** Event filter (names, `<group>.*`, `*`). */
  events: z.array(z.string()),
  description: z.string().optional(),
  createdAt: z.string(),
  /** Which derived secret signs: counted up by a rotation. */
  generation: z.number().int().positive(),
  /** The secret before the last rotation, still signed with until `until`. */
  previous: z.object({ generation: z.number().int().positive(), until: z.string() }).optional(),
  /** Set when every delivery failed for 3 days: nothing more is sent. */
  disabledAt: z.string().optional(),
});
export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;

/** When the endpoint's deliveries started failing without a success since (absent: healthy). */
const healthSchema = z.object({ failingSince: z.string().optional() });
export type EndpointHealth = z.output<typeof healthSchema>;

const MAX_RECORD_BYTES = 1024 * 1024;
const TENANT_KEY = /^[A-Za-z0-9_-]{1,64}$/;
const ENDPOINT_ID = /^ep_[0-9a-f]{24}$/;

export function newEndpointId(): string {
  return `ep_${randomBytes(12).toString('hex')}`;
}

export function isEndpointId(id: string): boolean {
  return ENDPOINT_ID.test(id);
}

/** `webhooks/<tenant>/<endpoint>/…`: one prefix per tenant, so a tenant lists only its own. */
export function endpointPrefix(tenant: string, endpointId?: string): string {
  if (!TENANT_KEY.test(tenant)) throw new Error(`tenant "${tenant}" cannot name a store key`);
  if (endpointId !== undefined && !isEndpointId(endpointId)) throw new Error('not an endpoint id');
  return endpointId === undefined ? `webhooks/${tenant}/` : `webhooks/${tenant}/${endpointId}/`;
}

export async function readJson<T>(
  store: BlobStore,
  key: string,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  const bytes = await readBlob(store, key, MAX_RECORD_BYTES);
  return bytes === undefined ? undefined : schema.parse(JSON.parse(bytes.toString('utf8')));
}

export async function writeJson(store: BlobStore, key: string, value: unknown): Promise<void> {
  await store.put(key, Buffer.from(JSON.stringify(value)), 'application/json');
}

/** Endpoints in the blob store, one JSON object each, under the tenant's prefix. */
export class WebhookEndpointStore {
  constructor(private readonly store: BlobStore) {}

  async list(tenant: string): Promise<WebhookEndpoint[]> {
    const objects = await this.store.list(endpointPrefix(tenant));
    const found = await Promise.all(
      objects
        .filter((o) => o.key.endsWith('/endpoint.json'))
        .map((o) => readJson(this.store, o.key, webhookEndpointSchema)),
    );
    return found
      .filter((e): e is WebhookEndpoint => e !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async get(tenant: string, id: string): Promise<WebhookEndpoint | undefined> {
    if (!isEndpointId(id)) return undefined;
    return readJson(this.store, `${endpointPrefix(tenant, id)}endpoint.json`, webhookEndpointSchema);
  }

  async put(endpoint: WebhookEndpoint): Promise<void> {
    await writeJson(this.store, `${endpointPrefix(endpoint.tenant, endpoint.id)}endpoint.json`, endpoint);
  }

  /** Removes the endpoint with its health and delivery log. */
  async remove(tenant: string, id: string): Promise<boolean> {
    if (!isEndpointId(id)) return false;
    const prefix = endpointPrefix(tenant, id);
    const objects = await this.store.list(prefix);
    if (!objects.some((o) => o.key === `${prefix}endpoint.json`)) return false;
    // The definition first: deliveries in flight stop at their next attempt.
    await this.store.delete(`${prefix}endpoint.json`);
    for (const object of objects) await this.store.delete(object.key);
    return true;
  }

  async health(tenant: string, id: string): Promise<EndpointHealth> {
    return (await readJson(this.store, `${endpointPrefix(tenant, id)}health.json`, healthSchema)) ?? {};
  }

  async setHealth(tenant: string, id: string, health: EndpointHealth): Promise<void> {
    await writeJson(this.store, `${endpointPrefix(tenant, id)}health.json`, health);
  }
}
