import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { reviewDecisionsSchema, type ReviewAnswer, type Reviewer } from '../contracts/review';
import { FAILURE_TYPES } from '../contracts/failure-types';
import { reviewUpdate } from '../contracts/workflow-definitions';
import { InputError, type InputIssue } from '../errors';

export interface SubmitReviewOptions {
  /** Who decides, for the audit (`token:<name>`, `link:<id>`, `cli`); never a secret. */
  reviewer: Reviewer;
  /**
   * The caller's id for this submission: the same id again is answered as the first was and
   * applied once (Temporal's update id).
   */
  requestId?: string;
}

/**
 * Sends a reviewer's decisions to a run under review and answers what each did. Refused input
 * (a malformed decision, or one that names nothing under review) is an InputError naming the field
 * (`decisions.0.styleId`), and nothing of the submission is applied.
 */
export async function submitReview(
  client: Client,
  workflowId: string,
  request: unknown,
  options: SubmitReviewOptions,
): Promise<ReviewAnswer> {
  const parsed = reviewDecisionsSchema.safeParse(request);
  if (!parsed.success) throw InputError.fromZod(parsed.error);
  const handle = client.workflow.getHandle(workflowId);
  try {
    return await handle.executeUpdate(reviewUpdate, {
      args: [{ ...parsed.data, reviewer: options.reviewer }],
      ...(options.requestId ? { updateId: options.requestId } : {}),
    });
  } catch (err) {
    throw refusal(err) ?? err;
  }
}

/** The run's validator refused: its issues, as InputError. Undefined for any other failure. */
function refusal(err: unknown): InputError | undefined {
  if (!(err instanceof WorkflowUpdateFailedError)) return undefined;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type === FAILURE_TYPES.reviewRefused) {
    const details = cause.details?.[0] as { issues?: InputIssue[] } | undefined;
    return new InputError(details?.issues ?? [{ path: 'decisions', message: cause.message }]);
  }
  // A run of a worker version without the gate has no handler for the update.
  if (cause instanceof Error && /no registered handler/i.test(cause.message)) {
    return InputError.field(
      'decisions',
      'this run takes no review decisions (it was started without review)',
    );
  }
  return undefined;
}
