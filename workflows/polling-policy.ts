import type { PollingOptions } from '../src/contracts/pipeline-input';

export interface PollObservation {
  /** Time since the order was run. */
  elapsedMs: number;
  /** Status calls made so far. */
  polls: number;
  /** 0-100 when the provider reports it. */
  progress?: number;
}

/**
 * How long to wait before the next status call. With a progress figure, aim at the finish it
 * implies (assuming the rate so far continues); without one, back off geometrically. Either way
 * stay within [minIntervalMs, maxIntervalMs], so the lag after a finish is bounded by the cap.
 */
export function nextPollDelay(observation: PollObservation, options: PollingOptions): number {
  const { initialIntervalMs, maxIntervalMs, minIntervalMs, backoffCoefficient } = options;
  const clamp = (ms: number) => Math.round(Math.min(maxIntervalMs, Math.max(minIntervalMs, ms)));
  const { progress, elapsedMs, polls } = observation;
  if (progress !== undefined && progress > 0 && progress < 100 && elapsedMs > 0) {
    const remainingMs = (elapsedMs * (100 - progress)) / progress;
    return clamp(remainingMs);
  }
  return clamp(initialIntervalMs * Math.pow(backoffCoefficient, polls));
}
