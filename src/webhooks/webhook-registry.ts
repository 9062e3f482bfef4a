import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { z } from 'zod';
import { CallbackTargetError, checkCallbackTarget, type AddressLookup } from '../callbacks/callback-target';
import { callbackUrlSchema } from '@avatar-pipeline/client/contracts/pipeline-input';
import {
  redeliveryWorkflowId,
  type RedeliveryInput,
} from '@avatar-pipeline/client/contracts/webhook-delivery';
import { eventFilterSchema } from '@avatar-pipeline/client/contracts/webhook-events';
import { WORKFLOW_TYPES } from '@avatar-pipeline/client/contracts/workflow-definitions';
import { ConfigError } from '@avatar-pipeline/client/config/config-error';
import { InputError } from '@avatar-pipeline/client/errors';
import type { BlobStore } from '../storage';
import {
  DeliveryLog,
  type AttemptFilter,
  type ListedAttempt,
} from '@avatar-pipeline/client/webhooks/delivery-log';
import { endpointSecret } from './endpoint-secret';
import {
  newEndpointId,
  WebhookEndpointStore,
  type WebhookEndpoint,
} from '@avatar-pipeline/client/webhooks/endpoint-store';

/** The server has no WEBHOOK_SIGNING_KEY: endpoints cannot be registered (the CLI exits 2; the API serves no /v1/webhooks routes then: 404). */
export class WebhooksNotConfiguredError extends ConfigError {
  constructor() {
    super([
      { variable: 'WEBHOOK_SIGNING_KEY', reason: 'is not set, so webhook endpoints cannot be registered' },
    ]);
  }
}

/** How long a rotated-out secret still signs deliveries. */
export const SECRET_OVERLAP_HOURS = 24;

/** What a caller sends to register an endpoint. */
export const endpointRequestSchema = z.strictObject({
  url: callbackUrlSchema,
  /** Names, `<group>.*` or `*`; every event when absent. */
  events: eventFilterSchema.default(['*']),
  description: z.string().max(500, 'must be at most 500 characters').optional(),
});
export type EndpointRequest = z.input<typeof endpointRequestSchema>;

/** An endpoint as answered: everything but the secret, which only `add` answers, once. */
export type EndpointView = Omit<WebhookEndpoint, 'tenant' | 'generation' | 'previous'> & {
  state: 'enabled' | 'disabled';
};

export interface WebhookSettings {
  store: BlobStore;
  /** WEBHOOK_SIGNING_KEY; without it no endpoint can be added. */
  webhookKey: string | undefined;
  /** CALLBACK_PRIVATE_HOSTS. */
  privateHosts: string[];
  logRetentionDays?: number;
  lookup?: AddressLookup;
}

/**
 * Registered webhook endpoints of one tenant, their delivery log and redelivery: what the API
 * routes and the CLI do, in one place. Endpoints and the log live in the blob store under the
 * tenant's prefix; no secret is stored (endpoint-secret.ts).
 */
export class WebhookRegistry {
  private readonly endpoints: WebhookEndpointStore;
  private readonly log: DeliveryLog;

  constructor(private readonly settings: WebhookSettings) {
    this.endpoints = new WebhookEndpointStore(settings.store);
    this.log = new DeliveryLog(settings.store, settings.logRetentionDays ?? 14);
  }

  /**
   * Checks the request (unknown event names, a filter that matches nothing, a private or loopback
   * URL not listed in CALLBACK_PRIVATE_HOSTS: InputError naming the field) and stores the
   * endpoint; answers it with its `whsec_` secret. Nothing is stored when a check fails.
   */
  async add(tenant: string, request: unknown): Promise<EndpointView & { secret: string }> {
    const parsed = endpointRequestSchema.safeParse(request);
    if (!parsed.success) throw InputError.fromZod(parsed.error);
    const key = this.signingKey();
    try {
      await checkCallbackTarget(
        parsed.data.url,
        { privateHosts: this.settings.privateHosts },
        this.settings.lookup,
      );
    } catch (err) {
      // A name that cannot be resolved now may resolve later; every delivery checks the address again.
      if (!(err instanceof CallbackTargetError)) throw err;
      if (!err.temporary) throw InputError.field('url', err.reason);
    }
    const endpoint: WebhookEndpoint = {
      id: newEndpointId(),
      tenant,
      url: parsed.data.url,
      events: parsed.data.events,
      ...(parsed.data.description !== undefined ? { description: parsed.data.description } : {}),
      createdAt: new Date().toISOString(),
      generation: 1,
    };
    await this.endpoints.put(endpoint);
    return { ...viewOf(endpoint), secret: endpointSecret(key, tenant, endpoint.id, endpoint.generation) };
  }

