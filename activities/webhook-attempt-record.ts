import type { WebhookTarget } from '@avatar-pipeline/client/contracts/webhook-delivery';
import type { DeliveryLog } from '@avatar-pipeline/client/webhooks/delivery-log';
import type { WebhookEndpoint, WebhookEndpointStore } from '@avatar-pipeline/client/webhooks/endpoint-store';
import type { DeliveryOutcome, WebhookMetrics } from '../src/webhooks/webhook-metrics';
import type { DeliverWebhookInput } from './webhook-dependencies';
import { keepHealth } from './webhook-endpoint-health';

/** Where attempts are recorded: the metrics, and for a registered endpoint its delivery log and health. */
export interface AttemptSinks {
  endpoints: WebhookEndpointStore;
  log: DeliveryLog;
  metrics?: WebhookMetrics;
}

/**
 * What one attempt leaves behind once it ends: its outcome counted in the metrics and, when it went
 * to a registered endpoint, its line in the endpoint's delivery log and the endpoint's health.
 * Its latency is counted from when the record is made.
 */
export class AttemptRecord {
  private readonly started = performance.now();

  constructor(
    private readonly sinks: AttemptSinks,
    private readonly input: DeliverWebhookInput,
    private readonly endpoint: WebhookEndpoint | undefined,
  ) {}

  async failed(
    outcome: DeliveryOutcome,
    error: string,
    extra: { statusCode?: number; response?: string } = {},
  ): Promise<void> {
    const { input, endpoint } = this;
    countAttempt(this.sinks.metrics, input, outcome);
    if (endpoint) {
      await this.sinks.log.record(input.tenant, endpoint.id, input.event, {
        ...this.base(),
        latencyMs: this.latencyMs(),
        ok: false,
        ...extra,
        ...(extra.statusCode === undefined ? { error } : {}),
      });
      await keepHealth(this.sinks.endpoints, this.sinks.metrics, input, endpoint, false);
    }
  }

  async delivered(answer: { status: number; excerpt: string }): Promise<void> {
    const { input, endpoint } = this;
    countAttempt(this.sinks.metrics, input, 'delivered');
    if (endpoint) {
      await this.sinks.log.record(input.tenant, endpoint.id, input.event, {
        ...this.base(),
        statusCode: answer.status,
        latencyMs: this.latencyMs(),
        response: answer.excerpt,
        ok: true,
      });
      await keepHealth(this.sinks.endpoints, this.sinks.metrics, input, endpoint, true);
    }
  }

  private base() {
    return {
      attempt: this.input.attempt,
      at: new Date(this.input.at).toISOString(),
      ...(this.input.redelivery ? { redelivery: true } : {}),
    };
  }

  private latencyMs(): number {
    return Math.round(performance.now() - this.started);
  }
}

/** One attempt's outcome in the metrics, under its target and event. */
export function countAttempt(
  metrics: WebhookMetrics | undefined,
  input: DeliverWebhookInput,
  outcome: DeliveryOutcome,
): void {
  metrics?.attempt(outcome, `${describeTarget(input.target)}:${input.event.id}`, input.firstAt, input.at);
}

/** A target as logs and messages name it: an endpoint by its id, a callback by its host. */
export function describeTarget(target: WebhookTarget): string {
  return target.kind === 'endpoint' ? `endpoint ${target.endpointId}` : `callback ${hostOf(target.url)}`;
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : 'callback';
}
