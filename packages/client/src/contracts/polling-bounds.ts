import type { PollingOptions } from './pipeline-input';

/**
 * The operator's bounds on every polling interval a caller may ask for (PROVIDER_POLL_MIN_INTERVAL_MS,
 * PROVIDER_POLL_MAX_INTERVAL_MS): status calls spend a provider quota every tenant shares, so how
 * often a run may poll is the operator's to say, not the caller's. Workflows read this module, so
 * it imports nothing at run time.
 */
export interface PollingBounds {
  minIntervalMs: number;
  maxIntervalMs: number;
}

/** The polling fields that are intervals, each of which must lie within the bounds. */
const INTERVAL_FIELDS = [
  'initialIntervalMs',
  'maxIntervalMs',
  'maxProgressIntervalMs',
  'minIntervalMs',
] as const;

/**
 * Problems with the intervals a caller wrote in `polling` (the request as sent, before defaults):
 * one per field outside the bounds, with its path under `prefix`. Values that are not numbers are
 * left to the schema to refuse.
 */
export function pollingBoundsProblems(
  polling: unknown,
  bounds: PollingBounds | undefined,
  prefix = 'polling',
): { path: string; message: string }[] {
  if (bounds === undefined || typeof polling !== 'object' || polling === null) return [];
  const given = polling as Record<string, unknown>;
  return INTERVAL_FIELDS.flatMap((field) => {
    const value = given[field];
    if (typeof value !== 'number' || (value >= bounds.minIntervalMs && value <= bounds.maxIntervalMs))
      return [];
    return [
      {
        path: `${prefix}.${field}`,
        message: `must be between ${bounds.minIntervalMs} and ${bounds.maxIntervalMs} ms (the operator's polling bounds)`,
      },
    ];
  });
}

/**
 * The polling options with every interval moved into the bounds: defaults the caller did not
 * write, and anything a start that skipped the check let through. Pure, so workflows use it too.
 */
export function pollingWithin(polling: PollingOptions, bounds: PollingBounds | undefined): PollingOptions {
  if (bounds === undefined) return polling;
  const clamp = (ms: number) => Math.min(bounds.maxIntervalMs, Math.max(bounds.minIntervalMs, ms));
  return {
    ...polling,
    initialIntervalMs: clamp(polling.initialIntervalMs),
    maxIntervalMs: clamp(polling.maxIntervalMs),
    minIntervalMs: clamp(polling.minIntervalMs),
    ...(polling.maxProgressIntervalMs === undefined
      ? {}
      : { maxProgressIntervalMs: clamp(polling.maxProgressIntervalMs) }),
  };
}
