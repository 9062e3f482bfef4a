import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityInterceptorsFactory, WorkerInterceptors } from '@temporalio/worker';
import {
  INVALID_INPUT_FAILURE,
  NON_RETRYABLE_PROVIDER_KINDS,
  providerFailureType,
} from '../src/contracts/activity-failures';
import { AvatarPipelineError, InputError } from '../src/errors';
import { ProviderError, ProviderRateLimitedError, ProviderTimeoutError } from '../src/provider/errors';

/**
 * The single mapping from the provider client's error taxonomy to Temporal retry behaviour:
 * auth and bad-request failures (and bad input) are final; unavailable, invalid-response and
 * rate-limited are retried, a 429 no sooner than its Retry-After says, a write that timed out no
 * sooner than the provider may still perform it (see UnsettledWriteError). Any other error passes
 * through unchanged.
 */
export function toActivityFailure(err: unknown): unknown {
  if (err instanceof InputError) {
    return ApplicationFailure.create({
      type: INVALID_INPUT_FAILURE,
      message: err.message,
      nonRetryable: true,
      details: [{ issues: err.issues }],
    });
  }
  if (err instanceof UnsettledWriteError) {
    return ApplicationFailure.create({
      type: providerFailureType(err.timeout.kind),
      message: err.message,
      nextRetryDelay: err.settleMs,
      details: [detailsOf(err.timeout)],
    });
  }
  if (!(err instanceof ProviderError)) return err;
  return ApplicationFailure.create({
    type: providerFailureType(err.kind),
    message: err.message,
    nonRetryable: NON_RETRYABLE_PROVIDER_KINDS.includes(err.kind),
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

/**
 * Applies toActivityFailure to whatever any activity throws: registered once per worker
 * (src/worker/create-worker.ts), so no activity maps its own errors. First in the worker's list,
 * it is the outermost interceptor: the others see the activity's own errors, the server the mapped one.
 */
export const activityFailureInterceptor: ActivityInterceptorsFactory = () => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (err) {
        throw toActivityFailure(err);
      }
    },
  },
});

/** A worker's interceptors with activityFailureInterceptor first. */
export function withActivityFailures(interceptors: WorkerInterceptors = {}): WorkerInterceptors {
  return { ...interceptors, activity: [activityFailureInterceptor, ...(interceptors.activity ?? [])] };
}

/**
 * A write (create, upload, run) that got no answer within the client's timeout. The provider may
 * still perform it after the client gave up, so a retry that looked at once for the write, found
 * nothing and sent it again would leave two: a second order, a second selfie, a refused second
 * run. The activity failure asks Temporal to retry no sooner than `settleMs` (PROVIDER_WRITE_SETTLE_MS),
 * by when the late write has landed and the retry's reconciliation finds it.
 */
export class UnsettledWriteError extends AvatarPipelineError {
  constructor(
    readonly timeout: ProviderTimeoutError,
    readonly settleMs: number,
  ) {
    super(
      `${timeout.message}; the provider may still perform it, so the retry waits ${settleMs} ms before looking for it`,
      { cause: timeout },
    );
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
