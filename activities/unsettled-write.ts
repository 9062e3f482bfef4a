import { ProviderTimeoutError } from '../src/provider/errors';

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
