import { ApplicationFailure } from '@temporalio/activity';
import {
  InvalidInputError,
  ProviderError,
  ProviderRateLimitedError,
  ProviderTimeoutError,
} from '../src/provider/errors';

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

/**
 * A write (create, upload, run) that got no answer within the client's timeout. The provider may
 * still perform it after the client gave up, so a retry that looked at once for the write, found
 * nothing and sent it again would leave two: a second order, a second selfie, a refused second
 * run. The activity failure asks Temporal to retry no sooner than `settleMs` (PROVIDER_WRITE_SETTLE_MS),
 * by when the late write has landed and the retry's reconciliation finds it.
 */
export class UnsettledWriteError extends Error {
  constructor(
    readonly timeout: ProviderTimeoutError,
    readonly settleMs: number,
  ) {
    super(
      `${timeout.message}; the provider may still perform it, so the retry waits ${settleMs} ms before looking for it`,
      { cause: timeout },
    );
    this.name = 'UnsettledWriteError';
  }
}

/** Sends one provider write; a timeout becomes an UnsettledWriteError, every other outcome passes through. */
export async function sendWrite<T>(send: () => Promise<T>, settleMs: number): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (err instanceof ProviderTimeoutError) throw new UnsettledWriteError(err, settleMs);
    throw err;
  }
}
