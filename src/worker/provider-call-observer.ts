import { asyncLocalStorage } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import type { CallRecord } from '@avatar-pipeline/client/provider/http-transport';

export const PROVIDER_METRICS = {
  requests: 'avatar_pipeline_provider_requests',
  latency: 'avatar_pipeline_provider_request_latency',
  rateLimited: 'avatar_pipeline_provider_rate_limited',
} as const;

/**
 * Metrics and logs for every provider call, through the SDK's metric meter (exported with the
 * SDK's own metrics, e.g. on the worker's Prometheus endpoint) and the activity logger (which adds
 * workflow id, activity type and attempt). Tags are low-cardinality: endpoint templates, not
 * paths. Nothing about the request itself is logged, so no key or header can leak.
 */
export function providerCallObserver(meter: MetricMeter): (call: CallRecord) => void {
  const requests = meter.createCounter(
    PROVIDER_METRICS.requests,
    '',
    'Provider HTTP requests by endpoint, method and outcome (ok or error kind)',
  );
  const latency = meter.createHistogram(
    PROVIDER_METRICS.latency,
    'int',
    'ms',
    'Provider HTTP request latency in milliseconds, by endpoint and outcome',
  );
  const rateLimited = meter.createCounter(
    PROVIDER_METRICS.rateLimited,
    '',
    'Provider answers with HTTP 429 (rate limited), by endpoint',
  );
  return (call) => {
    const context = asyncLocalStorage.getStore();
    const activityType = context?.info.activityType;
    const tags = {
      endpoint: call.endpoint,
      method: call.method,
      outcome: call.outcome,
      ...(activityType ? { activity_type: activityType } : {}),
    };
    requests.add(1, tags);
    latency.record(Math.max(0, Math.round(call.durationMs)), tags);
    if (call.outcome === 'rate-limited') rateLimited.add(1, { endpoint: call.endpoint, method: call.method });
    if (!context) return;
    const meta = {
      endpoint: call.endpoint,
      method: call.method,
      outcome: call.outcome,
      ...(call.httpStatus !== undefined ? { httpStatus: call.httpStatus } : {}),
      ...(call.resultId !== undefined ? { resultId: call.resultId } : {}),
      durationMs: Math.round(call.durationMs),
    };
    if (call.outcome === 'ok') context.log.debug('provider call', meta);
    else context.log.warn('provider call failed', meta);
  };
}

/** Calls every observer; one that throws does not stop the others or the provider call. */
export function combineCallObservers(
  ...observers: ((call: CallRecord) => void)[]
): (call: CallRecord) => void {
  return (call) => {
    for (const observe of observers) {
      try {
        observe(call);
      } catch {
        // Observers must not throw (see TransportOptions.onCall); a broken one only loses its own output.
      }
    }
  };
}
