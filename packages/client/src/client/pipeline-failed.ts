import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';

/** How a run ended when it did not complete. */
export type RunEnd = 'failed' | 'cancelled' | 'terminated' | 'timed_out';

/**
 * A run that did not complete, saying why: `reason` is the innermost message of the failure
 * chain (an activity's refusal, the provider's error, the operator's termination reason), which
 * Temporal's own error keeps two or three `cause`s down. It is a WorkflowFailedError, so code
 * that catches that catches this too; `cause` is Temporal's failure, unchanged.
 */
export class PipelineFailedError extends WorkflowFailedError {
  readonly workflowId: string;
  readonly end: RunEnd;
  readonly reason: string;

  constructor(workflowId: string, failed: WorkflowFailedError) {
    const end = endOf(failed.cause);
    const reason = innermostMessage(failed) ?? failed.message;
    super(`Run ${workflowId} ${end.replace('_', ' ')}: ${reason}`, failed.cause, failed.retryState);
    this.workflowId = workflowId;
    this.end = end;
    this.reason = reason;
  }
}
Object.defineProperty(PipelineFailedError.prototype, 'name', { value: 'PipelineFailedError' });

/** Waits for a run's result, turning Temporal's WorkflowFailedError into a PipelineFailedError. */
export async function runResult<R>(workflowId: string, result: Promise<R>): Promise<R> {
  try {
    return await result;
  } catch (err) {
    if (err instanceof WorkflowFailedError && !(err instanceof PipelineFailedError)) {
      throw new PipelineFailedError(workflowId, err);
    }
    throw err;
  }
}

function endOf(cause: Error | undefined): RunEnd {
  if (cause instanceof CancelledFailure) return 'cancelled';
  if (cause instanceof TerminatedFailure) return 'terminated';
  if (cause instanceof TimeoutFailure) return 'timed_out';
  return 'failed';
}

/** The message at the bottom of the cause chain that says something of its own. */
function innermostMessage(err: Error): string | undefined {
  let found: string | undefined;
  const seen = new Set<unknown>();
  for (let at: unknown = err.cause; at instanceof Error && !seen.has(at); at = at.cause) {
    seen.add(at);
    if (at.message.trim() !== '') found = at.message;
  }
  return found;
}
