import { Context } from '@temporalio/activity';
import {
  ProviderInvalidResponseError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
} from '@avatar-pipeline/client/provider/errors';
import { sendWrite, SettlingRetryError, UnsettledWriteError, wasNeverSent } from './provider-failure';

/** One attempt of a write activity: whether it looks for an earlier attempt's write first, and how it sends its own. */
export interface WriteAttempt {
  lookFirst: boolean;
  write<T>(send: () => Promise<T>): Promise<T>;
}

/** Runs the body of one attempt of a write activity (see writeAttempts). */
export type RunWriteAttempt = <T>(body: (attempt: WriteAttempt) => Promise<T>) => Promise<T>;

export interface WriteAttemptSettings {
  /** PROVIDER_WRITE_SETTLE_MS: how long a timed-out write may still be performed; its retry waits that long. */
  writeSettleMs: number;
  /** PROVIDER_TIMEOUT_MS: how long a write sent just before its attempt ended may still be on its way. */
  providerTimeoutMs: number;
}

/**
 * Runs one attempt of a write activity under the rule createProviderActivities states
 * (provider-activities.ts), leaving the mark its ending calls for: WriteRefused when nothing was
 * written, WriteSettled when whatever it or the attempts before it wrote will have landed by the
 * time its retry runs.
 */
export function writeAttempts({ writeSettleMs, providerTimeoutMs }: WriteAttemptSettings): RunWriteAttempt {
  return async <T>(body: (attempt: WriteAttempt) => Promise<T>): Promise<T> => {
    const context = Context.current();
    const { attempt } = context.info;
    const previous = attempt === 1 ? 'settled' : attemptEndIn(context.info.heartbeatDetails, attempt - 1);
    const leave = (mark: WriteRefused | WriteSettled) => context.heartbeat(mark);
    const settled: WriteSettled = { writeSettledInAttempt: attempt };
    if (previous === undefined) {
      leave(settled);
      throw new SettlingRetryError(attempt, providerTimeoutMs + writeSettleMs);
    }
    let sent = false;
    const write = async <R>(send: () => Promise<R>): Promise<R> => {
      sent = true;
      try {
        return await sendWrite(send, writeSettleMs);
      } catch (err) {
        if (isRefusal(err)) leave({ writeRefusedInAttempt: attempt });
        else if (err instanceof UnsettledWriteError || err instanceof ProviderInvalidResponseError) {
          leave(settled);
        }
        throw err;
      }
    };
    try {
      return await body({ lookFirst: attempt > 1 && previous === 'settled', write });
    } catch (err) {
      if (!sent) leave(settled);
      throw err;
    }
  };
}

/**
 * The heartbeat details of an attempt whose write the provider refused with a 429 (or which never
 * left this host: connection refused, host not found), after the attempt had looked for an earlier
 * attempt's write (or had no need to). A 429 is answered before the provider performs anything,
 * so nothing has been written yet, and the next attempt writes at once. Without the mark, a retry under a saturated quota sends its look and its write back to
 * back, as one task of the provider queue, whose rate limit lets one request through per task:
 * the look takes the quota's token, the write is refused again, and the activity can fail this
 * way for a minute while every other task passes. The mark holds for the next attempt only: a
 * later one cannot tell whether the attempts in between wrote (a worker that died mid-write
 * leaves no mark), and looks. A mark that never reaches the server costs a look, nothing more.
 */
export interface WriteRefused {
  writeRefusedInAttempt: number;
}

/**
 * The heartbeat details of an attempt that leaves its retry nothing to wait for: it sent nothing
 * (after the attempts before it had settled), its write was answered, or its failure asks for a
 * retry no sooner than the provider may still perform its write. The next attempt looks at once.
 */
export interface WriteSettled {
  writeSettledInAttempt: number;
}

/** How `attempt` ended by its mark; undefined when it left none (timed out by the server, worker gone). */
function attemptEndIn(details: unknown, attempt: number): 'refused' | 'settled' | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const mark = details as Partial<WriteRefused & WriteSettled>;
  if (mark.writeRefusedInAttempt === attempt) return 'refused';
  if (mark.writeSettledInAttempt === attempt) return 'settled';
  return undefined;
}

/** A write the provider refused before performing it (429), or one that never left this host. */
function isRefusal(err: unknown): boolean {
  return (
    err instanceof ProviderRateLimitedError || (err instanceof ProviderUnavailableError && wasNeverSent(err))
  );
}
