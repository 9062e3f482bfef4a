import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityInterceptorsFactory, WorkerInterceptors } from '@temporalio/worker';
import {
  FAILURE_TYPES,
  NON_RETRYABLE_PROVIDER_KINDS,
  providerFailureType,
} from '@avatar-pipeline/client/contracts/failure-types';
import { AvatarPipelineError, InputError } from '@avatar-pipeline/client/errors';
import {
  ProviderError,
  ProviderRateLimitedError,
  ProviderTimeoutError,
  ProviderUnavailableError,
} from '@avatar-pipeline/client/provider/errors';

/**
 * The single mapping from the provider client's error taxonomy to Temporal retry behaviour:
 * auth and bad-request failures (and bad input) are final; unavailable, invalid-response and
 * rate-limited are retried, a 429 no sooner than its Retry-After says, a write that may still be
 * performed no sooner than the provider may perform it (UnsettledWriteError, SettlingRetryError).
 * Any other error passes through unchanged.
 */
export function toActivityFailure(err: unknown): unknown {
  if (err instanceof InputError) {
    return ApplicationFailure.create({
      type: FAILURE_TYPES.invalidInput,
      message: err.message,
      nonRetryable: true,
      details: [{ issues: err.issues }],
    });
  }
  if (err instanceof UnsettledWriteError) {
    return ApplicationFailure.create({
      type: providerFailureType(err.unanswered.kind),
      message: err.message,
      nextRetryDelay: err.settleMs,
      details: [detailsOf(err.unanswered)],
    });
  }
  if (err instanceof SettlingRetryError) {
    return ApplicationFailure.create({
      type: FAILURE_TYPES.settlingRetry,
      message: err.message,
      nextRetryDelay: err.waitMs,
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
 * A write (create, upload, run) that may have reached the provider but got no answer the client
 * can trust: a timeout, a 5xx (a gateway's 502 or 504 gave up on a request the provider may still be
 * performing) or a connection cut after the request went out. The provider may perform it after
 * the client gave up, so a retry that looked at once for the write, found nothing and sent it again
 * would leave two: a second order, a second selfie, a refused second run. The activity failure asks
 * Temporal to retry no sooner than `settleMs` (PROVIDER_WRITE_SETTLE_MS), by when the late write
 * has landed and the retry's reconciliation finds it.
 */
export class UnsettledWriteError extends AvatarPipelineError {
  constructor(
    readonly unanswered: ProviderUnavailableError,
    readonly settleMs: number,
  ) {
    super(
      `${unanswered.message}; the provider may still perform it, so the retry waits ${settleMs} ms before looking for it`,
      { cause: unanswered },
    );
  }
}

/**
 * The attempt before this one ended without saying that its write was answered, refused or left
 * time to settle: the server timed it out (start-to-close, heartbeat) or its worker died, maybe
 * with the write on its way. This attempt sends nothing and asks Temporal to retry after
 * `waitMs` (PROVIDER_TIMEOUT_MS plus PROVIDER_WRITE_SETTLE_MS: the longest a write sent just before
 * the attempt ended can still land), so the next attempt's look finds that write.
 */
export class SettlingRetryError extends AvatarPipelineError {
  constructor(
    readonly attempt: number,
    readonly waitMs: number,
  ) {
    super(
      `attempt ${attempt - 1} ended (timed out or its worker stopped) with its write possibly still on its way to the provider; the retry waits ${waitMs} ms before looking for it`,
    );
  }
}

/**
 * Whether a failed write certainly never reached the provider: the connection was refused or the
 * host not found, so nothing was sent. Any other unavailable outcome may have been performed.
 */
export function wasNeverSent(err: ProviderUnavailableError): boolean {
  if (err instanceof ProviderTimeoutError || err.httpStatus !== undefined) return false;
  const code = (err.cause as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' && NEVER_SENT_CODES.includes(code);
}

const NEVER_SENT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'];

/**
 * Sends one provider write; an unavailable outcome that may have been performed becomes an
 * UnsettledWriteError, every other outcome passes through.
 */
export async function sendWrite<T>(send: () => Promise<T>, settleMs: number): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (err instanceof ProviderUnavailableError && !wasNeverSent(err)) {
      throw new UnsettledWriteError(err, settleMs);
    }
    throw err;
  }
}
