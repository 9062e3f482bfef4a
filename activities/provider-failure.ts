import { ApplicationFailure } from '@temporalio/activity';
import { InvalidInputError, ProviderError, ProviderRateLimitedError } from '../src/provider/errors';
import { UnsettledWriteError } from './unsettled-write';

/** Failure types workflows can recognise without importing Node code. */
export const NON_RETRYABLE_PROVIDER_KINDS = ['auth', 'bad-request'] as const;

/**
 * The single mapping from the provider client's error taxonomy to Temporal retry behaviour:
 * auth and bad-request failures (and bad input) are final; unavailable, invalid-response and
 * rate-limited are retried, a 429 no sooner than its Retry-After says, a write that timed out no
 * sooner than the provider may still perform it (see UnsettledWriteError).
 */
export function toActivityFailure(err: unknown): unknown {
  if (err instanceof InvalidInputError) {
    return ApplicationFailure.create({
      type: 'InvalidInput',
      message: err.message,
      nonRetryable: true,
      details: [{ field: err.field, reason: err.reason }],
    });
  }
  if (err instanceof UnsettledWriteError) {
    return ApplicationFailure.create({
      type: `Provider:${err.timeout.kind}`,
      message: err.message,
      nextRetryDelay: err.settleMs,
      details: [detailsOf(err.timeout)],
    });
  }
  if (!(err instanceof ProviderError)) return err;
  return ApplicationFailure.create({
    type: `Provider:${err.kind}`,
    message: err.message,
    nonRetryable: (NON_RETRYABLE_PROVIDER_KINDS as readonly string[]).includes(err.kind),
    nextRetryDelay:
      err instanceof ProviderRateLimitedError && err.retryAfterMs !== undefined
        ? err.retryAfterMs
        : undefined,
    details: [detailsOf(err)],
  });
}

function detailsOf(err: ProviderError) {
  return {
    kind: err.kind,
    httpStatus: err.httpStatus,
    providerMessage: err.providerMessage,
    endpoint: err.endpoint,
  };
}

/** Runs an activity body, translating provider errors on the way out. */
export async function mapProviderErrors<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (err) {
    throw toActivityFailure(err);
  }
}
