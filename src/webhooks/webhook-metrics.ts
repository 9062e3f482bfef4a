import type { MetricMeter } from '@temporalio/common';

export const WEBHOOK_METRICS = {
  deliveries: 'avatar_pipeline_webhook_deliveries',
  oldestUndelivered: 'avatar_pipeline_webhook_oldest_undelivered_seconds',
  disabledEndpoints: 'avatar_pipeline_webhook_endpoints_disabled',
} as const;

export type DeliveryOutcome = 'delivered' | 'rejected' | 'unreachable' | 'refused' | 'gave-up';

/**
 * Webhook metrics through the SDK's metric meter (the worker's Prometheus endpoint): delivery
 * attempts by outcome, endpoints disabled, and the age of the oldest event this worker has tried
 * and not yet delivered (0 when none): an event waiting behind it counts from its own first try.
 */
export class WebhookMetrics {
  private readonly deliveries;
  private readonly disabled;
  private readonly oldest;
  /** First attempt time (workflow time, ms) of each event tried here and not delivered yet. */
  private readonly undelivered = new Map<string, number>();

  constructor(meter: MetricMeter) {
    this.deliveries = meter.createCounter(
      WEBHOOK_METRICS.deliveries,
      '',
      'Webhook delivery attempts by outcome (delivered, rejected, unreachable, refused, gave-up)',
    );
    this.disabled = meter.createCounter(
      WEBHOOK_METRICS.disabledEndpoints,
      '',
      'Webhook endpoints disabled after every delivery failed for 3 days',
    );
    this.oldest = meter.createGauge(
      WEBHOOK_METRICS.oldestUndelivered,
      'int',
      's',
      'Age of the oldest webhook event not yet delivered (tried on this worker)',
    );
  }

  attempt(outcome: DeliveryOutcome, deliveryKey: string, firstAtMs: number, nowMs: number): void {
    this.deliveries.add(1, { outcome });
    if (outcome === 'delivered' || outcome === 'refused' || outcome === 'gave-up') {
      this.undelivered.delete(deliveryKey);
    } else this.undelivered.set(deliveryKey, firstAtMs);
    const first = Math.min(...this.undelivered.values());
    this.oldest.set(Number.isFinite(first) ? Math.max(0, Math.round((nowMs - first) / 1000)) : 0);
  }

  endpointDisabled(): void {
    this.disabled.add(1);
  }
}