  /** WEBHOOK_SIGNING_KEY, without which no endpoint secret can be made. */
  private signingKey(): string {
    if (!this.settings.webhookKey) throw new WebhooksNotConfiguredError();
    return this.settings.webhookKey;
  }

  async list(tenant: string): Promise<EndpointView[]> {
    return (await this.endpoints.list(tenant)).map(viewOf);
  }

  async get(tenant: string, id: string): Promise<EndpointView | undefined> {
    const endpoint = await this.endpoints.get(tenant, id);
    return endpoint && viewOf(endpoint);
  }

  /**
   * A new secret for the endpoint (answered once, like at registration). Deliveries carry a
   * signature with the old secret too for `overlapHours`, so receivers can switch without a gap.
   */
  async rotateSecret(
    tenant: string,
    id: string,
    overlapHours = SECRET_OVERLAP_HOURS,
    nowMs = Date.now(),
  ): Promise<{ id: string; secret: string; previousSecretValidUntil: string } | undefined> {
    const key = this.signingKey();
    const endpoint = await this.endpoints.get(tenant, id);
    if (!endpoint) return undefined;
    const until = new Date(nowMs + overlapHours * 60 * 60 * 1000).toISOString();
    const generation = endpoint.generation + 1;
    await this.endpoints.put({
      ...endpoint,
      generation,
      previous: { generation: endpoint.generation, until },
    });
    return { id, secret: endpointSecret(key, tenant, id, generation), previousSecretValidUntil: until };
  }

  /** False when the tenant has no such endpoint. */
  remove(tenant: string, id: string): Promise<boolean> {
    return this.endpoints.remove(tenant, id);
  }

  /** The endpoint's delivery attempts, newest first; undefined when the tenant has no such endpoint. */
  async deliveries(tenant: string, id: string, filter: AttemptFilter): Promise<ListedAttempt[] | undefined> {
    if (!(await this.endpoints.get(tenant, id))) return undefined;
    return this.log.attempts(tenant, id, filter);
  }

  /**
   * Sends a logged delivery again, with its webhook-id, by a workflow of its own (retried like the
   * first time). One redelivery of a delivery runs at a time: while one runs, this answers it
   * (same workflow and run) instead of starting another; once it has ended, a new one may start.
   * Undefined when the tenant has no such endpoint or delivery.
   */
  async redeliver(
    client: Client,
    taskQueue: string,
    tenant: string,
    endpointId: string,
    deliveryId: string,
  ): Promise<{ deliveryId: string; webhookId: string; workflowId: string; runId: string } | undefined> {
    if (!(await this.endpoints.get(tenant, endpointId))) return undefined;
    const record = await this.log.get(tenant, endpointId, deliveryId);
    if (!record) return undefined;
    const input: RedeliveryInput = { tenant, endpointId, deliveryId };
    const handle = await client.workflow.start(WORKFLOW_TYPES.webhookRedelivery, {
      workflowId: redeliveryWorkflowId(input),
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      staticSummary: `redeliver ${record.event.type} #${record.event.sequence} to ${endpointId}`,
    });
    return {
      deliveryId,
      webhookId: record.event.id,
      workflowId: handle.workflowId,
      runId: handle.firstExecutionRunId,
    };
  }
}

function viewOf(endpoint: WebhookEndpoint): EndpointView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    ...(endpoint.description !== undefined ? { description: endpoint.description } : {}),
    createdAt: endpoint.createdAt,
    ...(endpoint.disabledAt !== undefined ? { disabledAt: endpoint.disabledAt } : {}),
    state: endpoint.disabledAt ? 'disabled' : 'enabled',
  };
}
